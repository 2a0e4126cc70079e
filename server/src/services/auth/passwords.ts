/**
 * Password hashing (docs/reference.md design "Security"): Argon2id with OWASP parameters (19 MiB, 2 passes,
 * 1 lane) stored as PHC strings. Unknown users are checked against a dummy hash so that a wrong
 * user name and a wrong password take the same time.
 */
import { hash, verify } from "@node-rs/argon2";
import type { Options } from "@node-rs/argon2";
import { Limits } from "@postern/shared";

/** Argon2id is algorithm 2 in @node-rs/argon2 (a const enum, so written as its value). */
const ARGON2ID = 2 as Options["algorithm"];
const OPTIONS: Options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

let dummyHash: Promise<string> | undefined;

/** Hashes a password (8–64 characters, enforced by callers' schemas) to an Argon2id PHC string. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/**
 * Verifies `password` against a PHC string; with `phc` null (unknown user, no local password) it
 * verifies against a dummy hash and returns false, taking the same time.
 */
export async function verifyPassword(phc: string | null, password: string): Promise<boolean> {
  if (password.length === 0 || password.length > Limits.passwordMaxLength * 4) {
    await verify(await (dummyHash ??= hashPassword("postern-dummy-password")), "x").catch(() => false);
    return false;
  }
  if (!phc) {
    await verify(await (dummyHash ??= hashPassword("postern-dummy-password")), password).catch(() => false);
    return false;
  }
  return verify(phc, password).catch(() => false);
}

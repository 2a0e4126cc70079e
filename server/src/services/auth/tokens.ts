/**
 * Random identifiers and their hashes. Session cookies carry 128 random bits; only the SHA-256 of
 * a token is stored, so a database leak does not reveal live sessions or keys.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";

/** A random token of `bytes` bytes (default 16 = 128 bits), base64url. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString("base64url");
}

/** SHA-256 of a token, hex. */
export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** A new random UUID (v4) for entity ids. */
export function newId(): string {
  return randomUUID();
}

/**
 * Backend secrets sealed to an agent (docs/reference.md design "Agent protocol": "Backend secrets and Sensitive
 * script variables are sealed to the agent's public key (libsodium sealed boxes): the server cannot
 * read them back"). `crypto_box_seal` to the agent's X25519 key (`agents.box_public_key`, base64 of
 * the raw 32 bytes); only the agent's secret key opens the result. Sealed values are stored in
 * `backends.sealed_secrets` (a JSON map), never in `config`, never logged, never returned.
 *
 * Keys of the map: a backend secret field by its name (`Bearer`, `ApiKey`, ...); an ACL's sensitive
 * script variable as `acl:<aclId>:env:<NAME>` (`aclEnvKey`).
 */
import type sodiumModule from "libsodium-wrappers";

/** X25519 public key length, bytes (libsodium's crypto_box_PUBLICKEYBYTES). */
const BOX_PUBLIC_KEY_BYTES = 32;

let sodiumReady: Promise<typeof sodiumModule> | undefined;

/**
 * libsodium, imported and initialised by the first seal rather than at start: its WebAssembly
 * instance holds a 16 MB memory of its own, resident for the life of the process, and only servers
 * whose agents hold backend secrets need it (docs/decisions.md "Server memory").
 */
function loadSodium(): Promise<typeof sodiumModule> {
  sodiumReady ??= import("libsodium-wrappers").then(async ({ default: sodium }) => {
    await sodium.ready;
    return sodium;
  });
  return sodiumReady;
}

/** The sealed values of one backend: map key → base64 sealed box. */
export type SealedSecrets = Record<string, string>;

/** True when `key` is base64 of exactly 32 bytes (an X25519 public key), the only keys `sealTo` accepts. */
export function isBoxPublicKey(key: string | null | undefined): key is string {
  if (!key || !/^[A-Za-z0-9+/]{43}=$/.test(key)) return false;
  return Buffer.from(key, "base64").length === BOX_PUBLIC_KEY_BYTES;
}

/**
 * Seals `plaintext` (UTF-8) to the agent's box public key; resolves the sealed box as base64
 * (standard alphabet, padded). The first call loads libsodium. Rejects with Error when the key is not
 * a 32-byte base64 key.
 */
export async function sealTo(boxPublicKey: string, plaintext: string): Promise<string> {
  if (!isBoxPublicKey(boxPublicKey)) throw new Error("not an X25519 public key");
  const sodium = await loadSodium();
  const sealed = sodium.crypto_box_seal(sodium.from_string(plaintext), Buffer.from(boxPublicKey, "base64"));
  return Buffer.from(sealed).toString("base64");
}

/** The map key of an ACL's sealed script variable `name`. */
export function aclEnvKey(aclId: string, name: string): string {
  return `acl:${aclId}:env:${name}`;
}

/** The map keys of one ACL's sealed variables (prefix match), or of every ACL when `aclId` is omitted. */
export function aclKeysOf(sealed: SealedSecrets, aclId?: string): string[] {
  const prefix = aclId === undefined ? "acl:" : `acl:${aclId}:env:`;
  return Object.keys(sealed).filter((k) => k.startsWith(prefix));
}

/** The backend's own sealed fields (every key that is not an ACL variable). */
export function backendFieldsOf(sealed: SealedSecrets): SealedSecrets {
  return Object.fromEntries(Object.entries(sealed).filter(([k]) => !k.startsWith("acl:")));
}

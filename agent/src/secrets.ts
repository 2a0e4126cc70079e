/**
 * Opens the secrets the server sealed to this agent (issue #10 item 4; docs/reference.md design "Agent protocol":
 * libsodium sealed boxes to the agent's X25519 key). Opened values live only in memory: never in
 * logs, state files or error texts.
 */
import sodium from "libsodium-wrappers";

await sodium.ready;

/**
 * Returns a function that opens a base64 sealed box with the agent's box key pair (both base64 of the
 * raw 32 bytes). The function throws a fixed message (never the value) when a box cannot be opened.
 */
export function secretOpener(boxPublicKey: string, boxSecretKey: string): (sealed: string) => string {
  const pk = Buffer.from(boxPublicKey, "base64");
  const sk = Buffer.from(boxSecretKey, "base64");
  return (sealed) => {
    try {
      return sodium.to_string(sodium.crypto_box_seal_open(Buffer.from(sealed, "base64"), pk, sk));
    } catch {
      throw new Error("a sealed secret cannot be opened with this agent's key (was it sealed to another agent?)");
    }
  };
}

/** Seals `plaintext` to a box public key (tests and tools; the server has its own copy). */
export function sealForAgent(boxPublicKey: string, plaintext: string): string {
  return Buffer.from(
    sodium.crypto_box_seal(sodium.from_string(plaintext), Buffer.from(boxPublicKey, "base64")),
  ).toString("base64");
}

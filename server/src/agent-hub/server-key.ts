/**
 * The server's agent signing key (docs/agent-protocol.md "Server identity"): an Ed25519 key pair
 * generated once and kept in `<data dir>/agent-signing.key` (PKCS#8 PEM, mode 0600). Its public half
 * goes to every agent in the enrolment answer (`ServerKey`); the agent pins it and checks the
 * signature of every frame the server sends. A key, not the TLS certificate, so that the pin holds
 * behind a TLS-terminating reverse proxy and across certificate renewals.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file name of the key inside the data directory. */
export const AGENT_SIGNING_KEY_FILE = "agent-signing.key";

/** The server's agent signing key: the private key and the public key as agents pin it. */
export interface ServerSigningKey {
  /** Ed25519 private key. Never log it. */
  readonly privateKey: KeyObject;
  /** Ed25519 public key, SPKI DER, base64 (the enrolment answer's `ServerKey`). */
  readonly publicKey: string;
}

function fromPrivate(privateKey: KeyObject): ServerSigningKey {
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error("the agent signing key must be Ed25519");
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  return { privateKey, publicKey: spki.toString("base64") };
}

/** A fresh key held only in memory (tests, the in-process harness). */
export function generateServerSigningKey(): ServerSigningKey {
  return fromPrivate(generateKeyPairSync("ed25519").privateKey);
}

/**
 * Loads `<dataDir>/agent-signing.key`, creating it (a new Ed25519 key, mode 0600) when missing; a file
 * readable by group or others is narrowed to 0600. Two processes creating it at once agree (the
 * second reads the first one's file).
 * @throws Error when the file exists but does not hold an Ed25519 private key in PEM.
 */
export function loadOrCreateServerSigningKey(dataDir: string): ServerSigningKey {
  const file = join(dataDir, AGENT_SIGNING_KEY_FILE);
  try {
    const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" });
    writeFileSync(file, pem, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  if (statSync(file).mode & 0o077) chmodSync(file, 0o600);
  let key: KeyObject;
  try {
    key = createPrivateKey(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`${file} does not hold a private key in PEM: ${(err as Error).message}`, { cause: err });
  }
  return fromPrivate(key);
}

/**
 * Licence keys (docs/reference.md design "Contract decisions"): `base64url(JSON payload) "." base64url(Ed25519
 * signature over the payload bytes)`, signed and verified with node:crypto. The literal key `free`
 * is the free single-user licence and carries no signature. Trusted public keys are written as
 * base64 of the raw 32-byte Ed25519 key or of its SPKI DER encoding (POSTERN_LICENSE_PUBLIC_KEYS).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { FREE_LICENSE, FREE_LICENSE_KEY, LicensePayloadSchema, MAX_LICENSE_KEY_LENGTH, Errors } from "@postern/shared";
import type { LicensePayload } from "@postern/shared";
import { AppError } from "../../errors.ts";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
/** Length of an Ed25519 signature in bytes. */
const SIGNATURE_BYTES = 64;

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Decodes strict, unpadded base64url; null when the text is not canonical base64url. */
function fromBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : null;
}

const invalidKey = (extra: string) => new AppError(Errors.invalidLicenseKey, extra);

/**
 * Parses one trusted public key: base64 (or base64url) of the raw 32-byte Ed25519 key or of its
 * 44-byte SPKI DER. Throws an Error naming the problem.
 */
export function parseLicensePublicKey(text: string): KeyObject {
  const t = text.trim();
  if (!BASE64.test(t)) throw new Error("a licence public key must be base64");
  const bytes = Buffer.from(t.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  let der: Buffer;
  if (bytes.length === 32) der = Buffer.concat([SPKI_ED25519_PREFIX, bytes]);
  else if (bytes.length === 44 && bytes.subarray(0, SPKI_ED25519_PREFIX.length).equals(SPKI_ED25519_PREFIX))
    der = bytes;
  else throw new Error("a licence public key must be a raw 32-byte or SPKI DER Ed25519 key");
  return createPublicKey({ key: der, format: "der", type: "spki" });
}

/**
 * Parses a comma-separated list of trusted public keys (the POSTERN_LICENSE_PUBLIC_KEYS format);
 * blank entries are skipped. Throws an Error naming the first bad entry (1-based).
 */
export function parseLicensePublicKeys(list: string | readonly string[]): KeyObject[] {
  const entries = (typeof list === "string" ? list.split(",") : list.flatMap((e) => e.split(",")))
    .map((e) => e.trim())
    .filter(Boolean);
  return entries.map((e, i) => {
    try {
      return parseLicensePublicKey(e);
    } catch (err) {
      throw new Error(`licence public key ${i + 1}: ${(err as Error).message}`, { cause: err });
    }
  });
}

/** Formats a public key as POSTERN_LICENSE_PUBLIC_KEYS expects it: base64 of the raw 32 bytes. */
export function formatLicensePublicKey(key: KeyObject): string {
  const der = key.export({ format: "der", type: "spki" });
  return der.subarray(SPKI_ED25519_PREFIX.length).toString("base64");
}

/** A new signing key pair: the private key as PKCS#8 PEM, the public key in the trusted-key format. */
export function generateLicenseSigningKey(): { privateKeyPem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKeyPem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKey: formatLicensePublicKey(publicKey),
  };
}

/** Reads an Ed25519 private key from PEM; throws an Error when it is not one. */
export function parseLicensePrivateKey(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519")
    throw new Error(`the signing key must be Ed25519, not ${key.asymmetricKeyType ?? "unknown"}`);
  return key;
}

/**
 * Signs a licence: validates the payload (throws 400 err.invalidLicenseKey naming the field), then
 * returns `base64url(JSON) "." base64url(signature)`. Expires is written as ISO 8601 UTC or null.
 */
export function signLicense(payload: LicensePayload, privateKey: KeyObject): string {
  const p = LicensePayloadSchema.safeParse(payload);
  if (!p.success)
    throw invalidKey(`${p.error.issues[0]?.path.join(".") ?? ""}: ${p.error.issues[0]?.message ?? "invalid"}`);
  const { ID, UserLimit, UserLimitOverage, SessionLimit, MaxMachines, Expires } = p.data;
  const bytes = Buffer.from(
    JSON.stringify({ ID, UserLimit, UserLimitOverage, SessionLimit, MaxMachines, Expires }),
    "utf8",
  );
  return `${bytes.toString("base64url")}.${sign(null, bytes, privateKey).toString("base64url")}`;
}

/** The two parts of a signed key, decoded; throws 400 err.invalidLicenseKey when malformed. */
function splitKey(key: string): { payloadBytes: Buffer; signature: Buffer } {
  if (key.length > MAX_LICENSE_KEY_LENGTH) throw invalidKey("the key is too long");
  const parts = key.split(".");
  if (parts.length !== 2) throw invalidKey("expected payload.signature");
  const payloadBytes = fromBase64url(parts[0] ?? "");
  const signature = fromBase64url(parts[1] ?? "");
  if (!payloadBytes || !signature) throw invalidKey("the payload and signature must be base64url");
  if (signature.length !== SIGNATURE_BYTES) throw invalidKey("the signature must be 64 bytes");
  return { payloadBytes, signature };
}

/** Parses the payload bytes as a licence; throws 400 err.invalidLicenseKey naming the problem. */
function parsePayload(bytes: Buffer): LicensePayload {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw invalidKey("the payload is not JSON");
  }
  const p = LicensePayloadSchema.safeParse(json);
  if (!p.success)
    throw invalidKey(`${p.error.issues[0]?.path.join(".") || "payload"}: ${p.error.issues[0]?.message ?? "invalid"}`);
  return p.data;
}

/**
 * Reads a key's payload WITHOUT checking its signature: for a licence already verified when it was
 * installed. `free` gives the free licence. Throws 400 err.invalidLicenseKey when unparsable.
 */
export function decodeLicense(key: string): LicensePayload {
  if (key === FREE_LICENSE_KEY) return { ...FREE_LICENSE };
  return parsePayload(splitKey(key).payloadBytes);
}

/**
 * Verifies a key against the trusted public keys and returns its payload. `free` needs no signature.
 * Throws 400 err.invalidLicenseKey (malformed, not a licence) or err.invalidLicenseSignature (no
 * trusted key configured, tampered, or signed by an untrusted key). Expiry is not checked here.
 */
export function verifyLicense(key: string, trusted: readonly KeyObject[]): LicensePayload {
  const k = key.trim();
  if (k === FREE_LICENSE_KEY) return { ...FREE_LICENSE };
  const { payloadBytes, signature } = splitKey(k);
  if (trusted.length === 0)
    throw new AppError(
      Errors.invalidLicenseSignature,
      "no trusted licence public keys are configured (POSTERN_LICENSE_PUBLIC_KEYS)",
    );
  if (!trusted.some((pub) => verify(null, payloadBytes, pub, signature))) {
    throw new AppError(Errors.invalidLicenseSignature, "the signature does not match any trusted licence public key");
  }
  return parsePayload(payloadBytes);
}

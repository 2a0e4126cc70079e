/**
 * Secrets at rest (docs/reference.md design "Security"): AES-256-GCM with a 32-byte key kept in a file outside the
 * database (`<data dir>/secret.key`, mode 0600). Sealed values are `v1.<iv>.<tag>.<ciphertext>`
 * (base64url); the additional data binds each value to its purpose, so a value cannot be moved to
 * another field.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, chmodSync, statSync } from "node:fs";

/** Length of the GCM authentication tag, bytes: only full 16-byte tags are accepted (a shorter one is forgeable). */
export const TAG_BYTES = 16;
/** Length of the GCM nonce, bytes. */
export const IV_BYTES = 12;

/** Encrypts and decrypts secrets with one key. */
export class SecretBox {
  readonly #key: Buffer;
  /** `key` must be 32 bytes. */
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error("the secret key must be 32 bytes");
    this.#key = key;
  }

  /** Encrypts `plaintext` for `purpose` (e.g. "saml.user.key"). */
  seal(purpose: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), body.toString("base64url")].join(
      ".",
    );
  }

  /**
   * Decrypts a value sealed for `purpose`; throws when it was tampered with (a tag or nonce of the
   * wrong length included) or sealed for another purpose.
   */
  open(purpose: string, sealed: string): string {
    const [version, iv, tag, body] = sealed.split(".");
    if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("not a sealed secret");
    const ivBytes = Buffer.from(iv, "base64url");
    const tagBytes = Buffer.from(tag, "base64url");
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error("not a sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
  }
}

/**
 * Loads the key file, creating it (32 random bytes, mode 0600) when missing. Throws when the file
 * exists with another size or is readable by group or others.
 */
export function loadOrCreateSecretKey(file: string): Buffer {
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32), { mode: 0o600, flag: "wx" });
  }
  const mode = statSync(file).mode & 0o777;
  if (mode & 0o077) chmodSync(file, 0o600);
  const key = readFileSync(file);
  if (key.length !== 32) throw new Error(`${file} must hold exactly 32 bytes`);
  return key;
}

import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox, loadOrCreateSecretKey } from "./at-rest.ts";

describe("SecretBox", () => {
  const box = new SecretBox(randomBytes(32));
  it("opens what it sealed, for the same purpose only", () => {
    const sealed = box.seal("saml.user.key", "-----BEGIN PRIVATE KEY-----");
    expect(sealed).not.toContain("PRIVATE");
    expect(box.open("saml.user.key", sealed)).toBe("-----BEGIN PRIVATE KEY-----");
    expect(() => box.open("saml.admin.key", sealed)).toThrow();
  });
  it("refuses a tampered value and another key", () => {
    const sealed = box.seal("p", "secret");
    const parts = sealed.split(".");
    parts[3] = Buffer.from("other").toString("base64url");
    expect(() => box.open("p", parts.join("."))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open("p", sealed)).toThrow();
  });
  it("refuses a truncated authentication tag (only 16-byte GCM tags)", () => {
    const sealed = box.seal("p", "secret");
    const parts = sealed.split(".");
    // A 4-byte prefix of the right tag: GCM without a fixed tag length would accept it.
    parts[2] = Buffer.from(parts[2]!, "base64url").subarray(0, 4).toString("base64url");
    expect(() => box.open("p", parts.join("."))).toThrow();
  });
  it("creates the key file with mode 0600 and reuses it", () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-key-"));
    const file = join(dir, "secret.key");
    const a = loadOrCreateSecretKey(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateSecretKey(file).equals(a)).toBe(true);
    writeFileSync(join(dir, "bad.key"), "short");
    expect(() => loadOrCreateSecretKey(join(dir, "bad.key"))).toThrow(/32 bytes/);
  });
});

import { describe, expect, it } from "vitest";
import { generateKeyPairSync, sign } from "node:crypto";
import { FREE_LICENSE } from "@postern/shared";
import type { LicensePayload } from "@postern/shared";
import { AppError } from "../../errors.ts";
import { loadServerConfig } from "../../config/index.ts";
import {
  decodeLicense,
  formatLicensePublicKey,
  generateLicenseSigningKey,
  parseLicensePrivateKey,
  parseLicensePublicKey,
  parseLicensePublicKeys,
  signLicense,
  verifyLicense,
} from "./keys.ts";

const payload: LicensePayload = {
  ID: "acme-2027",
  UserLimit: 25,
  UserLimitOverage: 30,
  SessionLimit: 4,
  MaxMachines: 3,
  Expires: "2027-06-30T23:59:59.000Z",
};

function keyPair() {
  const { privateKeyPem, publicKey } = generateLicenseSigningKey();
  return { priv: parseLicensePrivateKey(privateKeyPem), pub: parseLicensePublicKey(publicKey), text: publicKey };
}

/** The AppError a call throws (fails the test when it does not throw one). */
function appError(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}

describe("licence keys", () => {
  it("signs base64url(JSON).base64url(signature) and verifies it under the trusted key", () => {
    const k = keyPair();
    const key = signLicense(payload, k.priv);
    const [body, sig] = key.split(".");
    expect(JSON.parse(Buffer.from(body!, "base64url").toString("utf8"))).toEqual(payload);
    expect(Buffer.from(sig!, "base64url")).toHaveLength(64);
    expect(key).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyLicense(key, [k.pub])).toEqual(payload);
    expect(verifyLicense(`  ${key}\n`, [k.pub])).toEqual(payload);
  });

  it("accepts a key signed by any of several trusted keys", () => {
    const a = keyPair();
    const b = keyPair();
    expect(verifyLicense(signLicense(payload, b.priv), parseLicensePublicKeys(`${a.text}, ${b.text}`))).toEqual(
      payload,
    );
  });

  it("writes a missing Expires as null (never) and normalises offsets to UTC", () => {
    const k = keyPair();
    expect(verifyLicense(signLicense({ ...payload, Expires: null }, k.priv), [k.pub]).Expires).toBeNull();
    expect(
      verifyLicense(signLicense({ ...payload, Expires: "2027-01-01T02:00:00+02:00" }, k.priv), [k.pub]).Expires,
    ).toBe("2027-01-01T00:00:00.000Z");
  });

  it("refuses a tampered payload with err.invalidLicenseSignature", () => {
    const k = keyPair();
    const [, sig] = signLicense(payload, k.priv).split(".");
    const forged = Buffer.from(JSON.stringify({ ...payload, UserLimit: 100000 })).toString("base64url");
    const e = appError(() => verifyLicense(`${forged}.${sig}`, [k.pub]));
    expect(e).toMatchObject({ status: 400, err: "err.invalidLicenseSignature" });
  });

  it("refuses a key signed by an untrusted key, and any key when none is trusted", () => {
    const trusted = keyPair();
    const other = keyPair();
    const key = signLicense(payload, other.priv);
    expect(appError(() => verifyLicense(key, [trusted.pub]))).toMatchObject({
      status: 400,
      err: "err.invalidLicenseSignature",
      extra: "the signature does not match any trusted licence public key",
    });
    expect(appError(() => verifyLicense(key, []))).toMatchObject({
      status: 400,
      err: "err.invalidLicenseSignature",
      extra: expect.stringContaining("POSTERN_LICENSE_PUBLIC_KEYS"),
    });
  });

  it("refuses malformed keys with err.invalidLicenseKey", () => {
    const k = keyPair();
    const sig = Buffer.alloc(64, 1).toString("base64url");
    // Correctly signed, so only the payload itself is wrong (signLicense would refuse to sign these).
    const signed = (text: string) =>
      `${Buffer.from(text).toString("base64url")}.${sign(null, Buffer.from(text), k.priv).toString("base64url")}`;
    const cases: [string, string][] = [
      ["", "expected payload.signature"],
      ["nodot", "expected payload.signature"],
      ["a.b.c", "expected payload.signature"],
      [`abc+/.${sig}`, "the payload and signature must be base64url"],
      [`${Buffer.from("{}").toString("base64")}=.${sig}`, "the payload and signature must be base64url"],
      [
        `${Buffer.from("{}").toString("base64url")}.${Buffer.alloc(10).toString("base64url")}`,
        "the signature must be 64 bytes",
      ],
      [`x.${sig}${"y".repeat(5000)}`, "the key is too long"],
      [signed("not json"), "the payload is not JSON"],
      [signed("[1,2]"), "payload: Invalid input: expected object, received array"],
      [signed(JSON.stringify({ ...payload, UserLimit: 0 })), "UserLimit: Too small: expected number to be >=1"],
      [signed(JSON.stringify({ ...payload, Expires: "next year" })), "Expires: Invalid ISO datetime"],
    ];
    for (const [key, extra] of cases) {
      expect(
        appError(() => verifyLicense(key, [k.pub])),
        key.slice(0, 40),
      ).toMatchObject({ status: 400, err: "err.invalidLicenseKey", extra });
    }
  });

  it("reads `free` as the free single-user licence without a signature or trusted key", () => {
    expect(verifyLicense("free", [])).toEqual({
      ID: "free",
      UserLimit: 1,
      UserLimitOverage: 0,
      SessionLimit: 1,
      MaxMachines: 1,
      Expires: null,
    });
    expect(decodeLicense("free")).toEqual(FREE_LICENSE);
    expect(appError(() => verifyLicense("FREE", []))).toMatchObject({ err: "err.invalidLicenseKey" });
  });

  it("decodes a stored key's payload without its signature", () => {
    const k = keyPair();
    expect(decodeLicense(signLicense(payload, k.priv))).toEqual(payload);
    expect(appError(() => decodeLicense("garbage"))).toMatchObject({ err: "err.invalidLicenseKey" });
  });

  it("parses public keys as raw 32-byte or SPKI DER base64, and names a bad one", () => {
    const { publicKey } = generateKeyPairSync("ed25519");
    const raw = formatLicensePublicKey(publicKey);
    const spki = publicKey.export({ format: "der", type: "spki" }).toString("base64");
    expect(Buffer.from(raw, "base64")).toHaveLength(32);
    expect(formatLicensePublicKey(parseLicensePublicKey(spki))).toBe(raw);
    expect(formatLicensePublicKey(parseLicensePublicKey(raw))).toBe(raw);
    expect(parseLicensePublicKeys(` ${raw} ,, ${spki} `)).toHaveLength(2);
    expect(parseLicensePublicKeys("")).toEqual([]);
    expect(() => parseLicensePublicKeys(`${raw},not base64!`)).toThrow(
      "licence public key 2: a licence public key must be base64",
    );
    expect(() => parseLicensePublicKeys(Buffer.alloc(31).toString("base64"))).toThrow("raw 32-byte or SPKI DER");
    const rsaSpki = generateKeyPairSync("rsa", { modulusLength: 1024 })
      .publicKey.export({ format: "der", type: "spki" })
      .toString("base64");
    expect(() => parseLicensePublicKeys(rsaSpki)).toThrow("raw 32-byte or SPKI DER");
  });

  it("refuses a private key that is not Ed25519, and an invalid payload to sign", () => {
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" })
      .privateKey.export({ format: "pem", type: "pkcs8" })
      .toString();
    expect(() => parseLicensePrivateKey(ec)).toThrow("the signing key must be Ed25519, not ec");
    const k = keyPair();
    expect(appError(() => signLicense({ ...payload, ID: "" }, k.priv))).toMatchObject({
      status: 400,
      err: "err.invalidLicenseKey",
      extra: expect.stringMatching(/^ID: /),
    });
  });
});

describe("POSTERN_LICENSE_PUBLIC_KEYS", () => {
  it("is read as a comma-separated list, default none, and a bad key is a configuration problem", () => {
    const { publicKey } = generateLicenseSigningKey();
    const ok = loadServerConfig({ POSTERN_LICENSE_PUBLIC_KEYS: ` ${publicKey} ,` });
    expect(ok.ok && ok.value.licensePublicKeys).toEqual([publicKey]);
    const none = loadServerConfig({});
    expect(none.ok && none.value.licensePublicKeys).toEqual([]);
    expect(loadServerConfig({ POSTERN_LICENSE_PUBLIC_KEYS: `${publicKey},AAAA` })).toEqual({
      ok: false,
      problems: [
        "POSTERN_LICENSE_PUBLIC_KEYS: licence public key 2: a licence public key must be a raw 32-byte or SPKI DER Ed25519 key",
      ],
    });
  });
});

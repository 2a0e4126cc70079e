import { describe, expect, it } from "vitest";
import { allowlistReadScope, parseApiKeyScope, userAuthScope } from "@postern/shared";
import { formatApiKey, keyFromAuthorization, parseApiKey } from "./api-keys.ts";

const ID = "0f0e0d0c-0b0a-4908-8706-050403020100";
const SECRET = "A".repeat(42) + "_";

describe("API key format", () => {
  it("formats pst_<id without dashes>_<secret> and parses it back; anything else is malformed", () => {
    const key = formatApiKey(ID, SECRET);
    expect(key).toBe(`pst_0f0e0d0c0b0a49088706050403020100_${SECRET}`);
    expect(parseApiKey(key)).toEqual({ id: ID, secret: SECRET });
    for (const bad of [
      "",
      "pst_",
      key.slice(0, -1),
      `${key}A`,
      key.replace("pst_", "psk_"),
      key.toUpperCase(),
      ` ${key}`,
      key.replace("_A", "-A"),
    ]) {
      expect(parseApiKey(bad)).toBeNull();
    }
  });
});

describe("keyFromAuthorization", () => {
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  it("reads Bearer and Basic (password, or the user name when the password is empty)", () => {
    expect(keyFromAuthorization(undefined)).toBeUndefined();
    expect(keyFromAuthorization("  ")).toBeUndefined();
    expect(keyFromAuthorization("Bearer abc")).toBe("abc");
    expect(keyFromAuthorization("bearer abc ")).toBe("abc");
    expect(keyFromAuthorization(`Basic ${b64("user:secret:with:colons")}`)).toBe("secret:with:colons");
    expect(keyFromAuthorization(`Basic ${b64("the-key:")}`)).toBe("the-key");
  });
  it('answers "" (presented but unusable) for other schemes and broken values', () => {
    for (const h of [
      "Bearer",
      "Bearer a b",
      "Digest x",
      `Basic ${b64("no-colon")}`,
      "Basic !!!",
      `Basic ${b64(":")}`,
      "Negotiate abc",
    ]) {
      expect(keyFromAuthorization(h)).toBe("");
    }
  });
});

describe("API key scopes", () => {
  it("parses the four scopes, lower-cases ids, refuses the rest", () => {
    expect(parseApiKeyScope("agent.register")).toEqual({ name: "agent.register" });
    expect(parseApiKeyScope("user.sessions")).toEqual({ name: "user.sessions" });
    expect(parseApiKeyScope(`allowlist.read:${ID.toUpperCase()}`)).toEqual({ name: "allowlist.read", id: ID });
    expect(parseApiKeyScope(`user.auth:${ID}`)).toEqual({ name: "user.auth", id: ID });
    expect(allowlistReadScope(ID.toUpperCase())).toBe(`allowlist.read:${ID}`);
    expect(userAuthScope(ID)).toBe(`user.auth:${ID}`);
    for (const bad of [
      "",
      "admin",
      "allowlist.read",
      `allowlist.read:${ID}x`,
      `agent.register:${ID}`,
      `user.sessions:${ID}`,
      `other:${ID}`,
      "user.auth:",
    ]) {
      expect(parseApiKeyScope(bad)).toBeNull();
    }
  });
});

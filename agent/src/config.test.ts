import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "./config.ts";
import { generateKeyPairSync } from "node:crypto";
import { generateAgentKeys } from "./enrol.ts";

const keys = generateAgentKeys();
const raw = {
  server: "https://postern.example",
  agentId: "a1",
  signingPrivateKey: keys.signingPrivateKey,
  boxPublicKey: keys.boxPublicKey,
  boxSecretKey: keys.boxSecretKey,
  serverPublicKey: generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).toString("base64"),
};

describe("agent config: driver settings", () => {
  it("defaults the script timeout to 30 s and the knocproxy folder to /etc/haproxy/postern", () => {
    expect(resolveConfig(raw, "/etc/postern/agent.json", { root: true })).toMatchObject({
      scriptsEnabled: false,
      scriptTimeoutSeconds: 30,
      knocproxyDir: "/etc/haproxy/postern",
    });
  });

  it("refuses a relative knocproxy folder and a script timeout out of range", () => {
    const e = (() => {
      try {
        resolveConfig({ ...raw, knocproxyDir: "haproxy/acls", scriptTimeoutSeconds: 0 }, "/x.json");
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).problems).toEqual([
      expect.stringMatching(/^scriptTimeoutSeconds: /),
      "knocproxyDir: knocproxyDir must be an absolute path without spaces",
    ]);
  });
});

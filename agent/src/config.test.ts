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

describe("agent config: several server URLs (issue #12 item 4)", () => {
  it("keeps the single-URL form valid: servers is then just that URL", () => {
    expect(resolveConfig(raw, "/x.json", { root: true }).servers).toEqual(["https://postern.example"]);
  });

  it("tries server first, then servers in their order, each URL once", () => {
    const c = resolveConfig(
      { ...raw, servers: ["https://b.postern.example", "https://postern.example/", "https://c.postern.example"] },
      "/x.json",
      { root: true },
    );
    expect(c.server).toBe("https://postern.example");
    expect(c.servers).toEqual(["https://postern.example", "https://b.postern.example", "https://c.postern.example"]);
  });

  it("refuses an http:// URL to another host in servers, naming it, a string in place of the list and a list of more than 16", () => {
    const problems = (value: unknown): readonly string[] => {
      try {
        resolveConfig({ ...raw, servers: value }, "/x.json");
      } catch (err) {
        if (err instanceof ConfigError) return err.problems;
        throw err;
      }
      return [];
    };
    expect(problems(["http://b.postern.example"])).toEqual([
      expect.stringMatching(/^servers\.0: refusing http:\/\/ to b\.postern\.example/),
    ]);
    expect(problems(["not a url"])).toEqual(["servers.0: servers[] must be an https:// URL"]);
    expect(problems("https://b.postern.example")[0]).toBe("servers: servers must be a list of https:// URLs");
    expect(problems(Array.from({ length: 17 }, (_, i) => `https://r${i}.postern.example`))).toEqual([
      "servers: servers holds at most 16 URLs",
    ]);
    expect(problems([])).toEqual([]);
    expect(problems(["http://127.0.0.1:8080"])).toEqual([]);
  });
});

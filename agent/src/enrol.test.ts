import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { once } from "node:events";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AGENT_ENROL_PATH, AGENT_REGISTER_PATH } from "@postern/shared";
import type { AgentRegisterRequest, EnrolRequest } from "@postern/shared";
import { ConfigError, NO_SERVER_KEY_PROBLEM, loadConfig, saveConfig } from "./config.ts";
import { EnrolError, enrol, generateAgentKeys } from "./enrol.ts";

const AGENT_ID = "a0000000-0000-4000-8000-000000000009";
/** The server's agent signing public key the fake server answers (SPKI DER, base64). */
const SERVER_KEY = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).toString("base64");

interface Seen {
  method: string;
  url: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: EnrolRequest & Partial<AgentRegisterRequest>;
}

let server: Server;
let base: string;
let dir: string;
let seen: Seen[];
let respond: (req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  seen = [];
  respond = (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ AgentID: AGENT_ID, Name: "edge-1", ServerKey: SERVER_KEY }));
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        contentType: req.headers["content-type"],
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Seen["body"],
      });
      respond(req, res);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), "postern-enrol-"));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const CAPS = { script: { enabled: false } };

describe("enrol", () => {
  it("sends its public keys with the token and writes a 0600 config holding the matching private keys", async () => {
    const configPath = join(dir, "agent.json");
    const result = await enrol({
      server: `${base}/postern/`,
      token: "tok-123",
      configPath,
      capabilities: CAPS,
      version: "1.9.0",
    });
    expect(result).toEqual({ agentId: AGENT_ID, name: "edge-1", configPath });

    expect(seen).toHaveLength(1);
    const req = seen[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe(`/postern${AGENT_ENROL_PATH}`);
    expect(req.contentType).toBe("application/json");
    expect(req.body).toMatchObject({ Token: "tok-123", Version: "1.9.0", Capabilities: CAPS });

    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
    const config = await loadConfig(configPath);
    expect(config).toMatchObject({
      server: `${base}/postern/`,
      agentId: AGENT_ID,
      serverPublicKey: SERVER_KEY,
      scriptsEnabled: false,
      driftCheckSeconds: 5,
    });
    expect(config.stateFile).toBe(join(dir, "agent.state.json"));

    // Ed25519: what the agent signs verifies with the public key the server received (SPKI DER, base64).
    const spki = createPublicKey({
      key: Buffer.from(req.body.SigningPublicKey, "base64"),
      format: "der",
      type: "spki",
    });
    expect(spki.asymmetricKeyType).toBe("ed25519");
    const signature = sign(null, Buffer.from("x"), createPrivateKey(config.signingPrivateKey));
    expect(verify(null, Buffer.from("x"), spki, signature)).toBe(true);

    // X25519: raw 32-byte keys; the stored secret derives the public key the server received.
    expect(Buffer.from(req.body.BoxPublicKey, "base64")).toHaveLength(32);
    expect(req.body.BoxPublicKey).toBe(config.boxPublicKey);
    const pkcs8 = Buffer.concat([
      Buffer.from("302e020100300506032b656e04220420", "hex"),
      Buffer.from(config.boxSecretKey, "base64"),
    ]);
    const derived = createPublicKey(createPrivateKey({ key: pkcs8, format: "der", type: "pkcs8" })).export({
      format: "jwk",
    });
    expect(Buffer.from(derived.x ?? "", "base64url").toString("base64")).toBe(config.boxPublicKey);
  });

  it("reports the server's {Err, Extra} on an HTTP error and writes nothing", async () => {
    respond = (_req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ Err: "err.unauthorised", Extra: "token already used" }));
    };
    const configPath = join(dir, "agent.json");
    const error = await enrol({ server: base, token: "t", configPath, capabilities: CAPS, version: "1.9.0" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EnrolError);
    expect((error as EnrolError).message).toBe(
      "enrolment refused by the server (HTTP 401): err.unauthorised: token already used",
    );
    expect((error as EnrolError).status).toBe(401);
    expect((error as EnrolError).body).toEqual({ Err: "err.unauthorised", Extra: "token already used" });
    await expect(stat(configPath)).rejects.toThrow(/ENOENT/);
  });

  it("shows the start of a non-JSON error body", async () => {
    respond = (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<h1>Bad gateway</h1>");
    };
    await expect(
      enrol({ server: base, token: "t", configPath: join(dir, "a.json"), capabilities: CAPS, version: "1.9.0" }),
    ).rejects.toThrow("enrolment refused by the server (HTTP 502): <h1>Bad gateway</h1>");
  });

  it("refuses an answer without an AgentID", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true }));
    };
    await expect(
      enrol({ server: base, token: "t", configPath: join(dir, "a.json"), capabilities: CAPS, version: "1.9.0" }),
    ).rejects.toThrow(/enrolment answer is not valid/);
  });

  it("refuses to replace an existing config unless forced, before spending the token", async () => {
    const configPath = join(dir, "agent.json");
    await writeFile(configPath, "{}", { mode: 0o600 });
    await expect(enrol({ server: base, token: "t", configPath, capabilities: CAPS, version: "1.9.0" })).rejects.toThrow(
      /already exists/,
    );
    expect(seen).toHaveLength(0);
    await enrol({ server: base, token: "t", configPath, capabilities: CAPS, version: "1.9.0", force: true });
    expect(JSON.parse(await readFile(configPath, "utf8"))).toMatchObject({ agentId: AGENT_ID });
  });

  it("says when the server cannot be reached", async () => {
    const closed = base;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.listen(0, "127.0.0.1"); // re-listened elsewhere so afterEach can close it
    await once(server, "listening");
    await expect(
      enrol({ server: closed, token: "t", configPath: join(dir, "a.json"), capabilities: CAPS, version: "1.9.0" }),
    ).rejects.toThrow(/cannot reach the server at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  it.each(["http://192.0.2.10:8080", "http://postern.example.com/", "http://[2001:db8::1]/"])(
    "refuses %s (not loopback) before sending anything, token or keys",
    async (server) => {
      const configPath = join(dir, "agent.json");
      await expect(
        enrol({ server, token: "secret-token", configPath, capabilities: CAPS, version: "1.9.0" }),
      ).rejects.toThrow(/must be https:\/\/ \(http:\/\/ only to this host's loopback address\)/);
      expect(seen).toEqual([]);
      await expect(stat(configPath)).rejects.toThrow(/ENOENT/);
    },
  );

  it("allows http:// to loopback names and addresses", async () => {
    const port = new URL(base).port;
    for (const [i, host] of ["localhost", "127.0.0.1", "[::ffff:127.0.0.1]"].entries()) {
      const server = `http://${host}:${port}`;
      await enrol({ server, token: "t", configPath: join(dir, `a${i}.json`), capabilities: CAPS, version: "1.9.0" });
    }
    expect(seen).toHaveLength(3);
  });

  it("with an API key, creates and enrols the named agent at /api/agent/register (Bearer key, no token)", async () => {
    const configPath = join(dir, "agent.json");
    const result = await enrol({
      server: base,
      apiKey: "pst_key",
      name: "edge-1",
      configPath,
      capabilities: CAPS,
      version: "1.9.0",
    });
    expect(result).toEqual({ agentId: AGENT_ID, name: "edge-1", configPath });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: AGENT_REGISTER_PATH, authorization: "Bearer pst_key" });
    expect(seen[0]!.body).toMatchObject({ Name: "edge-1", Version: "1.9.0", Capabilities: CAPS });
    expect(seen[0]!.body).not.toHaveProperty("Token");
    expect(await loadConfig(configPath)).toMatchObject({ agentId: AGENT_ID, serverPublicKey: SERVER_KEY });
  });

  it("refuses an answer without the server key to pin", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ AgentID: AGENT_ID, Name: "edge-1" }));
    };
    const configPath = join(dir, "a.json");
    await expect(enrol({ server: base, token: "t", configPath, capabilities: CAPS, version: "1.9.0" })).rejects.toThrow(
      /enrolment answer is not valid/,
    );
    await expect(stat(configPath)).rejects.toThrow(/ENOENT/);
  });

  it("rejects a server URL that is not http(s)", async () => {
    await expect(
      enrol({ server: "ftp://x", token: "t", configPath: join(dir, "a.json"), capabilities: CAPS, version: "1.9.0" }),
    ).rejects.toThrow(/invalid server URL/);
  });
});

describe("generateAgentKeys", () => {
  it("makes distinct key pairs each time", () => {
    const a = generateAgentKeys();
    const b = generateAgentKeys();
    expect(a.signingPrivateKey).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(a.boxSecretKey).not.toBe(b.boxSecretKey);
    expect(a.signingPublicKey).not.toBe(b.signingPublicKey);
  });
});

describe("config file (as enrol writes it)", () => {
  it("lists every problem of an invalid config without echoing the keys", async () => {
    const path = join(dir, "bad.json");
    const keys = generateAgentKeys();
    await writeFile(
      path,
      JSON.stringify({
        server: "ftp://x",
        agentId: "",
        signingPrivateKey: "secret-not-a-key",
        boxPublicKey: keys.boxPublicKey,
        boxSecretKey: "AAAA",
        driftCheckSeconds: 0,
        scriptEnabled: true,
      }),
      { mode: 0o600 },
    );
    const error = await loadConfig(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const { message, problems } = error as ConfigError;
    expect(message).toMatch(/^invalid agent config .*bad\.json:\n {2}- /);
    expect(problems).toEqual([
      expect.stringMatching(/^server: /),
      expect.stringMatching(/^agentId: /),
      expect.stringMatching(/^signingPrivateKey: .*Ed25519/),
      expect.stringMatching(/^boxSecretKey: .*32 bytes/),
      expect.stringMatching(/^driftCheckSeconds: /),
      "unknown option(s): scriptEnabled",
    ]);
    expect(message).not.toContain("secret-not-a-key");
  });

  it("refuses a config file other users can read", async () => {
    const path = join(dir, "agent.json");
    const keys = generateAgentKeys();
    await saveConfig(path, {
      server: base,
      agentId: AGENT_ID,
      serverPublicKey: SERVER_KEY,
      signingPrivateKey: keys.signingPrivateKey,
      boxPublicKey: keys.boxPublicKey,
      boxSecretKey: keys.boxSecretKey,
    });
    await expect(loadConfig(path, { root: true })).resolves.toMatchObject({
      useSudo: false,
      logLevel: "info",
      scriptsEnabled: false,
    });
    await expect(loadConfig(path, { root: false })).resolves.toMatchObject({ useSudo: true });
    await chmod(path, 0o644);
    await expect(loadConfig(path)).rejects.toThrow(/accessible by other users \(mode 0644\).*chmod 600/);
  });

  it("refuses, fail closed, a config enrolled before agents pinned their server, saying how to fix it", async () => {
    const path = join(dir, "old.json");
    const keys = generateAgentKeys();
    await saveConfig(path, {
      server: base,
      agentId: AGENT_ID,
      signingPrivateKey: keys.signingPrivateKey,
      boxPublicKey: keys.boxPublicKey,
      boxSecretKey: keys.boxSecretKey,
    });
    const error = await loadConfig(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([NO_SERVER_KEY_PROBLEM]);
    expect(NO_SERVER_KEY_PROBLEM).toMatch(/postern-agent enrol --force/);
    expect(NO_SERVER_KEY_PROBLEM).toMatch(/postern agent server-key/);
  });

  it("refuses a config whose server is http:// to another host", async () => {
    const path = join(dir, "plain.json");
    const keys = generateAgentKeys();
    await saveConfig(path, {
      server: base,
      agentId: AGENT_ID,
      serverPublicKey: SERVER_KEY,
      signingPrivateKey: keys.signingPrivateKey,
      boxPublicKey: keys.boxPublicKey,
      boxSecretKey: keys.boxSecretKey,
    });
    const raw = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    await writeFile(path, JSON.stringify({ ...raw, server: "http://postern.example.com" }), { mode: 0o600 });
    await expect(loadConfig(path)).rejects.toThrow(/server: refusing http:\/\/ to postern\.example\.com/);
  });
});

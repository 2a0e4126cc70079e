import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  sign,
  verify,
} from "node:crypto";
import type { KeyObject, KeyPairKeyObjectResult } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocketServer } from "ws";
import type { WebSocket } from "ws";
import {
  AGENT_CONNECT_PATH,
  AGENT_NONCE_PARAM,
  AGENT_PROTOCOL_VERSION,
  AgentCloseCode,
  AgentToServerSchema,
  challengePayload,
  deriveFrameKey,
  serverFramePayload,
  serverFramePrefix,
  withFrameMac,
  withFrameSignature,
} from "@postern/shared";
import type { AgentCapabilities, AgentToServer, Entry, ServerToAgent, Target } from "@postern/shared";
import type { Backend, EntryOutcome } from "./backends/backend.ts";
import { resolveConfig } from "./config.ts";
import { DEFAULT_INITIAL_DELAY_MS, backoffDelay, nextServer, startConnection } from "./connection.ts";
import type { AgentConnection, ConnectionState } from "./connection.ts";
import { startAgent } from "./daemon.ts";
import type { RunningAgent } from "./daemon.ts";
import { generateAgentKeys } from "./enrol.ts";
import { lazySecretOpener } from "./secret-loader.ts";

/** Whether libsodium was imported in this file's module graph (by anything): the frame key must not need it. */
const sodium = vi.hoisted(() => ({ imported: false }));
vi.mock("libsodium-wrappers", async (importOriginal) => {
  sodium.imported = true;
  return importOriginal();
});

const AGENT_ID = "a0000000-0000-4000-8000-000000000001";
const CAPS: AgentCapabilities = {
  script: { enabled: false },
  ipset: { ipsets: [{ name: "set1", address_family: "inet" }], command_available: true, sudo_enabled: false },
};
const keys = generateAgentKeys();
const publicKey = createPublicKey(createPrivateKey(keys.signingPrivateKey));
/** The server's agent signing key the agent pinned (SPKI DER base64 in the config). */
const serverKey = generateKeyPairSync("ed25519");
const serverPublicKey = serverKey.publicKey.export({ format: "der", type: "spki" }).toString("base64");

/** Waits until `check` is true, polling every 10 ms, failing after `ms`. */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface ServerSocket {
  ws: WebSocket;
  received: AgentToServer[];
  verified: boolean;
  closed?: { code: number; reason: string };
  /** The agent's connection nonce (from the URL) and the number of the next frame. */
  nonce: string;
  frame: number;
  /** The frame key the welcome delivered: later frames are MAC'd with it. */
  macKey?: Buffer;
}

/** Signs `body` (a JSON object's text) as frame `s.frame` of socket `s` with `key`, as the hub does. */
function signFrame(s: ServerSocket, body: string, key: KeyObject = serverKey.privateKey): string {
  const digest = createHash("sha256").update(body, "utf8").digest("hex");
  const payload = Buffer.from(serverFramePayload(s.nonce, s.frame++, digest), "utf8");
  return withFrameSignature(body, sign(null, payload, key).toString("base64"));
}

/**
 * The server's side of the frame key agreement of socket `s`, as the hub does it: an ephemeral X25519
 * key (`ephemeral`, fresh by default) against `boxPublicKey` (default: this agent's), HKDF with the
 * socket's nonce. Returns the share for the welcome and the frame key.
 */
function frameKeyShare(
  s: ServerSocket,
  boxPublicKey = keys.boxPublicKey,
  ephemeral: KeyPairKeyObjectResult = generateKeyPairSync("x25519"),
): { share: string; key: Buffer } {
  const x = Buffer.from(boxPublicKey, "base64").toString("base64url");
  const agentKey = createPublicKey({ key: { kty: "OKP", crv: "X25519", x }, format: "jwk" });
  const share = Buffer.from(ephemeral.publicKey.export({ format: "jwk" }).x!, "base64url").toString("base64");
  const secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: agentKey });
  return { share, key: Buffer.from(deriveFrameKey(hkdfSync, secret, s.nonce, share, boxPublicKey)) };
}

/** MACs `body` as frame `s.frame` of socket `s` with `key` (default the socket's frame key), as the hub does. */
function macFrame(s: ServerSocket, body: string, key: Buffer | undefined = s.macKey): string {
  const mac = createHmac("sha256", key!).update(serverFramePrefix(s.nonce, s.frame++)).update(body).digest("base64");
  return withFrameMac(body, mac);
}

/** The server side of the protocol, played on 127.0.0.1 by the test. */
class FakeServer {
  readonly wss: WebSocketServer;
  readonly sockets: ServerSocket[] = [];
  /** What to do after a verified hello (default: welcome). */
  afterHello: (s: ServerSocket) => void = (s) => this.welcome(s);
  /** Answer a hello asking for `frameAuth` with a frame key (false plays a server older than the MAC). */
  offerFrameKey = true;
  /** The ephemeral X25519 key of every socket (default: a fresh one per socket, as the hub does). */
  fixedEphemeral: KeyPairKeyObjectResult | undefined;
  /** The key frames are signed with (another key than the pinned one plays an impostor). */
  signingKey: KeyObject = serverKey.privateKey;
  constructor(port = 0) {
    this.wss = new WebSocketServer({ host: "127.0.0.1", port, path: AGENT_CONNECT_PATH });
    this.wss.on("connection", (ws, req) => {
      const s = FakeServer.socket(ws, req.url);
      this.sockets.push(s);
      const nonce = randomBytes(16).toString("base64url");
      ws.on("message", (data) => {
        const msg = AgentToServerSchema.parse(JSON.parse(String(data)));
        s.received.push(msg);
        if (msg.type === "hello") {
          s.verified =
            msg.agentId === AGENT_ID &&
            verify(
              null,
              Buffer.from(challengePayload(AGENT_ID, nonce)),
              publicKey,
              Buffer.from(msg.signature, "base64"),
            );
          if (!s.verified) ws.close(AgentCloseCode.authFailed, "bad signature");
          else this.afterHello(s);
        }
      });
      ws.on("close", (code, reason) => {
        s.closed = { code, reason: reason.toString() };
      });
      this.send(s, { type: "challenge", nonce, protocol: AGENT_PROTOCOL_VERSION });
    });
  }
  /** A socket record with the nonce of the request URL. */
  static socket(ws: WebSocket, url: string | undefined): ServerSocket {
    const nonce = new URL(url ?? "/", "http://x").searchParams.get(AGENT_NONCE_PARAM) ?? "";
    return { ws, received: [], verified: false, nonce, frame: 0 };
  }
  async listening(): Promise<string> {
    if (!this.wss.address()) await once(this.wss, "listening");
    return `http://127.0.0.1:${(this.wss.address() as AddressInfo).port}`;
  }
  /**
   * Sends the (signed) welcome; when the hello asked for `frameAuth` and `offerFrameKey`, with a key
   * share for the agent's box key (`given` replaces the share and the key), and MACs later frames.
   */
  welcome(s: ServerSocket, given?: { share: string; key?: Buffer }): void {
    const hello = s.received.find((m) => m.type === "hello");
    if (!this.offerFrameKey || hello?.type !== "hello" || hello.frameAuth !== "hmac-sha256")
      return this.send(s, { type: "welcome", agentId: AGENT_ID, serverTime: Date.now() });
    const { share, key } = given ?? frameKeyShare(s, keys.boxPublicKey, this.fixedEphemeral);
    this.send(s, { type: "welcome", agentId: AGENT_ID, serverTime: Date.now(), frameKeyShare: share });
    s.macKey = key;
  }
  /** Sends a frame MAC'd with the socket's frame key once it has one, signed before. */
  send(s: ServerSocket, msg: ServerToAgent): void {
    const body = JSON.stringify(msg);
    s.ws.send(s.macKey ? macFrame(s, body) : signFrame(s, body, this.signingKey));
  }
  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

/** The target side faked in memory (not the logic under test). */
class MemoryBackend implements Backend {
  readonly type = "ipset";
  readonly ips = new Set<string>();
  async add(_t: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    for (const e of entries) if (e.expiresAt > now) this.ips.add(e.ip);
    return entries.map((e) => ({ ip: e.ip, ok: true }));
  }
  async remove(_t: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    for (const ip of ips) this.ips.delete(ip);
    return ips.map((ip) => ({ ip, ok: true }));
  }
  async list(): Promise<string[]> {
    return [...this.ips];
  }
}

const T1: Target = {
  key: "acl-1",
  backendId: "b1",
  backend: { ipset: {} },
  acl: { ipset: { V4SetName: "set1", V6SetName: "" } },
};
const FAST = { initialDelayMs: 20, maxDelayMs: 100, pingIntervalMs: 0, authTimeoutMs: 2_000 };

let server: FakeServer;
let url: string;
let dir: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  server = new FakeServer();
  url = await server.listening();
  dir = await mkdtemp(join(tmpdir(), "postern-conn-"));
});

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function connect(
  onMessage: Parameters<typeof startConnection>[0]["onMessage"] = async () => undefined,
  states?: ConnectionState[],
  extra: Pick<Parameters<typeof startConnection>[0], "onReplyWritten" | "boxKeys"> = {},
): AgentConnection {
  const abort = new AbortController();
  const conn = startConnection({
    server: url,
    agentId: AGENT_ID,
    serverPublicKey,
    signingKey: keys.signingPrivateKey,
    version: "1.9.0",
    capabilities: async () => CAPS,
    onMessage,
    signal: abort.signal,
    ...(states ? { onStateChange: (s: ConnectionState) => void states.push(s) } : {}),
    ...extra,
    ...FAST,
  });
  cleanups.push(async () => {
    abort.abort();
    await conn.done;
  });
  return conn;
}

describe("startAgent against a server", () => {
  let agent: RunningAgent;

  it("answers the challenge with a signed hello, applies the sync, acks it, and reports capabilities on request", async () => {
    const backend = new MemoryBackend();
    backend.ips.add("192.0.2.200"); // not desired: the sync removes it
    const config = resolveConfig(
      {
        server: url,
        agentId: AGENT_ID,
        serverPublicKey,
        signingPrivateKey: keys.signingPrivateKey,
        boxPublicKey: keys.boxPublicKey,
        boxSecretKey: keys.boxSecretKey,
        stateFile: join(dir, "state.json"),
      },
      join(dir, "agent.json"),
    );
    const expiresAt = Date.now() + 60_000;
    server.afterHello = (s) => {
      server.send(s, { type: "welcome", agentId: AGENT_ID, serverTime: Date.now() });
      server.send(s, { type: "sync", seq: 1, targets: [{ target: T1, entries: [{ ip: "192.0.2.1", expiresAt }] }] });
      server.send(s, { type: "apply", seq: 2, ops: [{ op: "add", target: T1, ip: "192.0.2.2", expiresAt }] });
      server.send(s, { type: "refresh-capabilities", seq: 3 });
    };
    agent = await startAgent({
      config,
      backends: new Map([["ipset", backend]]),
      detect: async () => CAPS,
      connection: FAST,
      version: "1.9.0",
    });
    cleanups.push(() => agent.stop());

    await until(() => (server.sockets[0]?.received.length ?? 0) >= 4);
    const s = server.sockets[0]!;
    expect(s.verified).toBe(true);
    const [hello, ack1, ack2, caps] = s.received;
    expect(hello).toMatchObject({ type: "hello", agentId: AGENT_ID, version: "1.9.0", capabilities: CAPS });
    expect(ack1).toEqual({
      type: "ack",
      seq: 1,
      results: [
        { key: "acl-1", ip: "192.0.2.1", op: "add", ok: true },
        { key: "acl-1", ip: "192.0.2.200", op: "del", ok: true },
      ],
    });
    expect(ack2).toEqual({ type: "ack", seq: 2, results: [{ key: "acl-1", ip: "192.0.2.2", op: "add", ok: true }] });
    expect(caps).toEqual({ type: "capabilities", seq: 3, capabilities: CAPS });
    expect([...backend.ips].sort()).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(agent.connected()).toBe(true);

    await agent.stop();
    expect(agent.connected()).toBe(false);
    await until(() => s.closed !== undefined);
    expect(s.closed?.code).toBe(1000);
  });
});

describe("startConnection", () => {
  it("reconnects after the server drops the socket, with a fresh challenge", async () => {
    const states: ConnectionState[] = [];
    const conn = connect(undefined, states);
    await until(() => conn.connected());
    server.sockets[0]!.ws.terminate();
    await until(() => server.sockets.length === 2 && conn.connected());
    expect(server.sockets[1]!.verified).toBe(true);
    expect(states).toEqual(["authenticating", "connected", "backoff", "connecting", "authenticating", "connected"]);
  });

  it("keeps trying while the server is down and connects when it comes back", async () => {
    const port = Number(new URL(url).port);
    await server.close();
    const conn = connect();
    await until(() => conn.state() === "backoff");
    server = new FakeServer(port);
    await server.listening();
    await until(() => conn.connected());
    expect(server.sockets).toHaveLength(1);
    expect(server.sockets[0]!.verified).toBe(true);
  });

  it.each([
    ["a message failing the schema", JSON.stringify({ type: "sync", seq: "one", targets: [] })],
    ["an unknown message type", JSON.stringify({ type: "reboot" })],
    ["text that is not JSON", "{ nope }"],
  ])("closes the connection with the protocol-error code on %s (signed)", async (_what, payload) => {
    const handled: unknown[] = [];
    const conn = connect(async (m) => void handled.push(m));
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    s.ws.send(signFrame(s, payload));
    await until(() => s.closed !== undefined);
    expect(s.closed?.code).toBe(AgentCloseCode.protocolError);
    expect(handled).toEqual([]);
    // ...and comes back for a full sync
    await until(() => server.sockets.length === 2 && conn.connected());
  });

  it("refuses commands before the handshake", async () => {
    server.afterHello = () => undefined;
    const wss = server.wss;
    wss.removeAllListeners("connection");
    wss.on("connection", (ws, req) => {
      const s = FakeServer.socket(ws, req.url);
      server.sockets.push(s);
      ws.on("close", (code, reason) => (s.closed = { code, reason: reason.toString() }));
      server.send(s, { type: "apply", seq: 1, ops: [] });
    });
    const handled: unknown[] = [];
    connect(async (m) => void handled.push(m));
    await until(() => server.sockets[0]?.closed !== undefined);
    expect(server.sockets[0]!.closed?.code).toBe(AgentCloseCode.protocolError);
    expect(handled).toEqual([]);
  });

  it("sends replies in message order even when handlers finish out of order", async () => {
    const conn = connect(async (m) => {
      if (m.type !== "apply") return undefined;
      await new Promise((r) => setTimeout(r, m.seq === 1 ? 100 : 1));
      return { type: "ack", seq: m.seq, results: [] };
    });
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    server.send(s, { type: "apply", seq: 1, ops: [] });
    server.send(s, { type: "apply", seq: 2, ops: [] });
    await until(() => s.received.length >= 3);
    expect(s.received.slice(1).map((m) => (m.type === "ack" ? m.seq : -1))).toEqual([1, 2]);
  });

  it("tells onReplyWritten the type of each command whose reply was written, after the write", async () => {
    const written: string[] = [];
    const conn = connect(
      async (m) => (m.type === "refresh-capabilities" ? undefined : { type: "ack", seq: m.seq, results: [] }),
      undefined,
      {
        onReplyWritten: (type) => {
          written.push(type);
          throw new Error("a failing hook is only logged");
        },
      },
    );
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    server.send(s, { type: "sync", seq: 1, targets: [] });
    server.send(s, { type: "refresh-capabilities", seq: 2 }); // no reply: nothing written
    server.send(s, { type: "apply", seq: 3, ops: [] });
    await until(() => s.received.length >= 3 && written.length >= 2);
    expect(written).toEqual(["sync", "apply"]);
    expect(conn.connected()).toBe(true);
  });

  it("stops promptly when aborted while the server is unreachable", async () => {
    await server.close();
    const abort = new AbortController();
    const conn = startConnection({
      server: url,
      agentId: AGENT_ID,
      serverPublicKey,
      signingKey: keys.signingPrivateKey,
      version: "1.9.0",
      capabilities: async () => ({}),
      onMessage: async () => undefined,
      signal: abort.signal,
      initialDelayMs: 5_000,
      maxDelayMs: 10_000,
    });
    await until(() => conn.state() === "backoff");
    const t0 = Date.now();
    abort.abort();
    await conn.done;
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(conn.state()).toBe("stopped");
    server = new FakeServer();
  });
});

describe("the agent trusts only its server (issue #8 item 5)", () => {
  it("sends a fresh nonce with every connection", async () => {
    const conn = connect();
    await until(() => conn.connected());
    server.sockets[0]!.ws.terminate();
    await until(() => server.sockets.length === 2 && conn.connected());
    const [a, b] = server.sockets.map((s) => s.nonce);
    expect(a).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    expect(b).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    expect(a).not.toBe(b);
  });

  it("refuses a server that cannot sign with the pinned key: no hello, nothing handled", async () => {
    server.signingKey = generateKeyPairSync("ed25519").privateKey; // an impostor with its own key
    const handled: unknown[] = [];
    connect(async (m) => void handled.push(m));
    await until(() => server.sockets[0]?.closed !== undefined);
    const s = server.sockets[0]!;
    expect(s.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(s.received).toEqual([]);
    expect(handled).toEqual([]);
  });

  it("refuses unsigned frames", async () => {
    const wss = server.wss;
    wss.removeAllListeners("connection");
    wss.on("connection", (ws, req) => {
      const s = FakeServer.socket(ws, req.url);
      server.sockets.push(s);
      ws.on("message", (data) => s.received.push(AgentToServerSchema.parse(JSON.parse(String(data)))));
      ws.on("close", (code, reason) => (s.closed = { code, reason: reason.toString() }));
      ws.send(JSON.stringify({ type: "challenge", nonce: "n".repeat(20), protocol: AGENT_PROTOCOL_VERSION }));
    });
    connect();
    await until(() => server.sockets[0]?.closed !== undefined);
    expect(server.sockets[0]!.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(server.sockets[0]!.received).toEqual([]);
  });

  it("refuses a replayed frame (signed for another position) after the handshake", async () => {
    const handled: unknown[] = [];
    const conn = connect(async (m) => void handled.push(m));
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    const frame = signFrame(s, JSON.stringify({ type: "apply", seq: 1, ops: [] }));
    s.ws.send(frame);
    await until(() => handled.length === 1);
    s.ws.send(frame); // the same bytes again: signed for the previous position
    await until(() => s.closed !== undefined);
    expect(s.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(handled).toHaveLength(1);
  });

  it("closes when the first message is larger than the pre-hello cap", async () => {
    const wss = server.wss;
    wss.removeAllListeners("connection");
    wss.on("connection", (ws, req) => {
      const s = FakeServer.socket(ws, req.url);
      server.sockets.push(s);
      ws.on("message", (data) => s.received.push(AgentToServerSchema.parse(JSON.parse(String(data)))));
      ws.on("close", (code, reason) => (s.closed = { code, reason: reason.toString() }));
      server.send(s, { type: "challenge", nonce: "n".repeat(100_000), protocol: AGENT_PROTOCOL_VERSION });
    });
    connect();
    await until(() => server.sockets[0]?.closed !== undefined);
    expect(server.sockets[0]!.closed?.code).toBe(AgentCloseCode.tooBig);
    expect(server.sockets[0]!.received).toEqual([]);
  });

  it.each(["http://192.0.2.10:8080", "http://postern.example.com", "http://[2001:db8::1]:80"])(
    "refuses %s before dialling anything",
    (server) => {
      expect(() =>
        startConnection({
          server,
          agentId: AGENT_ID,
          serverPublicKey,
          signingKey: keys.signingPrivateKey,
          version: "1.9.0",
          capabilities: async () => ({}),
          onMessage: async () => undefined,
          signal: new AbortController().signal,
        }),
      ).toThrow(/must be https:\/\/ \(http:\/\/ only to this host's loopback address\)/);
    },
  );
});

describe("frames MAC'd with a per-connection key (issue #13)", () => {
  const boxKeys = { publicKey: keys.boxPublicKey, secretKey: keys.boxSecretKey };
  /** Connects with the agent's box keys (it asks for MAC'd frames) and records what it handles. */
  const connectMac = (handled: unknown[]) => connect(async (m) => void handled.push(m), undefined, { boxKeys });
  const apply = (seq: number) => JSON.stringify({ type: "apply", seq, ops: [] });

  it("asks for a frame key, derives the one the signed welcome's share gives and handles MAC'd frames; signed ones still pass", async () => {
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    expect(s.received[0]).toMatchObject({ type: "hello", frameAuth: "hmac-sha256" });
    expect(s.macKey).toHaveLength(32);
    s.ws.send(macFrame(s, apply(1)));
    s.ws.send(signFrame(s, apply(2))); // authentic too: accepted after the key
    s.ws.send(macFrame(s, apply(3)));
    await until(() => handled.length === 3);
    expect(handled).toMatchObject([{ seq: 1 }, { seq: 2 }, { seq: 3 }]);
    expect(conn.connected()).toBe(true);
    expect(s.closed).toBeUndefined();
  });

  it("keeps verifying signatures against a server that sends no frame key", async () => {
    server.offerFrameKey = false;
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    expect(s.received[0]).toMatchObject({ frameAuth: "hmac-sha256" });
    expect(s.macKey).toBeUndefined();
    server.send(s, { type: "apply", seq: 1, ops: [] });
    await until(() => handled.length === 1);
    expect(s.closed).toBeUndefined();
  });

  it("does not ask for a frame key without its box keys", async () => {
    const conn = connect();
    await until(() => conn.connected());
    expect(server.sockets[0]!.received[0]).not.toHaveProperty("frameAuth");
    expect(server.sockets[0]!.macKey).toBeUndefined();
  });

  it("does not ask for a frame key when its box keys are not a usable X25519 pair", async () => {
    const conn = connect(undefined, undefined, {
      boxKeys: { publicKey: keys.boxPublicKey, secretKey: randomBytes(16).toString("base64") },
    });
    await until(() => conn.connected());
    expect(server.sockets[0]!.received[0]).not.toHaveProperty("frameAuth");
  });

  /** Runs `attack` on the first socket once connected; expects a 4403 close and nothing handled after `handledBefore`. */
  const refuses = async (attack: (s: ServerSocket) => void | Promise<void>, handled: unknown[], handledBefore = 0) => {
    const s = server.sockets[0]!;
    await attack(s);
    await until(() => s.closed !== undefined);
    expect(s.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(handled).toHaveLength(handledBefore);
  };

  it("refuses a tampered MAC'd frame, and acts on nothing that follows it on that socket", async () => {
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    await refuses((s) => {
      s.ws.send(macFrame(s, apply(1)).replace('"seq":1', '"seq":7'));
      s.ws.send(macFrame(s, apply(2))); // authentic, but after the refused one
    }, handled);
  });

  it("refuses a MAC'd frame replayed at another position", async () => {
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    const s = server.sockets[0]!;
    const frame = macFrame(s, apply(1));
    s.ws.send(frame);
    await until(() => handled.length === 1);
    await refuses(() => s.ws.send(frame), handled, 1);
  });

  it("refuses a MAC'd frame replayed into another connection, even one with the same key share at the same position", async () => {
    server.fixedEphemeral = generateKeyPairSync("x25519");
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    const first = server.sockets[0]!;
    const captured = macFrame(first, apply(1)); // made for the first connection, never sent there
    first.ws.terminate();
    await until(() => server.sockets.length === 2 && conn.connected());
    const second = server.sockets[1]!;
    expect(second.frame).toBe(first.frame - 1); // the captured frame's position on the new socket
    second.ws.send(captured);
    await until(() => second.closed !== undefined);
    expect(second.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(handled).toEqual([]);
  });

  it("refuses a MAC'd frame before a welcome delivered a key", async () => {
    server.offerFrameKey = false; // welcomed, signed, but no key
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    await refuses((s) => s.ws.send(macFrame(s, apply(1), randomBytes(32))), handled);
  });

  it("refuses a MAC'd frame in place of the welcome", async () => {
    server.afterHello = (s) => s.ws.send(macFrame(s, apply(1), randomBytes(32)));
    const handled: unknown[] = [];
    connectMac(handled);
    await until(() => server.sockets[0]?.closed !== undefined);
    expect(server.sockets[0]!.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(handled).toEqual([]);
  });

  it("refuses a frame with neither a MAC nor a signature after the key", async () => {
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    await refuses((s) => s.ws.send(apply(1)), handled);
  });

  /** A share that is no X25519 public key of 32 bytes, or that X25519 refuses (node throws on a low-order point). */
  it.each([
    ["of 16 bytes", randomBytes(16).toString("base64")],
    ["of 33 bytes", randomBytes(33).toString("base64")],
    ["not base64", "!".repeat(43) + "="],
    ["a low-order point (all zeros)", Buffer.alloc(32).toString("base64")],
  ])("refuses at the welcome a key share %s: never connected, nothing handled", async (_what, share) => {
    server.afterHello = (s) => {
      server.welcome(s, { share });
      server.send(s, { type: "apply", seq: 1, ops: [] });
    };
    const states: ConnectionState[] = [];
    const handled: unknown[] = [];
    connect(async (m) => void handled.push(m), states, { boxKeys });
    await until(() => server.sockets[0]?.closed !== undefined);
    expect(server.sockets[0]!.closed?.code).toBe(AgentCloseCode.serverUnverified);
    expect(states).not.toContain("connected");
    expect(handled).toEqual([]);
  });

  it("refuses the first MAC'd frame after a key share made for another agent's box key (the keys differ)", async () => {
    const other = generateAgentKeys();
    server.afterHello = (s) => server.welcome(s, frameKeyShare(s, other.boxPublicKey));
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected()); // the welcome itself is signed and the share well formed
    await refuses((s) => server.send(s, { type: "apply", seq: 1, ops: [] }), handled);
  });

  it("refuses a second frame key share on the same socket", async () => {
    const handled: unknown[] = [];
    const conn = connectMac(handled);
    await until(() => conn.connected());
    await refuses((s) => {
      const { share } = frameKeyShare(s);
      server.send(s, { type: "welcome", agentId: AGENT_ID, serverTime: Date.now(), frameKeyShare: share });
    }, handled);
  });

  it("a real agent (daemon) derives the frame key and handles MAC'd frames without loading libsodium", async () => {
    const backend = new MemoryBackend();
    const expiresAt = Date.now() + 60_000;
    server.afterHello = (s) => {
      server.welcome(s);
      server.send(s, { type: "sync", seq: 1, targets: [{ target: T1, entries: [{ ip: "192.0.2.9", expiresAt }] }] });
    };
    const agent = await startAgent({
      config: resolveConfig(
        {
          server: url,
          agentId: AGENT_ID,
          serverPublicKey,
          signingPrivateKey: keys.signingPrivateKey,
          boxPublicKey: keys.boxPublicKey,
          boxSecretKey: keys.boxSecretKey,
          stateFile: join(dir, "state.json"),
        },
        join(dir, "agent.json"),
      ),
      backends: new Map([["ipset", backend]]),
      detect: async () => CAPS,
      connection: FAST,
      version: "1.9.0",
    });
    cleanups.push(() => agent.stop());
    await until(() => (server.sockets[0]?.received.length ?? 0) >= 2);
    const s = server.sockets[0]!;
    expect(s.received[0]).toMatchObject({ type: "hello", frameAuth: "hmac-sha256" });
    expect(s.macKey).toHaveLength(32); // the sync was MAC'd
    expect(s.received[1]).toMatchObject({ type: "ack", seq: 1 });
    expect([...backend.ips]).toEqual(["192.0.2.9"]);
    expect(sodium.imported).toBe(false);
    // The probe works: the lazy secret opener (a target with sealed secrets) does load it.
    await lazySecretOpener(keys.boxPublicKey, keys.boxSecretKey).loadSecrets();
    expect(sodium.imported).toBe(true);
  });
});

describe("backoffDelay", () => {
  it("doubles from the initial delay up to the maximum, jittered between half and all of it", () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((a) => backoffDelay(a, 500, 10_000, () => 1))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(backoffDelay(0, 500, 10_000, () => 0)).toBe(250);
    expect(backoffDelay(100, 500, 10_000, () => 0)).toBe(5_000);
  });
});

describe("several server URLs: failover (issue #12 item 4)", () => {
  /** A config of every server URL in `servers` (the first as `server`), state next to `dir`. */
  const configFor = (servers: string[]) =>
    resolveConfig(
      {
        server: servers[0],
        servers: servers.slice(1),
        agentId: AGENT_ID,
        serverPublicKey,
        signingPrivateKey: keys.signingPrivateKey,
        boxPublicKey: keys.boxPublicKey,
        boxSecretKey: keys.boxSecretKey,
        stateFile: join(dir, "state.json"),
      },
      join(dir, "agent.json"),
    );
  /** A URL nothing listens on (a server started and closed again). */
  const deadUrl = async (): Promise<string> => {
    const gone = new FakeServer();
    const u = await gone.listening();
    await gone.close();
    return u;
  };

  it("skips a server that is down and connects to the next URL", async () => {
    const dead = await deadUrl();
    const abort = new AbortController();
    const conn = startConnection({
      server: [dead, url],
      agentId: AGENT_ID,
      serverPublicKey,
      signingKey: keys.signingPrivateKey,
      version: "1.9.0",
      capabilities: async () => CAPS,
      onMessage: async () => undefined,
      signal: abort.signal,
      pingIntervalMs: 0,
    });
    cleanups.push(async () => {
      abort.abort();
      await conn.done;
    });
    await until(() => conn.connected(), 3_000);
    expect(server.sockets).toHaveLength(1);
    expect(server.sockets[0]!.verified).toBe(true);
  });

  it("is on the other server within a second of its server going away, and reconciles the full state that one sends", async () => {
    const other = new FakeServer();
    const otherUrl = await other.listening();
    cleanups.push(() => other.close());
    const expiresAt = Date.now() + 60_000;
    const syncOf = (ips: string[]) => (s: ServerSocket, via: FakeServer) => {
      via.send(s, { type: "welcome", agentId: AGENT_ID, serverTime: Date.now() });
      via.send(s, { type: "sync", seq: 1, targets: [{ target: T1, entries: ips.map((ip) => ({ ip, expiresAt })) }] });
    };
    // The first server knows one grant; by the time the agent reaches the second, it was revoked and another made.
    server.afterHello = (s) => syncOf(["192.0.2.1"])(s, server);
    other.afterHello = (s) => syncOf(["192.0.2.2", "192.0.2.3"])(s, other);
    const backend = new MemoryBackend();
    const agent = await startAgent({
      config: configFor([url, otherUrl]),
      backends: new Map([["ipset", backend]]),
      detect: async () => CAPS,
      // The default reconnect delays: what is measured here.
      connection: { pingIntervalMs: 0 },
      version: "1.9.0",
    });
    cleanups.push(() => agent.stop());
    await until(() => backend.ips.has("192.0.2.1"));
    expect(other.sockets).toHaveLength(0);

    const killed = Date.now();
    await server.close(); // the replica dies: its sockets are cut, nothing listens there any more
    await until(() => (other.sockets[0]?.received.length ?? 0) >= 2, 5_000);
    const failedOver = Date.now() - killed;
    expect(failedOver).toBeLessThan(1_000);
    expect(other.sockets[0]!.verified).toBe(true);
    expect(other.sockets[0]!.received[1]).toMatchObject({ type: "ack", seq: 1 });
    expect([...backend.ips].sort()).toEqual(["192.0.2.2", "192.0.2.3"]);
    expect(agent.connected()).toBe(true);
    server = new FakeServer(); // for afterEach
  });

  it("goes round the list: back to the first URL when the second goes away too and the first returns", async () => {
    const port = Number(new URL(url).port);
    const other = new FakeServer();
    const otherUrl = await other.listening();
    await server.close();
    const abort = new AbortController();
    const conn = startConnection({
      server: [url, otherUrl],
      agentId: AGENT_ID,
      serverPublicKey,
      signingKey: keys.signingPrivateKey,
      version: "1.9.0",
      capabilities: async () => CAPS,
      onMessage: async () => undefined,
      signal: abort.signal,
      ...FAST,
    });
    cleanups.push(async () => {
      abort.abort();
      await conn.done;
    });
    await until(() => conn.connected());
    expect(other.sockets).toHaveLength(1);
    await other.close();
    await until(() => conn.state() === "backoff");
    server = new FakeServer(port);
    await server.listening();
    await until(() => conn.connected());
    expect(server.sockets).toHaveLength(1);
    expect(server.sockets[0]!.verified).toBe(true);
  });

  it("refuses every URL of the list that is not https:// (http:// only to loopback) before dialling any", () => {
    expect(() =>
      startConnection({
        server: [url, "http://postern.example"],
        agentId: AGENT_ID,
        serverPublicKey,
        signingKey: keys.signingPrivateKey,
        version: "1.9.0",
        capabilities: async () => ({}),
        onMessage: async () => undefined,
        signal: new AbortController().signal,
      }),
    ).toThrow(/refusing http:\/\/ to postern\.example/);
    expect(server.sockets).toHaveLength(0);
    expect(() =>
      startConnection({
        server: [],
        agentId: AGENT_ID,
        serverPublicKey,
        signingKey: keys.signingPrivateKey,
        version: "1.9.0",
        capabilities: async () => ({}),
        onMessage: async () => undefined,
        signal: new AbortController().signal,
      }),
    ).toThrow(/no server URL/);
  });
});

describe("nextServer", () => {
  it("rotates through the URLs, doubling the delay once per full round", () => {
    const steps = [0, 1, 2, 3, 4, 5].map((attempt) => nextServer(attempt, attempt % 3, 3));
    expect(steps).toEqual([
      { index: 1, step: 0 },
      { index: 2, step: 0 },
      { index: 0, step: 0 },
      { index: 1, step: 1 },
      { index: 2, step: 1 },
      { index: 0, step: 1 },
    ]);
    // One URL: the same one, a longer delay each time (the single-server behaviour).
    expect([0, 1, 2].map((a) => nextServer(a, 0, 1))).toEqual([
      { index: 0, step: 0 },
      { index: 0, step: 1 },
      { index: 0, step: 2 },
    ]);
  });

  it("retries a dropped connection first after at most 200 ms by default", () => {
    expect(backoffDelay(0, DEFAULT_INITIAL_DELAY_MS, 10_000, () => 0.999999)).toBeLessThanOrEqual(200);
    expect(backoffDelay(0, DEFAULT_INITIAL_DELAY_MS, 10_000, () => 0)).toBe(100);
  });
});

/**
 * The agent hub against agents that lie or servers that are not theirs (issue #8, items 4 and 5):
 * a real server in-process, agents enrolled through the real endpoint and played by raw WebSocket
 * clients speaking the protocol (test/support/raw-agent.ts) or run as the real `postern-agent run`
 * process.
 *
 * - An agent speaks only for itself: an ack result counts only for a (target, address, op) the hub
 *   sent that agent in the acknowledged message, on a target of its own backends.
 * - The agent trusts only its server: every server frame is signed with the data directory's agent
 *   signing key (the one enrolment answered), bound to the agent's nonce; a server without that key
 *   cannot drive the agent; a client may send only a few bytes before its hello.
 * - Frames MAC'd with a per-connection key (issue #13): an agent that asks gets a key share in the
 *   signed welcome (X25519 with its enrolled box key, HKDF) and MAC'd frames after it; an agent that
 *   does not ask gets signed frames.
 */
import { GrantErrorKey } from "@postern/shared";
import { spawn } from "node:child_process";
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { readFileSync, statSync, unlinkSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_PRE_HELLO_MAX_BYTES, AgentCloseCode } from "../../shared/src/index.ts";
import { createLogger, startServer } from "../../server/src/index.ts";
import type { RunningServer } from "../../server/src/index.ts";
import { Writable } from "node:stream";
import { pino } from "pino";
import { loadConfig } from "../../agent/src/config.ts";
import { startAgent } from "../../agent/src/daemon.ts";
import { FrameVerifier, frameKeyDeriver } from "../../agent/src/frame-auth.ts";
import { generateAgentKeys } from "../../agent/src/enrol.ts";
import type { Backend, EntryOutcome } from "../../agent/src/backends/backend.ts";
import type { Entry, Target } from "../../shared/src/index.ts";
import {
  ApiClient,
  aclStatus,
  createAndEnrolAgent,
  createUser,
  spawnAgent,
  startStack,
  waitFor,
} from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";
import { RawAgent } from "../support/raw-agent.ts";
import type { RawAgentIdentity } from "../support/raw-agent.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const HAPROXY_CAPS = { haproxy: { socket_location: "/run/haproxy/admin.sock" } };
const ALICE_IP = "127.0.0.21";
const BOB_IP = "127.0.0.22";

/** The identity a raw agent needs, read from the config enrolment wrote. */
async function identityOf(configPath: string): Promise<RawAgentIdentity> {
  const c = await loadConfig(configPath);
  return { agentId: c.agentId, signingPrivateKey: c.signingPrivateKey, serverPublicKey: c.serverPublicKey };
}

/** Creates a haproxy backend on the agent and an ACL on it; returns the ACL id. */
async function aclOn(stack: Stack, agentId: string, name: string): Promise<string> {
  const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: `${name} proxy`,
    AgentID: agentId,
    Config: { haproxy: { Protocol: "unix", Address: "/run/haproxy/admin.sock" } },
  });
  return stack.admin.ok<string>("POST", "/api/admin/acls", {
    Description: name,
    BackendID: backend.ID,
    ClickToGrant: true,
    MaximumGrantDuration: 3_600,
    Config: { haproxy: { ID: 1 } },
  });
}

/** Signs `userName` in from `ip`. */
async function signIn(stack: Stack, userName: string, ip: string): Promise<ApiClient> {
  const client = new ApiClient(stack.server.url, { localAddress: ip });
  await client.ok("POST", "/api/login", { UserName: userName, Password: `${userName}-password`, KioskMode: false });
  return client;
}

/** The seq of the agent's latest `apply`, once it has received `count` of them. */
async function nthApply(agent: RawAgent, count: number) {
  expect(await waitFor(() => agent.ofType("apply").length >= count)).toBe(true);
  return agent.ofType("apply")[count - 1]!;
}

/**
 * Waits until everything the agent sent before has been handled: sends a `capabilities` message
 * with a marker and waits for the server to have stored it (messages of one socket are handled in order).
 */
async function settled(stack: Stack, agent: RawAgent, agentId: string, marker: string): Promise<void> {
  agent.send({ type: "capabilities", seq: 0, capabilities: { "os-release": { NAME: marker, VERSION: "1" } } });
  const stored = async () =>
    (await stack.admin.ok<{ Capabilities: { "os-release"?: { NAME: string } } }>("GET", `/api/admin/agents/${agentId}`))
      .Capabilities["os-release"]?.NAME === marker;
  expect(await waitFor(stored)).toBe(true);
}

describe("an agent speaks only for itself (issue #8 item 4)", () => {
  let stack: Stack;
  let a: RawAgent;
  let b: RawAgent;
  let aId = "";
  let bId = "";
  let aclB = "";
  let alice: ApiClient;
  let bob: ApiClient;

  beforeAll(async () => {
    stack = await startStack();
    const enrolledA = await createAndEnrolAgent(stack, "agent-a", HAPROXY_CAPS);
    const enrolledB = await createAndEnrolAgent(stack, "agent-b", HAPROXY_CAPS);
    aId = enrolledA.agentId;
    bId = enrolledB.agentId;
    a = await RawAgent.connect(stack.server.url, await identityOf(enrolledA.configPath), {
      capabilities: HAPROXY_CAPS,
    });
    b = await RawAgent.connect(stack.server.url, await identityOf(enrolledB.configPath), {
      capabilities: HAPROXY_CAPS,
    });
    expect(
      await waitFor(() => stack.server.services.hub.isConnected(aId) && stack.server.services.hub.isConnected(bId)),
    ).toBe(true);
    await aclOn(stack, aId, "A's app");
    aclB = await aclOn(stack, bId, "B's app");
    await createUser(stack, "alice", "alice-password", [aclB]);
    await createUser(stack, "bob", "bob-password", [aclB]);
    alice = await signIn(stack, "alice", ALICE_IP);
    bob = await signIn(stack, "bob", BOB_IP);
    // Alice's grant on B's ACL, acknowledged by B: Granted.
    await alice.ok("POST", "/api/grant", { ACLID: aclB, IPs: [] });
    const apply = await nthApply(b, 1);
    expect(apply.ops).toEqual([expect.objectContaining({ op: "add", ip: ALICE_IP })]);
    b.send({ type: "ack", seq: apply.seq, results: [{ key: aclB, ip: ALICE_IP, op: "add", ok: true }] });
    expect(await waitFor(async () => (await aclStatus(alice, aclB)).Status === 0)).toBe(true);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await stack?.close();
  });

  it("drops agent A's failure ack for agent B's ACL: B's user keeps the grant and B is sent no del", async () => {
    const sync = a.ofType("sync")[0]!; // A's own sync, still unacknowledged
    const forged = [{ key: aclB, ip: ALICE_IP, op: "add" as const, ok: false, error: "forged by agent A" }];
    a.send({ type: "ack", seq: sync.seq, results: forged });
    a.send({ type: "ack", seq: 99, results: forged }); // a message never sent
    await settled(stack, a, aId, "after-forgery");
    expect(await aclStatus(alice, aclB)).toMatchObject({ Status: 0, Error: "" });
    expect(b.ofType("apply")).toHaveLength(1); // no del for Alice's address
    expect(a.verified && b.verified).toBe(true);
  });

  it("drops results of an ack for entries that message did not carry, and keeps those it did", async () => {
    // Bob's grant, acknowledged: Granted.
    await bob.ok("POST", "/api/grant", { ACLID: aclB, IPs: [] });
    const bobsApply = await nthApply(b, 2);
    b.send({ type: "ack", seq: bobsApply.seq, results: [{ key: aclB, ip: BOB_IP, op: "add", ok: true }] });
    expect(await waitFor(async () => (await aclStatus(bob, aclB)).Status === 0)).toBe(true);
    // Alice revokes and grants again; B answers the new add but also fails Bob's address and op it was not sent.
    const entry = await aclStatus(alice, aclB);
    await alice.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
    const del = await nthApply(b, 3);
    b.send({ type: "ack", seq: del.seq, results: [{ key: aclB, ip: ALICE_IP, op: "del", ok: true }] });
    // Granting again while the revoke still waits for its acknowledgement (8 Revoking) does nothing: wait for 9.
    expect(await waitFor(async () => (await aclStatus(alice, aclB)).Status === 9)).toBe(true);
    await alice.ok("POST", "/api/grant", { ACLID: aclB, IPs: [] });
    const add = await nthApply(b, 4);
    expect(add.ops).toEqual([expect.objectContaining({ op: "add", ip: ALICE_IP })]);
    b.send({
      type: "ack",
      seq: add.seq,
      results: [
        { key: aclB, ip: ALICE_IP, op: "add", ok: true },
        { key: aclB, ip: BOB_IP, op: "add", ok: false, error: "not in this message" },
        { key: aclB, ip: ALICE_IP, op: "del", ok: false, error: "not in this message" },
      ],
    });
    expect(await waitFor(async () => (await aclStatus(alice, aclB)).Status === 0)).toBe(true);
    await settled(stack, b, bId, "after-extra-results");
    expect(await aclStatus(bob, aclB)).toMatchObject({ Status: 0, Error: "" });
    expect(await aclStatus(alice, aclB)).toMatchObject({ Status: 0, Error: "" });
  });

  it("still takes an agent's own failure for an entry it was sent", async () => {
    const entry = await aclStatus(bob, aclB);
    await bob.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
    const del = await nthApply(b, 5);
    b.send({ type: "ack", seq: del.seq, results: [{ key: aclB, ip: BOB_IP, op: "del", ok: true }] });
    expect(await waitFor(async () => (await aclStatus(bob, aclB)).Status === 9)).toBe(true);
    await bob.ok("POST", "/api/grant", { ACLID: aclB, IPs: [] });
    const add = await nthApply(b, 6);
    b.send({
      type: "ack",
      seq: add.seq,
      results: [{ key: aclB, ip: BOB_IP, op: "add", ok: false, error: "set full" }],
    });
    expect(await waitFor(async () => (await aclStatus(bob, aclB)).Status === 1)).toBe(true);
    // The user sees the plain sentence key; the agent's own text stays with the admins (#8 item 16).
    expect((await aclStatus(bob, aclB)).Error).toBe(GrantErrorKey.grantFailed);
  });
});

describe("the agent trusts only its server (issue #8 item 5)", () => {
  let stack: Stack;
  let agentId = "";
  let configPath = "";

  beforeAll(async () => {
    stack = await startStack();
    ({ agentId, configPath } = await createAndEnrolAgent(stack, "edge", {}));
  });

  afterAll(async () => {
    await stack?.close();
  });

  it("answers the data directory's agent signing key (mode 0600) at enrolment, and the agent pins it", async () => {
    const file = join(stack.dir, "data", "agent-signing.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = await loadConfig(configPath);
    const onDisk = createPublicKey(createPrivateKey(readFileSync(file, "utf8")))
      .export({ format: "der", type: "spki" })
      .toString("base64");
    expect(config.serverPublicKey).toBe(onDisk);
  });

  it("signs every frame for the agent's nonce and position", async () => {
    const identity = await identityOf(configPath);
    const raw = await RawAgent.connect(stack.server.url, identity);
    expect(await waitFor(() => raw.ofType("sync").length === 1)).toBe(true);
    expect(raw.messages.map((m) => m.type)).toEqual(["challenge", "welcome", "sync"]);
    expect(raw.verified).toBe(true);
    await raw.close();
    // The same frames do not verify for a key other than the pinned one.
    const other = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const fooled = await RawAgent.connect(stack.server.url, { ...identity, serverPublicKey: other });
    expect(await waitFor(() => fooled.messages.length >= 1)).toBe(true);
    expect(fooled.verified).toBe(false);
    await fooled.close();
  });

  it("refuses a hello without a connection nonce", async () => {
    const raw = await RawAgent.connect(stack.server.url, await identityOf(configPath), { nonce: null });
    expect(await waitFor(() => raw.closed !== undefined)).toBe(true);
    expect(raw.closed?.code).toBe(AgentCloseCode.protocolError);
    expect(raw.ofType("welcome")).toEqual([]);
  });

  it("cuts off a client that sends more than the pre-hello cap, even as a validly signed hello", async () => {
    const identity = await identityOf(configPath);
    const huge = { "os-release": { NAME: "x", VERSION: "y".repeat(AGENT_PRE_HELLO_MAX_BYTES + 1_000) } };
    const raw = await RawAgent.connect(stack.server.url, identity, { capabilities: huge });
    expect(await waitFor(() => raw.closed !== undefined)).toBe(true);
    expect(raw.ofType("welcome")).toEqual([]);
    const stored = await stack.admin.ok<{ Capabilities: Record<string, unknown> }>(
      "GET",
      `/api/admin/agents/${agentId}`,
    );
    expect(JSON.stringify(stored.Capabilities)).not.toContain("yyyy");
    // A normal hello still gets in.
    const ok = await RawAgent.connect(stack.server.url, identity);
    expect(await waitFor(() => ok.ofType("welcome").length === 1)).toBe(true);
    await ok.close();
  });
});

describe("a real agent against a server without its key (issue #8 item 5)", () => {
  it("reconnects to its server after a restart, and refuses a server on the same address and database but another key", async () => {
    const stack = await startStack();
    let server: RunningServer = stack.server;
    const { agentId, configPath } = await createAndEnrolAgent(stack, "edge", {});
    const dataDir = join(stack.dir, "data");
    const listen = `127.0.0.1:${server.port}`;
    const restart = async () => {
      await server.close();
      server = await startServer({
        dataDir,
        ...(stack.databaseUrl ? { databaseUrl: stack.databaseUrl } : {}),
        listen,
        clock: stack.clock,
        migrate: true,
        logger: createLogger("silent"),
      });
    };
    const agent = spawnAgent(configPath);
    try {
      expect(await waitFor(() => server.services.hub.isConnected(agentId), 10_000)).toBe(true);
      await restart(); // same key: the pin holds
      expect(await waitFor(() => server.services.hub.isConnected(agentId), 15_000)).toBe(true);
      unlinkSync(join(dataDir, "agent-signing.key"));
      await restart(); // same database and address, a new key: an impostor
      // The agent dials (its nonce reaches the hub) but never says hello.
      expect(await waitFor(() => server.services.hub.isConnected(agentId), 12_000)).toBe(false);
      expect((await new ApiClient(server.url).call("GET", "/api/system_status")).status).toBe(200);
    } finally {
      await agent.kill();
      await server.close().catch(() => undefined);
      await stack.close().catch(() => undefined);
    }
  });
});

describe("the postern-agent command line (issue #8 items 5 and 6)", () => {
  /** Runs `postern-agent ARGS`; resolves with the exit code and stderr (bounded 20 s). */
  const runAgentCli = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(repoRoot, "agent/src/main.ts"), ...args], {
        stdio: ["ignore", "ignore", "pipe"],
        env: { ...process.env, ...env },
      });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });

  it("enrol --api-key --name creates and enrols an agent that then connects (issue #8 item 6)", async () => {
    const stack = await startStack();
    const agentProcess: { kill?: () => Promise<void> } = {};
    try {
      const key = await stack.admin.ok<{ PlaintextKey: string }>("POST", "/api/admin/api-keys", {
        Name: "provisioning",
        Scopes: ["agent.register"],
        ExpiredAfter: null,
      });
      const configPath = join(stack.dir, "auto.json");
      const r = await runAgentCli(["enrol", "--server", stack.server.url, "--name", "auto-1", "--config", configPath], {
        POSTERN_AGENT_API_KEY: key.PlaintextKey,
      });
      expect(r.code).toBe(0);
      const agents = await stack.admin.ok<{ ID: string; Name: string }[]>("GET", "/api/admin/agents");
      const created = agents.find((a) => a.Name === "auto-1");
      expect(created).toBeDefined();
      expect((await loadConfig(configPath)).agentId).toBe(created!.ID);
      const agent = spawnAgent(configPath);
      agentProcess.kill = () => agent.kill();
      expect(await waitFor(() => stack.server.services.hub.isConnected(created!.ID), 10_000)).toBe(true);
    } finally {
      await agentProcess.kill?.();
      await stack.close();
    }
  });

  it("enrol refuses http:// to a non-loopback server before contacting it", async () => {
    const r = await runAgentCli([
      "enrol",
      "--server",
      "http://192.0.2.10:8080",
      "--token",
      "t",
      "--config",
      "/nonexistent/agent.json",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing http:\/\/ to 192\.0\.2\.10: the server must be https:\/\//);
  });

  it("run refuses a config without a pinned server key (exit 78), saying how to re-enrol", async () => {
    const stack = await startStack();
    try {
      const { configPath } = await createAndEnrolAgent(stack, "old", {});
      const raw = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
      delete raw["serverPublicKey"];
      await writeFile(configPath, JSON.stringify(raw), { mode: 0o600 });
      const r = await runAgentCli(["run", "--config", configPath]);
      expect(r.code).toBe(78);
      expect(r.stderr).toMatch(/serverPublicKey is missing.*postern-agent enrol --force/s);
    } finally {
      await stack.close();
    }
  });
});

describe("deleting a connected agent on a single server", () => {
  let stack: Stack;
  let agent: RawAgent | undefined;
  let again: RawAgent | undefined;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await agent?.close();
    await again?.close();
    await stack?.close();
  });

  it("closes its connection at once (4401) and refuses it when it reconnects", async () => {
    const { agentId, configPath } = await createAndEnrolAgent(stack, "doomed", HAPROXY_CAPS);
    const identity = await identityOf(configPath);
    agent = await RawAgent.connect(stack.server.url, identity, { capabilities: HAPROXY_CAPS });
    expect(await waitFor(() => stack.server.services.hub.isConnected(agentId))).toBe(true);
    await stack.admin.ok("DELETE", `/api/admin/agents/${agentId}`);
    expect(await waitFor(() => agent!.closed !== undefined, 2_000, 20)).toBe(true);
    expect(agent.closed?.code).toBe(AgentCloseCode.authFailed);
    expect(stack.server.services.hub.isConnected(agentId)).toBe(false);
    again = await RawAgent.connect(stack.server.url, identity, { capabilities: HAPROXY_CAPS });
    expect(await waitFor(() => again!.closed !== undefined, 5_000, 20)).toBe(true);
    expect(again.closed?.code).toBe(AgentCloseCode.authFailed);
    expect(stack.server.services.hub.isConnected(agentId)).toBe(false);
  });
});

/** An enforcement target held in memory (the process boundary faked: not the logic under test). */
class MemoryBackend implements Backend {
  readonly type = "haproxy";
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

describe("frames MAC'd with a per-connection key (issue #13)", () => {
  const CAROL_IP = "127.0.0.23";
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });

  afterAll(async () => {
    await stack?.close();
  });

  it("a real agent negotiates the frame key (its log says hmac-sha256) and applies a grant's apply", async () => {
    const { agentId, configPath } = await createAndEnrolAgent(stack, "mac-edge", HAPROXY_CAPS, {
      stateFile: join(stack.dir, "mac-edge.state.json"),
    });
    const lines: string[] = [];
    const logger = pino(
      { level: "info" },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const backend = new MemoryBackend();
    const agent = await startAgent({
      config: await loadConfig(configPath),
      backends: new Map([["haproxy", backend]]),
      detect: async () => HAPROXY_CAPS,
      logger,
      connection: { pingIntervalMs: 0 },
      version: "1.9.0",
    });
    try {
      expect(await waitFor(() => stack.server.services.hub.isConnected(agentId) && agent.connected())).toBe(true);
      const connected = lines.map((l) => JSON.parse(l) as { msg: string; frameAuth?: string });
      expect(connected.filter((l) => l.msg === "connected to server").map((l) => l.frameAuth)).toEqual(["hmac-sha256"]);
      const acl = await aclOn(stack, agentId, "Carol's app");
      await createUser(stack, "carol", "carol-password", [acl]);
      const carol = await signIn(stack, "carol", CAROL_IP);
      await carol.ok("POST", "/api/grant", { ACLID: acl, IPs: [] });
      expect(await waitFor(async () => (await aclStatus(carol, acl)).Status === 0)).toBe(true);
      expect([...backend.ips]).toEqual([CAROL_IP]);
    } finally {
      await agent.stop();
    }
  });

  it("signs every frame for an agent that does not ask, and MACs those after the welcome for one that does", async () => {
    const { configPath } = await createAndEnrolAgent(stack, "raw-mac", {});
    const config = await loadConfig(configPath);
    const identity = await identityOf(configPath);

    const old = await RawAgent.connect(stack.server.url, identity);
    expect(await waitFor(() => old.ofType("sync").length === 1)).toBe(true);
    expect(old.verified).toBe(true);
    expect(old.ofType("welcome")[0]).not.toHaveProperty("frameKeyShare");
    expect(old.frames.every((f) => /,"sig":"[A-Za-z0-9+/=]+"}$/.test(f))).toBe(true);
    await old.close();

    const raw = await RawAgent.connect(stack.server.url, identity, { frameAuth: true });
    expect(await waitFor(() => raw.ofType("sync").length === 1)).toBe(true);
    const [challenge, welcome, sync] = raw.frames;
    const share = raw.ofType("welcome")[0]!.frameKeyShare!;
    expect(Buffer.from(share, "base64")).toHaveLength(32);
    // The agent's own verifier: the challenge and the welcome signed, the sync MAC'd with the key the
    // share gives with this agent's box key (and not with another agent's).
    const serverKey = createPublicKey({
      key: Buffer.from(identity.serverPublicKey, "base64"),
      format: "der",
      type: "spki",
    });
    const verifier = new FrameVerifier(raw.nonce, serverKey);
    expect(verifier.verify(challenge!)).not.toBeNull();
    expect(verifier.verify(welcome!)).not.toBeNull();
    const other = generateAgentKeys();
    const impostor = new FrameVerifier(raw.nonce, serverKey);
    impostor.verify(challenge!);
    impostor.verify(welcome!);
    impostor.setKey(frameKeyDeriver(other.boxPublicKey, other.boxSecretKey)(raw.nonce, share));
    expect(impostor.verify(sync!)).toBeNull();
    verifier.setKey(frameKeyDeriver(config.boxPublicKey, config.boxSecretKey)(raw.nonce, share));
    expect(sync).toMatch(/,"mac":"[A-Za-z0-9+/=]+"}$/);
    expect(sync).not.toContain('"sig"');
    expect(verifier.verify(sync!)).not.toBeNull();
    await raw.close();
  });
});

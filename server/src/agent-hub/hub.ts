/**
 * The agent hub (docs/reference.md design "Agent protocol", server side; docs/agent-protocol.md): accepts agents'
 * WebSocket connections on AGENT_CONNECT_PATH, authenticates each with a challenge signed by the
 * agent's Ed25519 key, proves itself to the agent by signing every frame it sends with the server's
 * agent signing key (bound to the agent's connection nonce and the frame's position) — or, for an
 * agent whose hello asks for `frameAuth`, by signing the welcome, which carries the public half of a
 * fresh X25519 key from which, with the agent's enrolled box key, both sides derive a per-socket HMAC
 * key (deriveFrameKey), and MAC'ing every later frame with it — sends the full
 * desired state on every (re)connect, pushes ordered sequence-numbered `apply` messages, and feeds
 * acknowledgements back to the grant engine. An agent speaks only for itself: an ack result is
 * accepted only for a (target, address, op) this hub sent that agent in the acknowledged message, on
 * a target of that agent's backends; anything else is dropped and logged. Before `hello`, a client
 * may send at most AGENT_PRE_HELLO_MAX_BYTES. One live connection per agent: a new one replaces the
 * old. Pings every 15 s; an agent that misses a pong is dropped at the next ping (within 30 s).
 */
import {
  createHash,
  createHmac,
  createPublicKey,
  createSecretKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  verify as verifySignature,
  randomBytes,
  sign,
} from "node:crypto";
import type { KeyObject } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import {
  AGENT_NONCE_PARAM,
  AGENT_PRE_HELLO_MAX_BYTES,
  AGENT_PROTOCOL_VERSION,
  AgentCloseCode,
  AgentNonceSchema,
  AgentToServerSchema,
  challengePayload,
  deriveFrameKey,
  FRAME_AUTH_HMAC,
  normaliseIp,
  serverFramePayload,
  serverFramePrefix,
  withFrameMac,
  withFrameSignature,
} from "@postern/shared";
import type { EntryResult, Op, ServerToAgent, TargetState, AgentCapabilities } from "@postern/shared";
import type { Db } from "../db/index.ts";
import { getAgent, updateAgent } from "../repositories/agents.ts";
import { agentTargetSources } from "../repositories/grants.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";
import type { AgentChannel, GrantEngine } from "../services/grants/engine.ts";
import { isBoxPublicKey } from "../services/secrets/sealed.ts";
import type { ServerSigningKey } from "./server-key.ts";

/** A message awaiting its ack, with what it carried (the only results its ack may report). */
type Pending =
  | { kind: "sync"; /** When it was sent (epoch ms). */ sentAt: number; targets: TargetState[] }
  | { kind: "apply"; /** `resultKey` of every op sent. */ ops: Set<string> }
  | { kind: "capabilities" };

/**
 * One socket's frame authentication state: the agent's nonce, the number of the next frame and, once
 * the welcome delivered it, the socket's frame key (32 bytes): frames are then MAC'd, not signed.
 * A KeyObject, not a Buffer: createHmac imports a raw key on every call (measured ~25 µs against ~3).
 */
interface Framing {
  agentNonce: string;
  frame: number;
  macKey?: KeyObject;
}

interface Connection {
  agentId: string;
  agentName: string;
  ws: WebSocket;
  framing: Framing;
  seq: number;
  pending: Map<number, Pending>;
  alive: boolean;
}

/** The identity of one (target, address, op); the address normalised (unparsable ones as given). */
function resultKey(key: string, ip: string, op: "add" | "del"): string {
  return `${key}\u0000${normaliseIp(ip)?.ip ?? ip}\u0000${op}`;
}

/** An X25519 public key from base64 of its raw 32 bytes (an agent's enrolled BoxPublicKey). @throws Error when it is not one. */
function x25519PublicKey(raw: string): KeyObject {
  return createPublicKey({
    key: { kty: "OKP", crv: "X25519", x: Buffer.from(raw, "base64").toString("base64url") },
    format: "jwk",
  });
}

/** The agent's connection nonce from the upgrade request's query; "" when absent or malformed. */
function agentNonceOf(req: IncomingMessage): string {
  const value = new URL(req.url ?? "/", "http://x").searchParams.get(AGENT_NONCE_PARAM) ?? "";
  return AgentNonceSchema.safeParse(value).success ? value : "";
}

const HELLO_TIMEOUT_MS = 10_000;
/**
 * Most unacknowledged messages kept per connection (each holds what it carried, a sync the whole
 * state); beyond it the oldest is forgotten and its late ack dropped as never sent.
 */
const MAX_PENDING = 256;
const PING_INTERVAL_MS = 15_000;

/** The hub. Create once per server and route HTTP upgrades to `handleUpgrade`. */
export class AgentHub implements AgentChannel {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  private readonly connections = new Map<string, Connection>();
  private closing = false;
  private readonly pingTimer: NodeJS.Timeout;
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly engine: GrantEngine;
  private readonly serverKey: ServerSigningKey;
  /**
   * Told when an agent's authenticated connection to this hub starts (true) or ends (false); set by
   * the replicas' cluster (cluster.ts) to share which replica holds which agent.
   */
  onPresence?: (agentId: string, connected: boolean) => void;
  /**
   * True when another replica holds the agent now: a connection that ends here then does not mark the
   * agent's grants offline. Set by the cluster; default never.
   */
  connectedElsewhere: (agentId: string) => boolean = () => false;

  /** `serverKey` signs every frame (see server-key.ts); its public half is what agents pin. */
  constructor(deps: { db: Db; clock: Clock; log: Logger; engine: GrantEngine; serverKey: ServerSigningKey }) {
    this.db = deps.db;
    this.serverKey = deps.serverKey;
    this.clock = deps.clock;
    this.log = deps.log.child({ part: "agent-hub" });
    this.engine = deps.engine;
    this.engine.attach(this);
    this.pingTimer = setInterval(() => this.pingAll(), PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  /** How many agents hold an authenticated connection now. */
  get connectedCount(): number {
    return this.connections.size;
  }

  /** The ids of the agents holding an authenticated connection to this hub now. */
  connectedAgentIds(): string[] {
    return [...this.connections.keys()];
  }

  /** True while the agent holds an authenticated connection. */
  isConnected(agentId: string): boolean {
    return this.connections.has(agentId);
  }

  /** Sends ops as one `apply`; false when the agent is not connected. */
  apply(agentId: string, ops: Op[]): boolean {
    const conn = this.connections.get(agentId);
    if (!conn) return false;
    const sent = new Set(ops.map((o) => resultKey(o.target.key, o.ip, o.op)));
    this.sendSeq(conn, { kind: "apply", ops: sent }, (seq) => ({ type: "apply", seq, ops }));
    return true;
  }

  /** Sends the agent its full desired state again (after a target's configuration changed). */
  async resync(agentId: string): Promise<void> {
    const conn = this.connections.get(agentId);
    if (conn) await this.sendSync(conn);
  }

  /**
   * Closes this hub's connection of an agent another replica now holds (its newer connection wins), as
   * a replaced connection; the agent's grants stay as they are.
   */
  release(agentId: string): void {
    this.connections.get(agentId)?.ws.close(AgentCloseCode.replaced, "replaced by a connection to another replica");
  }

  /** Closes the agent's connection (agent deleted). */
  disconnect(agentId: string): void {
    this.connections.get(agentId)?.ws.close(AgentCloseCode.authFailed, "agent removed");
  }

  /** The agent was renamed: its connection's log and audit entries carry the new name. */
  renamed(agentId: string, name: string): void {
    const conn = this.connections.get(agentId);
    if (conn) conn.agentName = name;
  }

  /** Takes over an HTTP upgrade request for the agent WebSocket. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req, head.length));
  }

  /**
   * Closes every connection and stops timers; resolves once every socket has closed (sockets that
   * have not closed after 1 s are terminated). After this the hub touches the database no more.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.pingTimer);
    const sockets = [...this.wss.clients];
    await Promise.all(
      sockets.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            const timer = setTimeout(() => ws.terminate(), 1_000);
            ws.once("close", () => {
              clearTimeout(timer);
              resolve();
            });
            ws.close(AgentCloseCode.shutdown, "server shutting down");
          }),
      ),
    );
    this.connections.clear();
    this.wss.close();
  }

  /** Serves one upgraded socket; `headBytes` arrived with the upgrade request (counted before hello). */
  private onConnection(ws: WebSocket, req: IncomingMessage, headBytes: number): void {
    const nonce = randomBytes(32).toString("base64url");
    const remote = normaliseIp(req.socket.remoteAddress ?? "")?.ip ?? "";
    const framing: Framing = { agentNonce: agentNonceOf(req), frame: 0 };
    let conn: Connection | undefined;
    const helloTimer = setTimeout(() => ws.close(AgentCloseCode.authFailed, "no hello"), HELLO_TIMEOUT_MS);
    // Until the hello is accepted a client may send only a few bytes (frames included): an
    // unauthenticated peer cannot make the server buffer large messages.
    let preHelloBytes = headBytes;
    let tooBig = false;
    const countPreHello = (chunk: Buffer): void => {
      preHelloBytes += chunk.length;
      if (preHelloBytes <= AGENT_PRE_HELLO_MAX_BYTES || tooBig) return;
      tooBig = true;
      this.log.warn({ remote, bytes: preHelloBytes }, "agent socket sent too much before hello; closing");
      clearTimeout(helloTimer);
      ws.terminate();
    };
    req.socket.prependListener("data", countPreHello);
    const preHelloDone = (): void => void req.socket.off("data", countPreHello);
    ws.on("error", (err) => this.log.warn({ err: err.message }, "agent socket error"));
    ws.on("pong", () => {
      if (!conn) return;
      conn.alive = true;
      this.guard("pong", async () => await updateAgent(this.db, conn!.agentId, { lastSeen: this.clock.now() }));
    });
    ws.on("close", () => {
      clearTimeout(helloTimer);
      preHelloDone();
      if (!this.closing && conn && this.connections.get(conn.agentId) === conn) {
        this.connections.delete(conn.agentId);
        this.log.info({ agent: conn.agentName }, "agent disconnected");
        this.onPresence?.(conn.agentId, false);
        if (!this.connectedElsewhere(conn.agentId))
          this.guard("close", async () => await this.engine.agentDisconnected(conn!.agentId));
      }
    });
    // One message at a time per socket, in arrival order: a message is handled to the end (its
    // database work included) before the next one starts.
    let handled: Promise<void> = Promise.resolve();
    const handle = async (data: RawData): Promise<void> => {
      if (tooBig) return;
      let msg;
      try {
        msg = AgentToServerSchema.parse(JSON.parse(String(data)));
      } catch {
        ws.close(AgentCloseCode.protocolError, "malformed message");
        return;
      }
      try {
        if (!conn) {
          if (msg.type !== "hello") return ws.close(AgentCloseCode.protocolError, "hello expected");
          clearTimeout(helloTimer);
          if (!framing.agentNonce) {
            this.log.warn({ remote }, "agent connected without a connection nonce (an agent older than the server?)");
            return ws.close(AgentCloseCode.protocolError, "connection nonce missing");
          }
          conn = await this.authenticate(ws, framing, msg, nonce, remote);
          if (conn) preHelloDone();
          return;
        }
        if (msg.type === "ack") await this.onAck(conn, msg.seq, msg.results);
        else if (msg.type === "capabilities") await this.saveCapabilities(conn.agentId, msg.capabilities);
      } catch (err) {
        this.log.error({ err }, "agent message failed");
      }
    };
    ws.on("message", (data) => {
      handled = handled.then(() => handle(data));
    });
    this.send(ws, framing, { type: "challenge", nonce, protocol: AGENT_PROTOCOL_VERSION });
  }

  /** Runs a socket event's work; a failure (e.g. the database busy) is logged, never thrown into the event loop. */
  private guard(event: string, work: () => Promise<unknown>): void {
    work().catch((err: unknown) => this.log.error({ err, event }, "agent event failed"));
  }

  private async authenticate(
    ws: WebSocket,
    framing: Framing,
    hello: {
      agentId: string;
      signature: string;
      version: string;
      capabilities: AgentCapabilities;
      frameAuth?: typeof FRAME_AUTH_HMAC;
    },
    nonce: string,
    remote: string,
  ): Promise<Connection | undefined> {
    const row = await getAgent(this.db, hello.agentId);
    let ok = false;
    if (row?.signingPublicKey) {
      try {
        const key = createPublicKey({ key: Buffer.from(row.signingPublicKey, "base64"), format: "der", type: "spki" });
        ok = verifySignature(
          null,
          Buffer.from(challengePayload(hello.agentId, nonce)),
          key,
          Buffer.from(hello.signature, "base64"),
        );
      } catch {
        ok = false;
      }
    }
    if (!row || !ok) {
      this.log.warn({ agentId: hello.agentId, remote }, "agent authentication failed");
      ws.close(AgentCloseCode.authFailed, "authentication failed");
      return undefined;
    }
    const frameKey = hello.frameAuth === FRAME_AUTH_HMAC ? this.frameKeyFor(row, framing.agentNonce) : undefined;
    const previous = this.connections.get(row.id);
    const conn: Connection = {
      agentId: row.id,
      agentName: row.name,
      ws,
      framing,
      seq: 0,
      pending: new Map(),
      alive: true,
    };
    this.connections.set(row.id, conn);
    if (previous) previous.ws.close(AgentCloseCode.replaced, "replaced by a new connection");
    this.onPresence?.(row.id, true);
    await updateAgent(this.db, row.id, {
      lastSeen: this.clock.now(),
      version: hello.version,
      externalIp: remote,
      capabilities: hello.capabilities,
    });
    this.log.info(
      { agent: row.name, version: hello.version, remote, frameAuth: frameKey ? FRAME_AUTH_HMAC : "ed25519" },
      "agent connected",
    );
    this.send(ws, framing, {
      type: "welcome",
      agentId: row.id,
      serverTime: this.clock.now(),
      ...(frameKey ? { frameKeyShare: frameKey.share } : {}),
    });
    // The welcome was signed; every later frame of this socket is MAC'd with the key it delivered.
    if (frameKey) framing.macKey = frameKey.key;
    await this.engine.agentConnected(row.id);
    await this.sendSync(conn);
    return conn;
  }

  /**
   * The frame key of one socket of agent `row` (docs/agent-protocol.md step 4 "MAC'd frames"): a fresh
   * ephemeral X25519 key, its agreement with the agent's enrolled box key, HKDF (deriveFrameKey, salt
   * `agentNonce`); `share` is the ephemeral public key (base64, raw 32 bytes) for the welcome. node:crypto
   * only (no libsodium). Undefined, and the socket's frames stay signed, when the agent has no usable box
   * key (not 32 bytes of base64, or a point X25519 refuses).
   */
  private frameKeyFor(
    row: { name: string; boxPublicKey: string | null },
    agentNonce: string,
  ): { key: KeyObject; share: string } | undefined {
    if (!isBoxPublicKey(row.boxPublicKey)) {
      this.log.warn({ agent: row.name }, "agent asked for MAC'd frames but has no box key; signing its frames");
      return undefined;
    }
    try {
      const agentKey = x25519PublicKey(row.boxPublicKey);
      const ephemeral = generateKeyPairSync("x25519");
      const share = Buffer.from(ephemeral.publicKey.export({ format: "jwk" }).x!, "base64url").toString("base64");
      const secret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: agentKey });
      const key = deriveFrameKey(hkdfSync, secret, agentNonce, share, row.boxPublicKey);
      return { key: createSecretKey(key), share };
    } catch (err) {
      this.log.warn({ agent: row.name, err }, "cannot agree a frame key with the agent's box key; signing its frames");
      return undefined;
    }
  }

  private async sendSync(conn: Connection): Promise<void> {
    const sentAt = this.clock.now();
    const targets: TargetState[] = await this.engine.desiredState(conn.agentId);
    this.sendSeq(conn, { kind: "sync", sentAt, targets }, (seq) => ({ type: "sync", seq, targets }));
  }

  private async onAck(conn: Connection, seq: number, results: EntryResult[]): Promise<void> {
    const pending = conn.pending.get(seq);
    if (!pending) {
      this.log.warn({ agent: conn.agentName, seq }, "ack of a message never sent (or acked already); dropped");
      return;
    }
    conn.pending.delete(seq);
    await updateAgent(this.db, conn.agentId, { lastSeen: this.clock.now() });
    if (pending.kind === "sync") {
      // Only failures of a sync change anything (every entry sent counts as applied otherwise).
      const failures = await this.ownResults(
        conn,
        seq,
        pending,
        results.filter((r) => !r.ok),
      );
      await this.engine.handleSyncAck(conn.agentId, conn.agentName, pending.sentAt, failures);
    } else {
      const accepted = await this.ownResults(conn, seq, pending, results);
      if (accepted.length > 0) await this.engine.handleResults(conn.agentName, accepted);
    }
  }

  /**
   * The results an agent may report for message `seq`: each names a (target, address, op) the hub
   * sent it in that message — for a sync an entry it listed, or a `del` on a target it listed (the
   * sync removes whatever else the target holds) — and a target still on one of the agent's
   * backends. The rest is dropped and logged (at most five shown).
   */
  private async ownResults(
    conn: Connection,
    seq: number,
    pending: Pending,
    results: EntryResult[],
  ): Promise<EntryResult[]> {
    if (results.length === 0) return results;
    const ownTargets = new Set((await agentTargetSources(this.db, conn.agentId)).map((t) => t.aclId));
    let sent: (r: EntryResult) => boolean;
    if (pending.kind === "apply") sent = (r) => pending.ops.has(resultKey(r.key, r.ip, r.op));
    else if (pending.kind === "sync") {
      const listed = new Map(pending.targets.map((t) => [t.target.key, t]));
      const entries = new Map<string, Set<string>>();
      const entriesOf = (key: string): Set<string> => {
        let set = entries.get(key);
        if (!set) {
          set = new Set(listed.get(key)?.entries.map((e) => resultKey(key, e.ip, "add")) ?? []);
          entries.set(key, set);
        }
        return set;
      };
      sent = (r) => listed.has(r.key) && (r.op === "del" || entriesOf(r.key).has(resultKey(r.key, r.ip, "add")));
    } else sent = () => false;
    const accepted: EntryResult[] = [];
    const dropped: EntryResult[] = [];
    for (const r of results) (ownTargets.has(r.key) && sent(r) ? accepted : dropped).push(r);
    if (dropped.length > 0)
      this.log.warn(
        {
          agent: conn.agentName,
          seq,
          kind: pending.kind,
          dropped: dropped.length,
          examples: dropped.slice(0, 5).map((r) => ({ key: r.key, ip: r.ip, op: r.op, ok: r.ok })),
        },
        "agent acknowledged entries it was not sent; dropped",
      );
    return accepted;
  }

  private async saveCapabilities(agentId: string, capabilities: AgentCapabilities): Promise<void> {
    await updateAgent(this.db, agentId, { capabilities, lastSeen: this.clock.now() });
  }

  private sendSeq(conn: Connection, pending: Pending, build: (seq: number) => ServerToAgent): void {
    conn.seq += 1;
    conn.pending.set(conn.seq, pending);
    if (conn.pending.size > MAX_PENDING) {
      const oldest = conn.pending.keys().next().value!;
      conn.pending.delete(oldest);
      this.log.warn(
        { agent: conn.agentName, seq: oldest },
        "agent left too many messages unacknowledged; oldest forgotten",
      );
    }
    this.send(conn.ws, conn.framing, build(conn.seq));
  }

  /**
   * Sends one frame: MAC'd (HMAC-SHA256 over serverFramePrefix + the JSON) with the socket's frame key
   * once the welcome delivered one, signed (serverFramePayload) with the server's agent signing key
   * otherwise.
   */
  private send(ws: WebSocket, framing: Framing, msg: ServerToAgent): void {
    const body = JSON.stringify(msg);
    const frame = framing.frame;
    framing.frame += 1;
    if (framing.macKey) {
      const mac = createHmac("sha256", framing.macKey)
        .update(serverFramePrefix(framing.agentNonce, frame), "utf8")
        .update(body, "utf8")
        .digest("base64");
      ws.send(withFrameMac(body, mac));
      return;
    }
    const digest = createHash("sha256").update(body, "utf8").digest("hex");
    const payload = Buffer.from(serverFramePayload(framing.agentNonce, frame, digest), "utf8");
    ws.send(withFrameSignature(body, sign(null, payload, this.serverKey.privateKey).toString("base64")));
  }

  private pingAll(): void {
    for (const c of this.connections.values()) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }
}

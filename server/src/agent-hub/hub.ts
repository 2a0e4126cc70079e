/**
 * The agent hub (design.md "Agent protocol", server side): accepts agents' WebSocket connections on
 * AGENT_CONNECT_PATH, authenticates each with a challenge signed by the agent's Ed25519 key, sends
 * the full desired state on every (re)connect, pushes ordered sequence-numbered `apply` messages,
 * and feeds acknowledgements back to the grant engine. One live connection per agent: a new one
 * replaces the old. Pings every 15 s; an agent that misses a pong is dropped at the next ping (within 30 s).
 */
import { createPublicKey, verify as verifySignature, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { eq } from "drizzle-orm";
import {
  AGENT_PROTOCOL_VERSION,
  AgentCloseCode,
  AgentToServerSchema,
  challengePayload,
  normaliseIp,
} from "@postern/shared";
import type { EntryResult, Op, ServerToAgent, TargetState, AgentCapabilities } from "@postern/shared";
import type { Db } from "../db/index.ts";
import { agents } from "../db/schema.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";
import type { AgentChannel, GrantEngine } from "../services/grants/engine.ts";

interface Pending {
  kind: "sync" | "apply" | "capabilities";
  /** For a sync: when it was sent (epoch ms). */
  sentAt?: number;
}

interface Connection {
  agentId: string;
  agentName: string;
  ws: WebSocket;
  seq: number;
  pending: Map<number, Pending>;
  alive: boolean;
}

const HELLO_TIMEOUT_MS = 10_000;
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

  constructor(deps: { db: Db; clock: Clock; log: Logger; engine: GrantEngine }) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.log = deps.log.child({ part: "agent-hub" });
    this.engine = deps.engine;
    this.engine.attach(this);
    this.pingTimer = setInterval(() => this.pingAll(), PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  /** True while the agent holds an authenticated connection. */
  isConnected(agentId: string): boolean {
    return this.connections.has(agentId);
  }

  /** Sends ops as one `apply`; false when the agent is not connected. */
  apply(agentId: string, ops: Op[]): boolean {
    const conn = this.connections.get(agentId);
    if (!conn) return false;
    this.sendSeq(conn, { kind: "apply" }, (seq) => ({ type: "apply", seq, ops }));
    return true;
  }

  /** Sends the agent its full desired state again (after a target's configuration changed). */
  resync(agentId: string): void {
    const conn = this.connections.get(agentId);
    if (conn) this.sendSync(conn);
  }

  /** Closes the agent's connection (agent deleted). */
  disconnect(agentId: string): void {
    this.connections.get(agentId)?.ws.close(AgentCloseCode.authFailed, "agent removed");
  }

  /** Takes over an HTTP upgrade request for the agent WebSocket. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req));
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

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const nonce = randomBytes(32).toString("base64url");
    const remote = normaliseIp(req.socket.remoteAddress ?? "")?.ip ?? "";
    let conn: Connection | undefined;
    const helloTimer = setTimeout(() => ws.close(AgentCloseCode.authFailed, "no hello"), HELLO_TIMEOUT_MS);
    ws.on("error", (err) => this.log.warn({ err: err.message }, "agent socket error"));
    ws.on("pong", () => {
      if (!conn) return;
      conn.alive = true;
      this.guard("pong", () =>
        this.db.update(agents).set({ lastSeen: this.clock.now() }).where(eq(agents.id, conn!.agentId)).run(),
      );
    });
    ws.on("close", () => {
      clearTimeout(helloTimer);
      if (!this.closing && conn && this.connections.get(conn.agentId) === conn) {
        this.connections.delete(conn.agentId);
        this.log.info({ agent: conn.agentName }, "agent disconnected");
        this.guard("close", () => this.engine.agentDisconnected(conn!.agentId));
      }
    });
    ws.on("message", (data) => {
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
          conn = this.authenticate(ws, msg, nonce, remote);
          return;
        }
        if (msg.type === "ack") this.onAck(conn, msg.seq, msg.results);
        else if (msg.type === "capabilities") this.saveCapabilities(conn.agentId, msg.capabilities);
      } catch (err) {
        this.log.error({ err }, "agent message failed");
      }
    });
    this.send(ws, { type: "challenge", nonce, protocol: AGENT_PROTOCOL_VERSION });
  }

  /** Runs a socket event's work; a failure (e.g. the database busy) is logged, never thrown into the event loop. */
  private guard(event: string, work: () => unknown): void {
    try {
      work();
    } catch (err) {
      this.log.error({ err, event }, "agent event failed");
    }
  }

  private authenticate(
    ws: WebSocket,
    hello: { agentId: string; signature: string; version: string; capabilities: AgentCapabilities },
    nonce: string,
    remote: string,
  ): Connection | undefined {
    const row = this.db.select().from(agents).where(eq(agents.id, hello.agentId)).get();
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
    const previous = this.connections.get(row.id);
    const conn: Connection = { agentId: row.id, agentName: row.name, ws, seq: 0, pending: new Map(), alive: true };
    this.connections.set(row.id, conn);
    if (previous) previous.ws.close(AgentCloseCode.replaced, "replaced by a new connection");
    this.db
      .update(agents)
      .set({ lastSeen: this.clock.now(), version: hello.version, externalIp: remote, capabilities: hello.capabilities })
      .where(eq(agents.id, row.id))
      .run();
    this.log.info({ agent: row.name, version: hello.version, remote }, "agent connected");
    this.send(ws, { type: "welcome", agentId: row.id, serverTime: this.clock.now() });
    this.engine.agentConnected(row.id);
    this.sendSync(conn);
    return conn;
  }

  private sendSync(conn: Connection): void {
    const sentAt = this.clock.now();
    const targets: TargetState[] = this.engine.desiredState(conn.agentId);
    this.sendSeq(conn, { kind: "sync", sentAt }, (seq) => ({ type: "sync", seq, targets }));
  }

  private onAck(conn: Connection, seq: number, results: EntryResult[]): void {
    const pending = conn.pending.get(seq);
    if (!pending) return;
    conn.pending.delete(seq);
    this.db.update(agents).set({ lastSeen: this.clock.now() }).where(eq(agents.id, conn.agentId)).run();
    if (pending.kind === "sync" && pending.sentAt !== undefined) {
      this.engine.handleSyncAck(conn.agentId, conn.agentName, pending.sentAt, results);
    } else {
      this.engine.handleResults(conn.agentName, results);
    }
  }

  private saveCapabilities(agentId: string, capabilities: AgentCapabilities): void {
    this.db.update(agents).set({ capabilities, lastSeen: this.clock.now() }).where(eq(agents.id, agentId)).run();
  }

  private sendSeq(conn: Connection, pending: Pending, build: (seq: number) => ServerToAgent): void {
    conn.seq += 1;
    conn.pending.set(conn.seq, pending);
    this.send(conn.ws, build(conn.seq));
  }

  private send(ws: WebSocket, msg: ServerToAgent): void {
    ws.send(JSON.stringify(msg));
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

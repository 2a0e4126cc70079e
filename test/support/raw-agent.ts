/**
 * A raw WebSocket client speaking the agent protocol (docs/agent-protocol.md) for tests that play an
 * agent — a well-behaved one or one that lies. It dials the real hub with a connection nonce, checks
 * every server frame's signature against the pinned server key (`verified` turns false on the first
 * frame that does not verify), answers the challenge with a signed hello unless told not to, and
 * records every message; what it acknowledges is up to the test. Traffic only to the given server
 * (loopback in tests); `close()` ends the socket.
 */
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify } from "node:crypto";
import WebSocket from "ws";
import {
  AGENT_CONNECT_PATH,
  AGENT_NONCE_PARAM,
  ServerToAgentSchema,
  challengePayload,
  serverFramePayload,
  splitSignedFrame,
} from "../../shared/src/index.ts";
import type { AgentCapabilities, AgentToServer, ServerToAgent } from "../../shared/src/index.ts";

/** What the raw agent needs: the fields of an enrolled agent's config file. */
export interface RawAgentIdentity {
  agentId: string;
  /** Ed25519 PKCS#8 PEM. */
  signingPrivateKey: string;
  /** The server key pinned at enrolment (SPKI DER, base64). */
  serverPublicKey: string;
}

/** Options of {@link RawAgent.connect}. */
export interface RawAgentOptions {
  capabilities?: AgentCapabilities;
  /** The connection nonce sent in the URL; null sends none (default: a fresh random one). */
  nonce?: string | null;
  /** Answer the challenge with a hello (default true). */
  hello?: boolean;
  /** Ask in the hello for MAC'd frames (`frameAuth`; default false). The raw agent checks signatures only. */
  frameAuth?: boolean;
}

/** A raw agent connection. */
export class RawAgent {
  readonly ws: WebSocket;
  readonly nonce: string;
  /** Every server message received, in order (after its signature was checked). */
  readonly messages: ServerToAgent[] = [];
  /** The text of every server frame received, in order, as it arrived. */
  readonly frames: string[] = [];
  /** False once a frame did not verify against the pinned key (a MAC'd frame counts: only signatures are checked here). */
  verified = true;
  /** Set when the socket closed. */
  closed: { code: number; reason: string } | undefined;
  private frame = 0;

  private constructor(ws: WebSocket, nonce: string) {
    this.ws = ws;
    this.nonce = nonce;
  }

  /** Dials `serverUrl` (http://host:port) as `identity`; resolves once the socket is open. */
  static async connect(serverUrl: string, identity: RawAgentIdentity, opts: RawAgentOptions = {}): Promise<RawAgent> {
    const url = new URL(AGENT_CONNECT_PATH, serverUrl.replace(/^http/, "ws"));
    const nonce = opts.nonce === undefined ? randomBytes(24).toString("base64url") : (opts.nonce ?? "");
    if (opts.nonce !== null) url.searchParams.set(AGENT_NONCE_PARAM, nonce);
    const ws = new WebSocket(url);
    const agent = new RawAgent(ws, nonce);
    const serverKey = createPublicKey({
      key: Buffer.from(identity.serverPublicKey, "base64"),
      format: "der",
      type: "spki",
    });
    const privateKey = createPrivateKey(identity.signingPrivateKey);
    ws.on("message", (data) => {
      agent.frames.push(String(data));
      const signed = splitSignedFrame(String(data));
      const digest = createHash("sha256")
        .update(signed?.body ?? "", "utf8")
        .digest("hex");
      const payload = Buffer.from(serverFramePayload(nonce, agent.frame++, digest), "utf8");
      if (!signed || !verify(null, payload, serverKey, Buffer.from(signed.signature, "base64"))) agent.verified = false;
      const message = ServerToAgentSchema.parse(JSON.parse(signed?.body ?? String(data)));
      agent.messages.push(message);
      if (message.type === "challenge" && opts.hello !== false)
        agent.send({
          type: "hello",
          agentId: identity.agentId,
          signature: sign(null, Buffer.from(challengePayload(identity.agentId, message.nonce)), privateKey).toString(
            "base64",
          ),
          version: "1.9.0",
          capabilities: opts.capabilities ?? {},
          ...(opts.frameAuth ? { frameAuth: "hmac-sha256" as const } : {}),
        });
    });
    ws.on("close", (code, reason) => (agent.closed = { code, reason: reason.toString() }));
    ws.on("error", () => undefined);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return agent;
  }

  /** Sends one message as JSON text. */
  send(message: AgentToServer | Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  /** The messages of one type received so far. */
  ofType<T extends ServerToAgent["type"]>(type: T): Extract<ServerToAgent, { type: T }>[] {
    return this.messages.filter((m): m is Extract<ServerToAgent, { type: T }> => m.type === type);
  }

  /** Closes the socket and waits for it to be closed (bounded 2 s). */
  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 2_000);
      this.ws.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.close();
    });
  }
}

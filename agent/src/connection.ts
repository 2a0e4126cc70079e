/**
 * The agent's one long-lived connection to the server (docs/reference.md design "Agent protocol" → Transport): the
 * agent dials out to `ws(s)://<server>/api/agent/connect`, answers the server's `challenge` with a
 * `hello` signed by its Ed25519 key and carrying its capabilities, then hands every `sync`, `apply` and
 * `refresh-capabilities` to a handler in arrival order and sends the handler's replies in that same
 * order. The agent trusts only its server: it dials https/wss (ws only to loopback), sends a fresh
 * nonce with every connection, and checks the signature of every frame against the server key it
 * pinned at enrolment (serverFramePayload: bound to the nonce and the frame's position) — or, when
 * it has its box keys, asks in `hello` for a per-connection HMAC key, derived from the key share the
 * signed `welcome` carries and its box key (X25519 + HKDF, node:crypto), and checks the later frames'
 * MACs (frame-auth.ts); a frame that does not
 * verify closes the socket (4403) before it is acted on. A first message larger than
 * AGENT_PRE_HELLO_MAX_BYTES closes it too (1009). A message that is not valid JSON or fails the
 * ServerToAgent schema closes the connection with the protocol-error code (4400). When the socket drops, the agent reconnects with bounded exponential
 * backoff and jitter (default 0.5 s doubling up to 10 s); the server sends the full state again on
 * every connect. Aborting `signal` (or calling `stop()`) closes the socket and ends the loop.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign } from "node:crypto";
import type { KeyObject } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import type { Logger } from "pino";
import WebSocket from "ws";
import {
  AGENT_CONNECT_PATH,
  AGENT_NONCE_PARAM,
  AGENT_PRE_HELLO_MAX_BYTES,
  AGENT_PROTOCOL_VERSION,
  AgentCloseCode,
  challengePayload,
  FRAME_AUTH_HMAC,
  ServerToAgentSchema,
} from "@postern/shared";
import type { AgentCapabilities, AgentToServer, ServerToAgent } from "@postern/shared";
import { insecureServerReason, serverEndpoint } from "./config.ts";
import { pinnedTlsOptions } from "./tls-pin.ts";
import { FrameVerifier, frameKeyDeriver } from "./frame-auth.ts";
import type { FrameKeyDeriver } from "./frame-auth.ts";

/** The messages handed to the handler: everything after the handshake. */
export type ServerCommand = Extract<ServerToAgent, { type: "sync" | "apply" | "refresh-capabilities" }>;

/**
 * Where the connection is: `connecting` (dialling), `authenticating` (socket open, challenge not yet
 * answered and welcomed), `connected` (welcomed by the server), `backoff` (waiting to redial),
 * `stopped` (signal aborted).
 */
export type ConnectionState = "connecting" | "authenticating" | "connected" | "backoff" | "stopped";

/** Options of {@link startConnection}. Times are milliseconds. */
export interface ConnectionOptions {
  /** The server's self-signed certificate pinned at enrolment: trusted alone (tls-pin.ts). Absent: the system CAs. */
  serverPin?: { certificate: string; fingerprint: string };
  /**
   * Base URL of the server (https://…, http:// only to loopback); the WebSocket URL is derived from it. Several
   * URLs (replicas of one installation, docs/high-availability.md) are tried in rotation: each new connection
   * attempt goes to the next one, so an agent whose server went away tries another first.
   */
  readonly server: string | readonly string[];
  readonly agentId: string;
  /** The server's agent signing key pinned at enrolment: Ed25519 SPKI DER base64, or a KeyObject. */
  readonly serverPublicKey: string | KeyObject;
  /** Ed25519 private key (PKCS#8 PEM or KeyObject) that signs the challenge. */
  readonly signingKey: string | KeyObject;
  /**
   * The agent's X25519 box key pair (base64 of the raw 32 bytes each). Given: the hello asks for
   * HMAC-authenticated frames (`frameAuth`) and the frame key is derived from the welcome's key share
   * and these (node:crypto; libsodium is not loaded). Absent or unusable: every frame must be signed.
   */
  readonly boxKeys?: { readonly publicKey: string; readonly secretKey: string };
  /** Agent version sent in `hello` (and the User-Agent header). */
  readonly version: string;
  /** Current capabilities, asked on every connect; a failure is logged and `{}` reported. */
  readonly capabilities: () => Promise<AgentCapabilities>;
  /**
   * Handles one server command. Called synchronously in arrival order; the reply (if any) is sent after
   * every earlier reply of the same socket. A rejection closes the socket (1011) so that the server
   * re-syncs on reconnect.
   */
  readonly onMessage: (message: ServerCommand) => Promise<AgentToServer | undefined>;
  /**
   * Called once the reply to a command has been written to the socket (handed to the kernel), with the
   * command's type; the reply and the command are no longer referenced by the connection then. The daemon
   * gives a full sync's memory back here (reclaim.ts). Errors it throws are logged.
   */
  readonly onReplyWritten?: (type: ServerCommand["type"]) => void;
  /** Ends the connection for good when aborted. */
  readonly signal: AbortSignal;
  readonly logger?: Logger;
  /** Called on every state change. */
  readonly onStateChange?: (state: ConnectionState) => void;
  /** First reconnect delay (default {@link DEFAULT_INITIAL_DELAY_MS}); jittered to between half and all of it. */
  readonly initialDelayMs?: number;
  /** Longest reconnect delay (default {@link DEFAULT_MAX_DELAY_MS}). */
  readonly maxDelayMs?: number;
  /** Random source in [0, 1) for jitter (default Math.random). */
  readonly random?: () => number;
  /** Time to wait for the TCP/TLS/HTTP upgrade (default 10 000). */
  readonly handshakeTimeoutMs?: number;
  /** Time to wait for the challenge and then the welcome (default 15 000). */
  readonly authTimeoutMs?: number;
  /** Interval of WebSocket pings; a missing pong by the next ping ends the socket (default 30 000; 0 disables). */
  readonly pingIntervalMs?: number;
}

/** A running connection. */
export interface AgentConnection {
  /** The current state. */
  state(): ConnectionState;
  /** True while welcomed by the server. */
  connected(): boolean;
  /** Resolves when the loop has ended (after the signal was aborted and the socket closed). */
  readonly done: Promise<void>;
}

/** Closing codes the agent sends. */
const CLOSE_NORMAL = 1000;
const CLOSE_INTERNAL = 1011;

/**
 * First reconnect delay in milliseconds: a dropped connection is retried after 100–200 ms, so an agent behind a
 * load balancer is back (on another replica) well within a second of its replica going away.
 */
export const DEFAULT_INITIAL_DELAY_MS = 200;
/** Longest reconnect delay in milliseconds (a server away for long is retried every 5–10 s). */
export const DEFAULT_MAX_DELAY_MS = 10_000;

/**
 * Which server URL and which backoff step the reconnect attempt `attempt` (0-based, counted since the last
 * welcomed session) uses, with `count` URLs of which `last` was the one used last: the URLs in rotation
 * starting with the one after `last`, and the delay doubling once per full round through the list, so that
 * every URL is tried at the shortest delay before any is retried at a longer one.
 */
export function nextServer(attempt: number, last: number, count: number): { index: number; step: number } {
  return { index: (last + 1) % count, step: Math.floor(attempt / count) };
}

/**
 * The reconnect delay before attempt `attempt` (0-based): `min(max, initial·2^attempt)`, jittered to
 * between half and all of it. Milliseconds.
 */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base / 2 + (base / 2) * random());
}

/** Signs a challenge: base64 Ed25519 signature over `challengePayload(agentId, nonce)` (UTF-8). */
export function signChallenge(key: string | KeyObject, agentId: string, nonce: string): string {
  const keyObject = typeof key === "string" ? createPrivateKey(key) : key;
  return sign(null, Buffer.from(challengePayload(agentId, nonce), "utf8"), keyObject).toString("base64");
}

/** The frame key deriver of the agent's box keys; undefined (frames stay signed) when they are not a usable X25519 pair. */
function boxKeyDeriver(
  boxKeys: NonNullable<ConnectionOptions["boxKeys"]>,
  log: Pick<Logger, "warn">,
): FrameKeyDeriver | undefined {
  try {
    return frameKeyDeriver(boxKeys.publicKey, boxKeys.secretKey);
  } catch (err) {
    log.warn({ err }, "the box keys are not a usable X25519 pair; asking for signed frames only");
    return undefined;
  }
}

interface SessionResult {
  /** The server welcomed this socket (a successful session: backoff starts over). */
  welcomed: boolean;
  code: number;
  reason: string;
}

/**
 * Starts the connection loop and returns at once. It runs until `options.signal` is aborted.
 * @throws Error synchronously when `signingKey` or `serverPublicKey` is not a usable key, or the
 *   server URL is not https:// (http:// only to loopback) — nothing is dialled then.
 */
export function startConnection(options: ConnectionOptions): AgentConnection {
  const log = options.logger ?? pino({ level: "silent" });
  const key = typeof options.signingKey === "string" ? createPrivateKey(options.signingKey) : options.signingKey;
  const serverKey =
    typeof options.serverPublicKey === "string"
      ? createPublicKey({ key: Buffer.from(options.serverPublicKey, "base64"), format: "der", type: "spki" })
      : options.serverPublicKey;
  if (serverKey.asymmetricKeyType !== "ed25519") throw new Error("the server's public key must be Ed25519");
  const servers = typeof options.server === "string" ? [options.server] : [...options.server];
  if (servers.length === 0) throw new Error("no server URL given");
  for (const server of servers) {
    const insecure = insecureServerReason(server);
    if (insecure) throw new Error(insecure);
  }
  const deriveKey = options.boxKeys ? boxKeyDeriver(options.boxKeys, log) : undefined;
  const endpoints = servers.map((server) => serverEndpoint(server, AGENT_CONNECT_PATH, { websocket: true }));
  const initial = options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  const random = options.random ?? Math.random;
  let state: ConnectionState = "connecting";
  const setState = (next: ConnectionState): void => {
    if (state === next) return;
    state = next;
    options.onStateChange?.(next);
  };

  /** Sessions in a row that ended without a welcome (for log levels). */
  let failures = 0;
  const runSession = (baseUrl: URL): Promise<SessionResult> =>
    new Promise((resolve) => {
      setState("connecting");
      // A fresh nonce per connection: the server signs every frame bound to it.
      const nonce = randomBytes(24).toString("base64url");
      const url = new URL(baseUrl);
      url.searchParams.set(AGENT_NONCE_PARAM, nonce);
      const frames = new FrameVerifier(nonce, serverKey);
      /** The hello asked for a frame key. */
      let frameKeyAsked = false;
      let serverRefused = false;
      const ws = new WebSocket(url, {
        ...(options.serverPin ? pinnedTlsOptions(options.serverPin.certificate, options.serverPin.fingerprint) : {}),
        handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
        headers: { "user-agent": `postern-agent/${options.version}` },
        followRedirects: false,
      });
      let welcomed = false;
      let helloSent = false;
      let inbound: Promise<void> = Promise.resolve();
      let replies: Promise<void> = Promise.resolve();
      let authTimer: NodeJS.Timeout | undefined;
      let pingTimer: NodeJS.Timeout | undefined;
      let awaitingPong = false;
      let capabilities: Promise<AgentCapabilities> | undefined;

      const closeWith = (code: number, reason: string): void => {
        if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) {
          ws.close(code, reason);
          // Do not wait forever for the server's closing handshake.
          setTimeout(() => ws.terminate(), 2_000).unref();
        }
      };
      const onAbort = (): void => closeWith(CLOSE_NORMAL, "agent shutting down");
      options.signal.addEventListener("abort", onAbort, { once: true });

      const send = (message: AgentToServer, written?: () => void): void => {
        if (ws.readyState !== WebSocket.OPEN) {
          log.debug({ type: message.type }, "socket closed; reply dropped (the server re-syncs on reconnect)");
          return;
        }
        ws.send(JSON.stringify(message), written && ((err) => (err ? undefined : written())));
      };
      /**
       * A callback for `send` telling `onReplyWritten` that the reply to a `type` command was written. It
       * is made here, outside the handler's closures, so that it holds neither the command nor the reply.
       */
      const writtenCallback = (type: ServerCommand["type"]): (() => void) | undefined => {
        const hook = options.onReplyWritten;
        if (!hook) return undefined;
        return () =>
          // After the write callback has returned: the socket no longer holds the frame's buffer.
          setImmediate(() => {
            try {
              hook(type);
            } catch (err) {
              log.warn({ err, type }, "onReplyWritten failed");
            }
          });
      };
      const becomeConnected = (): void => {
        if (welcomed) return;
        welcomed = true;
        if (authTimer) clearTimeout(authTimer);
        setState("connected");
        log.info({ url: baseUrl.href, frameAuth: frames.hasKey ? FRAME_AUTH_HMAC : "ed25519" }, "connected to server");
      };

      const dispatch = async (message: ServerToAgent): Promise<void> => {
        switch (message.type) {
          case "challenge": {
            if (helloSent) return void closeWith(AgentCloseCode.protocolError, "unexpected challenge");
            if (message.protocol !== AGENT_PROTOCOL_VERSION) {
              log.error(
                { server: message.protocol, agent: AGENT_PROTOCOL_VERSION },
                "server speaks another protocol version",
              );
              return void closeWith(AgentCloseCode.protocolError, "protocol version mismatch");
            }
            const caps = await (capabilities ?? Promise.resolve({}));
            helloSent = true;
            frameKeyAsked = deriveKey !== undefined;
            send({
              type: "hello",
              agentId: options.agentId,
              signature: signChallenge(key, options.agentId, message.nonce),
              version: options.version,
              capabilities: caps,
              ...(frameKeyAsked ? { frameAuth: FRAME_AUTH_HMAC } : {}),
            });
            return;
          }
          case "welcome":
            if (!helloSent) return void closeWith(AgentCloseCode.protocolError, "welcome before hello");
            if (message.agentId !== options.agentId)
              log.warn({ welcomed: message.agentId }, "server welcomed another agent id");
            becomeConnected();
            return;
          default: {
            if (!helloSent) return void closeWith(AgentCloseCode.protocolError, `${message.type} before hello`);
            becomeConnected();
            const reply = options.onMessage(message);
            const written = writtenCallback(message.type);
            const { type, seq } = message;
            replies = replies
              .then(() => reply)
              .then((r) => {
                if (r) send(r, written);
              })
              .catch((err: unknown) => {
                log.error({ err, type, seq }, "handling a server message failed; reconnecting");
                closeWith(CLOSE_INTERNAL, "agent error");
              });
            return;
          }
        }
      };

      ws.on("open", () => {
        setState("authenticating");
        capabilities = options.capabilities().catch((err: unknown) => {
          log.warn({ err }, "capability detection failed; reporting none");
          return {};
        });
        authTimer = setTimeout(() => {
          if (!welcomed) {
            log.warn("server did not complete the handshake in time");
            closeWith(AgentCloseCode.protocolError, "handshake timeout");
          }
        }, options.authTimeoutMs ?? 15_000);
        const pingMs = options.pingIntervalMs ?? 30_000;
        if (pingMs > 0) {
          pingTimer = setInterval(() => {
            if (awaitingPong) {
              log.warn("server stopped answering pings; reconnecting");
              ws.terminate();
              return;
            }
            awaitingPong = true;
            ws.ping();
          }, pingMs);
        }
      });
      ws.on("pong", () => {
        awaitingPong = false;
      });
      ws.on("message", (data, isBinary) => {
        // Nothing after a frame that did not verify is acted on, not even frames that arrive while closing.
        if (serverRefused) return;
        if (isBinary) {
          log.warn("binary message from server; closing");
          closeWith(AgentCloseCode.protocolError, "binary message");
          return;
        }
        const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        if (!helloSent && bytes.length > AGENT_PRE_HELLO_MAX_BYTES) {
          log.warn({ bytes: bytes.length }, "first message from server is too large; closing");
          closeWith(AgentCloseCode.tooBig, "message too large before hello");
          return;
        }
        const text = bytes.toString("utf8");
        // Only the server this agent enrolled with can sign (or MAC, with the key derived from the
        // share its signed welcome carried) a frame for this nonce and position.
        const refuse = (why: string): void => {
          serverRefused = true;
          log.error(
            { url: baseUrl.href, why },
            "the server could not prove it is the server this agent enrolled with; closing",
          );
          closeWith(AgentCloseCode.serverUnverified, "server signature invalid");
        };
        const body = frames.verify(text);
        if (body === null) return refuse("bad or missing frame signature or MAC");
        let parsed: ServerToAgent;
        try {
          const result = ServerToAgentSchema.safeParse(JSON.parse(body));
          if (!result.success) {
            log.warn(
              { issues: result.error.issues.slice(0, 5), message: text.slice(0, 200) },
              "invalid message from server; closing",
            );
            closeWith(AgentCloseCode.protocolError, "invalid message");
            return;
          }
          parsed = result.data;
        } catch {
          log.warn({ message: text.slice(0, 200) }, "message from server is not JSON; closing");
          closeWith(AgentCloseCode.protocolError, "invalid JSON");
          return;
        }
        // The (verified) welcome delivers this socket's key share: later frames may carry a MAC.
        if (parsed.type === "welcome" && parsed.frameKeyShare !== undefined && frameKeyAsked && deriveKey) {
          if (frames.hasKey) return refuse("a second frame key share");
          try {
            frames.setKey(deriveKey(nonce, parsed.frameKeyShare));
          } catch {
            return refuse("no frame key can be derived from the key share with this agent's box key");
          }
        }
        inbound = inbound
          .then(() => dispatch(parsed))
          .catch((err: unknown) => {
            log.error({ err }, "handling a server message failed; reconnecting");
            closeWith(CLOSE_INTERNAL, "agent error");
          });
      });
      ws.on("unexpected-response", (_req, res) => {
        log.warn({ status: res.statusCode }, "server refused the WebSocket upgrade");
        res.resume();
        ws.terminate();
      });
      ws.on("error", (err) => {
        // During a long outage, say it at warn for the first failures and then once a minute or so.
        const loud = failures < 3 || failures % 6 === 0;
        log[loud ? "warn" : "debug"]({ err: err.message, url: baseUrl.href, failures }, "connection error");
      });
      ws.on("close", (code, reasonBuffer) => {
        if (authTimer) clearTimeout(authTimer);
        if (pingTimer) clearInterval(pingTimer);
        options.signal.removeEventListener("abort", onAbort);
        const reason = reasonBuffer.toString("utf8");
        if (welcomed) log.info({ code, reason }, "disconnected from server");
        if (code === AgentCloseCode.authFailed)
          log.error({ reason }, "the server refused this agent's identity (deleted or re-enrolled?)");
        if (code === AgentCloseCode.replaced)
          log.warn("another connection with this agent's identity replaced this one");
        resolve({ welcomed, code: serverRefused ? AgentCloseCode.serverUnverified : code, reason });
      });
      if (options.signal.aborted) onAbort();
    });

  const loop = async (): Promise<void> => {
    /** Attempts since the last welcomed session, and the index of the URL dialled last. */
    let attempt = 0;
    let current = 0;
    while (!options.signal.aborted) {
      const result = await runSession(endpoints[current]!);
      if (options.signal.aborted) break;
      if (result.welcomed) {
        attempt = 0;
        failures = 0;
      } else failures++;
      // Refused identity, replaced or an unverified server: retrying quickly would only flap; wait the longest delay.
      const slow =
        result.code === AgentCloseCode.authFailed ||
        result.code === AgentCloseCode.replaced ||
        result.code === AgentCloseCode.serverUnverified;
      const next = nextServer(attempt, current, endpoints.length);
      const delay = slow ? max : backoffDelay(next.step, initial, max, random);
      attempt++;
      current = next.index;
      setState("backoff");
      log.debug({ delayMs: delay, attempt, next: endpoints[current]!.href }, "reconnecting after delay");
      try {
        await sleep(delay, undefined, { signal: options.signal });
      } catch {
        break; // aborted
      }
    }
    setState("stopped");
  };

  const done = loop().catch((err: unknown) => {
    log.error({ err }, "connection loop failed");
    setState("stopped");
  });
  return {
    state: () => state,
    connected: () => state === "connected",
    done,
  };
}

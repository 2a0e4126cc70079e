/**
 * The agent daemon (docs/reference.md design "Agent protocol"): wires the config, the enforcement backends, capability
 * detection, the enforcer (reconciler) and the connection to the server.
 *
 * Start order: the enforcer first (it loads the persisted desired state and keeps enforcing and expiring
 * it whether or not the server is reachable — fail closed), then the connection. Stop order: the
 * connection (no new messages), then the enforcer (queued work finishes, state flushed).
 */
import { pino } from "pino";
import type { Logger } from "pino";
import type { AgentCapabilities, AgentToServer } from "@postern/shared";
import pkg from "../package.json" with { type: "json" };
import { DriverSet } from "./backends/registry.ts";
import { RECLAIM_AFTER_LISTED, reclaimMemory } from "./reclaim.ts";
import type { Backend } from "./backends/backend.ts";
import type { DriverResolver } from "./backends/driver.ts";
import type { HttpClient } from "./http/client.ts";
import { NodeHttpClient } from "./http/node-client.ts";
import { detectCapabilities } from "./capabilities.ts";
import { lazySecretOpener } from "./secret-loader.ts";
import type { AgentConfig } from "./config.ts";
import { startConnection } from "./connection.ts";
import type { ConnectionOptions, ConnectionState, ServerCommand } from "./connection.ts";
import { Enforcer } from "./enforcer.ts";
import type { Clock } from "./enforcer.ts";
import { ExecaRunner } from "./process/execa-runner.ts";
import type { CommandRunner } from "./process/runner.ts";

/** This agent's version (semver, from agent/package.json), sent at enrolment and in every `hello`. */
export const AGENT_VERSION: string = pkg.version;

/** Connection tuning passed through to {@link startConnection} (milliseconds). */
export type ConnectionTuning = Pick<
  ConnectionOptions,
  "initialDelayMs" | "maxDelayMs" | "random" | "handshakeTimeoutMs" | "authTimeoutMs" | "pingIntervalMs"
>;

/** Options of {@link startAgent}. Only `config` is required. */
export interface StartAgentOptions {
  /** The resolved config (see `loadConfig`). */
  readonly config: AgentConfig;
  /** Fixed backends by BackendConfig key, or a resolver; default a `DriverSet` of every registered driver. */
  readonly backends?: ReadonlyMap<string, Backend> | DriverResolver;
  /** Command runner for the default drivers and capability detection; default `new ExecaRunner()`. */
  readonly runner?: CommandRunner;
  /** HTTP client of the default drivers (webhooks, vendor APIs); default `new NodeHttpClient()`. */
  readonly http?: HttpClient;
  /** Capability detection; default `detectCapabilities({ runner, scriptsEnabled, haproxySocket })`. */
  readonly detect?: () => Promise<AgentCapabilities>;
  /** Clock of the enforcer (expiry, drift timers); default the system clock. */
  readonly clock?: Clock;
  /** Logger; default pino at `config.logLevel` on stderr. */
  readonly logger?: Logger;
  /** Version reported to the server; default {@link AGENT_VERSION}. */
  readonly version?: string;
  /** Reconnect/handshake tuning (tests). */
  readonly connection?: ConnectionTuning;
  /** Aborting it stops the agent like `stop()`. */
  readonly signal?: AbortSignal;
}

/** A running agent. */
export interface RunningAgent {
  /** Stops the connection, then the enforcer (state flushed). Idempotent. */
  stop(): Promise<void>;
  /** True while the server has welcomed this agent. */
  connected(): boolean;
  /** The connection's current state. */
  connectionState(): ConnectionState;
  /** The reconciler (desired state, drift repair, expiry). */
  readonly enforcer: Enforcer;
}

/**
 * Starts the agent: enforcer (loads and reconciles the persisted state), then the connection, which
 * reports capabilities in `hello` and again on `refresh-capabilities`, and feeds `sync`/`apply` to the
 * enforcer, acking each.
 * @throws Error when the enforcer cannot start or the signing key is unusable.
 */
export async function startAgent(options: StartAgentOptions): Promise<RunningAgent> {
  const { config } = options;
  const logger =
    options.logger ?? pino({ level: config.logLevel, base: { name: "postern-agent" } }, pino.destination(2));
  const version = options.version ?? AGENT_VERSION;
  const runner = options.runner ?? new ExecaRunner();
  const backends =
    options.backends ??
    new DriverSet({
      runner,
      http: options.http ?? new NodeHttpClient(),
      useSudo: config.useSudo,
      scriptsEnabled: config.scriptsEnabled,
      scriptTimeoutMs: config.scriptTimeoutSeconds * 1000,
      knocproxyDir: config.knocproxyDir,
      ...lazySecretOpener(config.boxPublicKey, config.boxSecretKey),
      logger: logger.child({ part: "drivers" }),
    });
  const detect =
    options.detect ??
    (() =>
      detectCapabilities({
        runner,
        scriptsEnabled: config.scriptsEnabled,
        ...(config.haproxySocket !== undefined ? { haproxySocket: config.haproxySocket } : {}),
      }));

  const reclaim = (after: string): void => {
    const ms = reclaimMemory();
    if (ms !== null) logger.debug({ ms: Math.round(ms) }, `memory reclaimed after ${after}`);
  };
  const enforcer = new Enforcer({
    backends,
    stateFile: config.stateFile,
    driftCheckSeconds: config.driftCheckSeconds,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: logger.child({ part: "enforcer" }),
    onDriftChecked: (listed) => {
      // Large listings outlived the young generation: give their memory back (reclaim.ts).
      if (listed >= RECLAIM_AFTER_LISTED) reclaim("the drift check");
    },
  });
  await enforcer.start();

  const abort = new AbortController();

  const onMessage = async (message: ServerCommand): Promise<AgentToServer | undefined> => {
    switch (message.type) {
      case "sync":
        return enforcer.sync(message);
      case "apply":
        return enforcer.apply(message);
      case "refresh-capabilities":
        return { type: "capabilities", seq: message.seq, capabilities: await detect() };
    }
  };

  let connection: ReturnType<typeof startConnection>;
  try {
    connection = startConnection({
      server: config.servers,
      agentId: config.agentId,
      serverPublicKey: config.serverPublicKey,
      ...(config.serverPin ? { serverPin: config.serverPin } : {}),
      signingKey: config.signingPrivateKey,
      // Frames authenticated with a per-connection HMAC key derived from its box key (docs/agent-protocol.md step 4).
      boxKeys: { publicKey: config.boxPublicKey, secretKey: config.boxSecretKey },
      version,
      capabilities: detect,
      onMessage,
      onReplyWritten: (type) => {
        // A full sync's frame, parsed message and ack are garbage now: give the memory back (reclaim.ts).
        if (type === "sync") reclaim("the sync");
      },
      signal: abort.signal,
      logger: logger.child({ part: "connection" }),
      ...options.connection,
    });
  } catch (err) {
    await enforcer.stop();
    throw err;
  }
  logger.info({ agentId: config.agentId, servers: config.servers, version }, "agent started");

  let stopping: Promise<void> | undefined;
  const onOuterAbort = (): void => void stop();
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      abort.abort();
      options.signal?.removeEventListener("abort", onOuterAbort);
      await connection.done;
      await enforcer.stop();
      // Drivers hold processes and pending writes (the ipset shell, HAProxy's ACL file): end them by PID and flush.
      if (backends instanceof DriverSet) await backends.close();
      logger.info("agent stopped");
    })();
    return stopping;
  };
  if (options.signal?.aborted) void stop();
  else options.signal?.addEventListener("abort", onOuterAbort, { once: true });

  return {
    stop,
    connected: () => connection.connected(),
    connectionState: () => connection.state(),
    enforcer,
  };
}

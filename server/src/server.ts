/**
 * Starts a Postern server: opens the database under the data directory (migrating it when asked),
 * builds the services and the app, listens on host:port, routes agent WebSocket upgrades to the hub,
 * and runs the expiry sweep every 250 ms (entries leave within 1 s of their expiry; folded audit
 * entries are summed up when their minute is over).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Server as HttpsServer } from "node:https";
import { serve } from "@hono/node-server";
import { AGENT_CONNECT_PATH } from "@postern/shared";
import { databasePath, migrateDatabase, openConfiguredDatabase, pendingMigrations } from "./db/index.ts";
import { writeServerPid } from "./db/server-pid.ts";
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import { createLogger } from "./logger.ts";
import type { Logger } from "./logger.ts";
import { createServices } from "./services/index.ts";
import type { Services } from "./services/index.ts";
import { createApp } from "./app.ts";
import { readJsBundleHash } from "./http/static-web.ts";
import { parseTrustedProxies } from "./http/client-address.ts";
import { GelfForwarder } from "./services/gelf/forwarder.ts";
import { flushFoldedAudits } from "./services/audit-fold.ts";
import { loadOrCreateSecretKey } from "./services/secrets/at-rest.ts";
import { loadOrCreateServerSigningKey } from "./agent-hub/server-key.ts";
import { startDiscovery } from "./http/discovery.ts";
import type { DiscoveryTlsFiles } from "./http/discovery.ts";
import { getSetting } from "./services/settings.ts";
import { loadTlsCredentials, readCredentials } from "./http/tls.ts";
import { tlsPinOf } from "./services/agent-install.ts";
import type { TlsConfig } from "./config/index.ts";
import { randomUUID } from "node:crypto";
import { ReplicaCluster } from "./agent-hub/cluster.ts";

/** Default location of the built web app. */
export const DEFAULT_WEB_DIR = fileURLToPath(new URL("../../web/dist", import.meta.url));
/** How long a starting replica waits for the others to say which agents they hold, in milliseconds. */
const CLUSTER_SETTLE_MS = 500;

/** How often expired grants and sessions are swept, in milliseconds. */
export const SWEEP_INTERVAL_MS = 250;

/** Options of `startServer`. `listen` is "host:port" (port 0 picks a free one). */
export interface StartOptions {
  dataDir: string;
  /** PostgreSQL URL (POSTERN_DATABASE_URL); absent: the SQLite file in `dataDir`. */
  databaseUrl?: string;
  listen: string;
  clock?: Clock;
  logger?: Logger;
  logLevel?: string;
  /** Apply pending migrations first (tests, the embedded default). Otherwise pending migrations are an error. */
  migrate?: boolean;
  webDir?: string;
  /** Reverse proxies (IPs or CIDRs) whose X-Forwarded-For names the client. */
  trustedProxies?: readonly string[];
  /** Ed25519 public keys trusted to sign licence keys (POSTERN_LICENSE_PUBLIC_KEYS entries). */
  licensePublicKeys?: readonly string[];
  /**
   * Extra IP-discovery listeners on the same host (POSTERN_DISCOVERY_PORTS; TLS files for https).
   * Ports given here win; without them the "additional client IP addresses" settings apply
   * (`discoveryPortsAtStart`).
   */
  discovery?: { ports: readonly number[]; tls?: DiscoveryTlsFiles | undefined };
  /** Lifetime of agent install tokens in hours (POSTERN_AGENT_TOKEN_HOURS; default 24). */
  agentTokenHours?: number;
  /** TLS of the main listener (POSTERN_TLS*); plain http when absent or "off". */
  tls?: TlsConfig;
  /** The agent .deb served at /install/postern-agent.deb (default: the one the server package ships). */
  agentPackage?: string;
  /** Bearer token for /metrics from other hosts than loopback (POSTERN_METRICS_TOKEN). */
  metricsToken?: string;
  /** Retry schedule, timeout and poll interval of event webhook deliveries (tests; default: the dispatcher's). */
  webhookDelivery?: Parameters<typeof createServices>[0]["webhookDelivery"];
}

/**
 * The IP-discovery ports to listen on at start: the configured ports (POSTERN_DISCOVERY_PORTS) when
 * any are given, else the AdditionalClientIPPorts setting while AdditionalClientIPs is on, else none.
 * The settings are read at start: a change made in the admin console applies at the next start.
 * Configured ports that cannot be bound stop the start; setting ports that cannot be bound are
 * logged and left out (a setting must not keep the server from starting).
 */
export async function discoveryPortsAtStart(
  db: Services["db"],
  configured: readonly number[],
): Promise<readonly number[]> {
  if (configured.length > 0) return configured;
  return (await getSetting(db, "AdditionalClientIPs")) ? await getSetting(db, "AdditionalClientIPPorts") : [];
}

/** A running server. */
export interface RunningServer {
  /** Base URL, https:// when TLS is on. */
  url: string;
  port: number;
  services: Services;
  /** SHA-256 fingerprint of the served certificate (colon-separated hex), when TLS is on. */
  tlsFingerprint?: string;
  /**
   * Reads the TLS certificate and key files again and serves new connections with them (SIGHUP).
   * A file that cannot be read or a key that does not match keeps the old pair and throws.
   * Does nothing without TLS; a self-signed certificate is read again from the data directory.
   */
  reloadTls(): Promise<void>;
  close(): Promise<void>;
}

/** Parses "host:port" ("[::1]:8080" for IPv6); throws on a bad value. */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d{1,5})$/.exec(listen.trim());
  const port = Number(m?.[2]);
  if (!m || !m[1] || port > 65535) throw new Error(`POSTERN_LISTEN must be host:port, got "${listen}"`);
  return { host: m[1], port };
}

/**
 * Starts the server (and the IP-discovery listeners, http/discovery.ts: `discoveryPortsAtStart`). Throws when
 * the database has pending migrations and `migrate` is not set ("run postern db migrate"), or when
 * an address cannot be bound.
 */
export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const { host, port } = parseListen(opts.listen);
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const tlsConfig: TlsConfig = opts.tls ?? { mode: "off" };
  let tls = await loadTlsCredentials(tlsConfig, opts.dataDir, [host]);
  const log = opts.logger ?? createLogger(opts.logLevel ?? "info");
  const clock = opts.clock ?? systemClock;
  const database = openConfiguredDatabase(
    { url: opts.databaseUrl, file: databasePath(opts.dataDir) },
    { applicationName: "postern-server" },
  );
  if (opts.migrate) await migrateDatabase(database.db);
  else if ((await pendingMigrations(database.db)) > 0) {
    await database.close();
    throw new Error("the database has pending migrations: run `postern db migrate` first");
  }
  const webDir = opts.webDir ?? DEFAULT_WEB_DIR;
  const secretKey = loadOrCreateSecretKey(join(opts.dataDir, "secret.key"));
  const services = createServices({
    db: database.db,
    clock,
    log,
    jsBundleHash: readJsBundleHash(webDir),
    secretKey,
    licensePublicKeys: opts.licensePublicKeys ?? [],
    serverKey: loadOrCreateServerSigningKey(opts.dataDir),
    ...(opts.agentTokenHours !== undefined ? { agentTokenLifetimeMs: opts.agentTokenHours * 3_600_000 } : {}),
    ...(opts.webhookDelivery ? { webhookDelivery: opts.webhookDelivery } : {}),
  });
  await services.adminSettings.applyDebugMode();
  // On PostgreSQL this server may be one of several replicas: they share their agents (cluster.ts).
  const cluster = await ReplicaCluster.start({
    db: database.db,
    hub: services.hub,
    engine: services.engine,
    log,
    replicaId: randomUUID(),
  });
  if (cluster) {
    // Wait for the other replicas to say which agents they hold before marking the rest offline.
    await new Promise((resolve) => setTimeout(resolve, CLUSTER_SETTLE_MS));
    await services.engine.recoverAgentsNotHeld();
  } else await services.engine.recoverAfterRestart();
  const trustedProxies = parseTrustedProxies(opts.trustedProxies ?? []);
  const pinOf = (t: typeof tls) => (t && tlsConfig.mode === "self-signed" ? tlsPinOf(t.cert) : undefined);
  let pin = pinOf(tls);
  const app = createApp(services, webDir, trustedProxies, opts.metricsToken, {
    selfSignedPin: () => pin,
    ...(opts.agentPackage !== undefined ? { agentPackage: opts.agentPackage } : {}),
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port,
        ...(tls ? { createServer: createHttpsServer, serverOptions: { cert: tls.cert, key: tls.key } } : {}),
      },
      () => resolve(s as Server),
    ) as Server;
    s.once("error", reject);
  });
  const configuredPorts = opts.discovery?.ports ?? [];
  const discoveryPorts = await discoveryPortsAtStart(services.db, configuredPorts);
  const discovery =
    discoveryPorts.length === 0
      ? undefined
      : await startDiscovery({
          services,
          host,
          ports: discoveryPorts,
          trustedProxies,
          ...(opts.discovery?.tls ? { tls: opts.discovery.tls } : {}),
        }).catch(async (err: unknown) => {
          // Ports from the settings must not keep the server from starting: log and serve without them.
          if (configuredPorts.length === 0) {
            log.error({ err, ports: discoveryPorts }, "additional client IP addresses: discovery ports not bound");
            return undefined;
          }
          await services.hub.close();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          await database.close();
          throw err;
        });
  server.on("upgrade", (req, socket, head) => {
    if (new URL(req.url ?? "/", "http://x").pathname === AGENT_CONNECT_PATH)
      services.hub.handleUpgrade(req, socket, head);
    else socket.destroy();
  });
  // One sweep at a time: a tick that finds the last sweep still running is skipped.
  let sweeping: Promise<void> | null = null;
  const sweepOnce = async (): Promise<void> => {
    try {
      await services.engine.sweep();
      await services.approvals.sweep();
      await flushFoldedAudits(database.db, clock.now());
    } catch (err) {
      log.error({ err }, "expiry sweep failed");
    } finally {
      sweeping = null;
    }
  };
  const sweep = setInterval(() => {
    sweeping ??= sweepOnce();
  }, SWEEP_INTERVAL_MS);
  const gelf = new GelfForwarder({ db: database.db, clock, log });
  gelf.start();
  services.webhookDispatcher.start();
  // Tells `postern db restore` that a server runs on this data directory.
  const removePid = writeServerPid(opts.dataDir);
  const actualPort = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const url = `${tls ? "https" : "http"}://${urlHost}:${actualPort}`;
  log.info({ url, ...(tls ? { tlsFingerprint: tls.fingerprint } : {}) }, "postern server listening");
  return {
    url,
    port: actualPort,
    services,
    ...(tls ? { tlsFingerprint: tls.fingerprint } : {}),
    reloadTls: async () => {
      if (!tls) return;
      const next =
        tlsConfig.mode === "files"
          ? readCredentials(tlsConfig.certFile, tlsConfig.keyFile)
          : await loadTlsCredentials(tlsConfig, opts.dataDir, [host]);
      if (!next) return;
      (server as unknown as HttpsServer).setSecureContext({ cert: next.cert, key: next.key });
      tls = next;
      pin = pinOf(next);
      log.info({ tlsFingerprint: next.fingerprint }, "TLS certificate reloaded");
    },
    close: async () => {
      clearInterval(sweep);
      await sweeping;
      await discovery?.close();
      await gelf.stop();
      await services.webhookDispatcher.stop();
      await services.hub.close();
      await cluster?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await database.close();
      removePid();
    },
  };
}

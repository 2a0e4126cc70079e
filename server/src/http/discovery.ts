/**
 * Postern's own IP discovery (docs/reference.md user-portal §7: "An external IP-discovery service is called at the
 * address in IPApi on ports 443, 222, 3389 and 8000; the discovered IPs are then sent to
 * /log_ips"). A self-hosted install needs no outside service: the server answers `GET /api/ip` on
 * its main listener and, when POSTERN_DISCOVERY_PORTS names ports, on one extra listener per port.
 *
 * The extra listeners answer only `GET /api/ip` (and its CORS preflight); every other request is
 * 404 `{Err: "Not found"}`. The answer is `{IP}`, the caller's address as this server sees it (the
 * socket peer, or the client behind a trusted proxy), and — when the request carries the user
 * session cookie — that address is recorded as observed for the session (CGNATOpen ACLs grant it;
 * POST /log_ips confirms only observed addresses). A missing or dead session is not an error:
 * discovery still answers.
 *
 * The portal calls the extra ports cross-origin (another port is another origin) with credentials,
 * so the answers carry `Access-Control-Allow-Origin` (the request's Origin when its host name is
 * this server's own host name, else the PublicURL setting's origin), `Access-Control-Allow-Credentials:
 * true` and `Vary: Origin`.
 *
 * TLS: a portal served over https may only call https discovery URLs (mixed content is blocked, and
 * Secure cookies are not sent over http). Either give the listeners a certificate
 * (POSTERN_DISCOVERY_TLS_CERT / POSTERN_DISCOVERY_TLS_KEY, PEM files) or terminate TLS for each
 * port in front of Postern (a proxy listed in POSTERN_TRUSTED_PROXIES that sets X-Forwarded-For).
 */
import { readFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "hono";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { Errors } from "@postern/shared";
import type { Cidr } from "@postern/shared";
import type { Services } from "../services/index.ts";
import { getSetting } from "../services/settings.ts";
import { baseMiddleware, readSessionCookie, USER_COOKIE } from "./context.ts";
import type { AppEnv } from "./context.ts";
import { onError } from "./on-error.ts";
import { publicUrl } from "./public-url.ts";
import { securityHeaders } from "./security-headers.ts";

/**
 * The IP-discovery URL the portal asks (GET /system_status IPApi): "" when the DiscoverIP setting is
 * off, the DiscoverIPURL setting when set, else this server's own `<PublicURL>/api/ip`.
 */
export async function ipApiUrl(c: Context<AppEnv>): Promise<string> {
  const db = c.get("services").db;
  if (!(await getSetting(db, "DiscoverIP"))) return "";
  return (await getSetting(db, "DiscoverIPURL")) || `${await publicUrl(c)}/api/ip`;
}

/** The ports an outside discovery service (the DiscoverIPURL setting) is asked on (docs/reference.md user-portal §7). */
export const SPEC_DISCOVERY_PORTS: readonly number[] = [443, 222, 3389, 8000];

/** Paths of a PEM certificate (chain) and its private key for https discovery listeners. */
export interface DiscoveryTlsFiles {
  certFile: string;
  keyFile: string;
}

/** Options of `startDiscovery`. */
export interface DiscoveryOptions {
  services: Services;
  /** Host (address) to bind, as the main listener's ("127.0.0.1", "::", "0.0.0.0"). */
  host: string;
  /** TCP ports to listen on, 1–65535 (0 picks a free port: tests). */
  ports: readonly number[];
  /** Reverse proxies whose X-Forwarded-For names the client (as for the main listener). */
  trustedProxies?: readonly Cidr[];
  /** Serve https with this certificate and key; plain http when absent. */
  tls?: DiscoveryTlsFiles;
}

/** Running discovery listeners. */
export interface DiscoveryListeners {
  /** The bound ports, in the order given (a 0 replaced by the port picked). */
  readonly ports: readonly number[];
  /** Closes every listener (and its open connections); idempotent. */
  close(): Promise<void>;
}

/** Ports served per Services instance: GET /system_status reports them as IPApiPorts. */
const portsByServices = new WeakMap<Services, readonly number[]>();

/** The discovery ports listening for these services ([] when none). */
export function discoveryPortsOf(services: Services): readonly number[] {
  return portsByServices.get(services) ?? [];
}

/**
 * Answers GET /api/ip on any listener: `{IP}` with the caller's address, recorded as observed for
 * the user session of the cookie when there is a live one (port = the listener's port).
 */
export async function answerIpDiscovery(c: Context<AppEnv>): Promise<Response> {
  const services = c.get("services");
  const token = await readSessionCookie(c, USER_COOKIE);
  if (token) {
    try {
      const session = await services.userSessions.resolve(token);
      await services.status.observe(session, c.get("clientIp"), listenerPort(c.req.url));
    } catch {
      // no live session: discovery only
    }
  }
  c.header("Cache-Control", "no-store");
  return c.json({ IP: c.get("clientIp") }, 200);
}

/** The port of a request URL, the scheme's default when none is written. */
function listenerPort(url: string): number {
  const u = new URL(url);
  return Number(u.port || (u.protocol === "https:" ? 443 : 80));
}

/**
 * The origin allowed to read a discovery answer with credentials: the request's Origin when its
 * host name equals the host name the request was sent to (the portal on this server, another
 * port), else the PublicURL setting's origin; undefined when neither applies (no CORS headers).
 */
export function allowedOrigin(origin: string | undefined, requestUrl: string, publicUrl: string): string | undefined {
  if (!origin) return undefined;
  const from = URL.parse(origin);
  if (
    from &&
    (from.protocol === "http:" || from.protocol === "https:") &&
    from.hostname === new URL(requestUrl).hostname
  )
    return from.origin;
  const configured = publicUrl ? URL.parse(publicUrl) : null;
  return configured ? configured.origin : undefined;
}

/** Sets the CORS answer headers for a discovery request (see `allowedOrigin`). */
async function cors(c: Context<AppEnv>): Promise<void> {
  c.header("Vary", "Origin");
  const allow = allowedOrigin(c.req.header("origin"), c.req.url, await getSetting(c.get("services").db, "PublicURL"));
  if (allow === undefined) return;
  c.header("Access-Control-Allow-Origin", allow);
  c.header("Access-Control-Allow-Credentials", "true");
}

/**
 * The Hono app of a discovery listener: GET /api/ip with CORS, its OPTIONS preflight (204, also
 * answering Chrome's Private Network Access preflight), and 404 `{Err: "Not found"}` for anything else.
 */
export function createDiscoveryApp(services: Services, trustedProxies: readonly Cidr[] = []) {
  const app = new Hono<AppEnv>();
  app.use(securityHeaders({ crossOriginResourcePolicy: "same-site" }));
  app.use(baseMiddleware(services, trustedProxies));
  app
    // OPTIONS /api/ip: CORS preflight (the portal's plain GET needs none, but a browser may send one).
    .options("/api/ip", async (c) => {
      await cors(c);
      c.header("Access-Control-Allow-Methods", "GET");
      c.header("Access-Control-Allow-Headers", "Accept");
      c.header("Access-Control-Max-Age", "600");
      if (c.req.header("access-control-request-private-network") === "true")
        c.header("Access-Control-Allow-Private-Network", "true");
      return c.body(null, 204);
    })
    // GET /api/ip: the caller's address (see answerIpDiscovery).
    .get("/api/ip", async (c) => {
      await cors(c);
      return await answerIpDiscovery(c);
    });
  app.all("*", (c) => c.json({ Err: Errors.notFound.err }, 404));
  app.onError(onError(services.log));
  return app;
}

/**
 * Starts one discovery listener per port on `host` and registers the ports for
 * GET /system_status (IPApiPorts). With `tls` the listeners serve https (the PEM files are read
 * once, at start). Throws when a port cannot be bound or a TLS file cannot be read; listeners
 * already started are closed first.
 */
export async function startDiscovery(opts: DiscoveryOptions): Promise<DiscoveryListeners> {
  const app = createDiscoveryApp(opts.services, opts.trustedProxies ?? []);
  const tls = opts.tls ? { cert: readFileSync(opts.tls.certFile), key: readFileSync(opts.tls.keyFile) } : undefined;
  const servers: Server[] = [];
  const bound: number[] = [];
  const close = async (): Promise<void> => {
    const all = servers.splice(0);
    await Promise.all(
      all.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    if (portsByServices.get(opts.services) === bound) portsByServices.delete(opts.services);
  };
  try {
    for (const port of opts.ports) {
      const server = await new Promise<Server>((resolve, reject) => {
        const s = serve(
          {
            fetch: app.fetch,
            hostname: opts.host,
            port,
            ...(tls ? { createServer: createHttpsServer, serverOptions: tls } : {}),
          },
          () => resolve(s as Server),
        ) as Server;
        s.once("error", reject);
      });
      servers.push(server);
      bound.push((server.address() as AddressInfo).port);
    }
  } catch (err) {
    await close();
    throw err;
  }
  portsByServices.set(opts.services, bound);
  opts.services.log.info({ ports: bound, tls: tls !== undefined }, "IP discovery listening");
  return { ports: bound, close };
}

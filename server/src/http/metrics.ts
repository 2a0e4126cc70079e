/**
 * Prometheus metrics over HTTP (docs/operations.md "Metrics"): a middleware that counts every
 * request by its route pattern and status, sign-in steps by route, and public allowlist reads; and
 * `GET /metrics`, which answers callers on loopback that came through no proxy, and others only
 * with `Authorization: Bearer <POSTERN_METRICS_TOKEN>` (401 then; 403 when no token is configured).
 */
import { timingSafeEqual, createHash } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { normaliseIp } from "@postern/shared";
import type { ServerMetrics, SignInAudience, SignInMethod } from "../services/metrics.ts";
import { socketAddress } from "./context.ts";
import type { AppEnv } from "./context.ts";

/** Route pattern of a sign-in step → what it signs in (method POST). */
const SIGN_IN_ROUTES: ReadonlyMap<string, [SignInAudience, SignInMethod]> = new Map([
  ["/api/login", ["user", "password"]],
  ["/api/otp/verify", ["user", "totp"]],
  ["/api/otp/passkeys/authentication", ["user", "passkey"]],
  ["/api/saml/acs", ["user", "saml"]],
  ["/api/v1/user_sessions", ["user", "apikey"]],
  ["/api/admin/login", ["admin", "password"]],
  ["/api/admin/otp/verify", ["admin", "totp"]],
  ["/api/admin/otp/passkeys/authentication", ["admin", "passkey"]],
  ["/api/admin/saml/acs", ["admin", "saml"]],
]);

/** Route pattern prefix of the public allowlist reads. */
const ALLOWLIST_ROUTE = "/api/v1/allowlists/";

/** Counts each request once it is answered (see the file comment). */
export function metricsMiddleware(metrics: ServerMetrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const route = routeOf(c);
    const status = c.res.status;
    metrics.httpRequest(c.req.method, route, status, (performance.now() - started) / 1000);
    const signIn = c.req.method === "POST" ? SIGN_IN_ROUTES.get(route) : undefined;
    if (signIn) metrics.signIn(signIn[0], signIn[1], signInSucceeded(c));
    else if (c.req.method === "GET" && route.startsWith(ALLOWLIST_ROUTE))
      metrics.allowlistRead(status === 304 ? "not_modified" : status < 300 ? "ok" : "refused");
  };
}

/** The matched route pattern; "unmatched" when no route answered (e.g. a 404 of the app). */
function routeOf(c: Context<AppEnv>): string {
  try {
    return routePath(c) || "unmatched";
  } catch {
    return "unmatched";
  }
}

/** A sign-in step succeeded: a 2xx, or a redirect that carries no `error` (SAML ACS). */
function signInSucceeded(c: Context<AppEnv>): boolean {
  const status = c.res.status;
  if (status >= 400) return false;
  if (status >= 300) return !/[?&]error=/.test(c.res.headers.get("location") ?? "");
  return true;
}

/**
 * GET /metrics: the exposition text for loopback callers that came through no proxy (no
 * X-Forwarded-For or Forwarded header: a reverse proxy on the same host must not open it to the
 * world), or for a caller with the bearer `token`.
 */
export function metricsHandler(metrics: ServerMetrics, token: string | undefined) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    if (!directFromLoopback(c) && !hasToken(c.req.header("authorization"), token)) {
      if (token === undefined) return c.text("metrics are served to loopback only; set POSTERN_METRICS_TOKEN\n", 403);
      return c.text("a bearer token is required\n", 401, { "WWW-Authenticate": 'Bearer realm="metrics"' });
    }
    const { body, contentType } = await metrics.render();
    return c.body(body, 200, { "Content-Type": contentType, "Cache-Control": "no-store" });
  };
}

function directFromLoopback(c: Context<AppEnv>): boolean {
  if (c.req.header("x-forwarded-for") !== undefined || c.req.header("forwarded") !== undefined) return false;
  const ip = normaliseIp(socketAddress(c));
  if (!ip) return false;
  return ip.family === "inet" ? ip.ip.startsWith("127.") : ip.ip === "::1";
}

function hasToken(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined || header === undefined) return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}

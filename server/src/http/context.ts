/**
 * The Hono environment shared by every route: the services, the caller's address and the resolved
 * sessions. Middleware here: client address, CSRF protection for cookie-authenticated writes
 * (docs/reference.md design "Security"), and the user / admin session guards.
 */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Errors, cidrContains } from "@postern/shared";
import type { Cidr } from "@postern/shared";
import { clientAddress, overTls } from "./client-address.ts";
import type { Services } from "../services/index.ts";
import type { UserSessionContext } from "../services/auth/user-sessions.ts";
import type { AdminSessionContext } from "../services/auth/admin-sessions.ts";
import { getSetting, isHttpsUrl } from "../services/settings.ts";
import { AppError } from "../errors.ts";
import type { TlsPin } from "../services/agent-install.ts";

/** Variables set by middleware. */
export interface AppEnv {
  Variables: {
    services: Services;
    clientIp: string;
    /** True when `clientIp` is a trusted proxy's own address (it called directly, without X-Forwarded-For). */
    clientIsTrustedProxy: boolean;
    /** The request came over TLS (directly, or per a trusted proxy's X-Forwarded-Proto). */
    tls: boolean;
    /** The pins of the server's self-signed certificate (undefined for plain http or a certificate of the admin's). */
    serverTlsPin: TlsPin | undefined;
    userSession: UserSessionContext;
    adminSession: AdminSessionContext;
  };
}

/** Cookie carrying the user session id (`__Host-postern_session` when cookies are secure, see `secureCookies`). */
export const USER_COOKIE = "postern_session";
/** Cookie carrying the admin session id (`__Host-postern_admin_session` when cookies are secure). */
export const ADMIN_COOKIE = "postern_admin_session";
/** The prefix of secure cookies: Secure, Path=/, no Domain, so no other host or plain-http page can set them. */
export const HOST_COOKIE_PREFIX = "__Host-";

/**
 * Whether this request's cookies are Secure and `__Host-` prefixed: it came over TLS (directly, or
 * per a trusted proxy), or the PublicURL setting is https (the browser is on https behind a proxy
 * Postern does not know). Plain http elsewhere (e.g. scripts/start.sh on loopback) keeps plain names.
 */
export async function secureCookies(c: Context<AppEnv>): Promise<boolean> {
  if (c.get("tls")) return true;
  return isHttpsUrl(await getSetting(c.get("services").db, "PublicURL"));
}

/** The name a cookie has on this request: `__Host-<name>` when `secureCookies`, else `name`. */
export async function cookieName(c: Context<AppEnv>, name: string): Promise<string> {
  return (await secureCookies(c)) ? `${HOST_COOKIE_PREFIX}${name}` : name;
}

/**
 * The value of a session cookie (USER_COOKIE, ADMIN_COOKIE) under this request's name: over TLS only
 * the `__Host-` cookie counts, so a cookie planted by a sibling host or a plain-http page is ignored.
 */
export async function readSessionCookie(c: Context<AppEnv>, name: string): Promise<string | undefined> {
  return getCookie(c, await cookieName(c, name));
}

/** The TCP peer's address as the socket gives it ("" when there is none): not the client behind a proxy. */
export function socketAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? "";
  } catch {
    return "";
  }
}

/**
 * Puts the services and the normalised address of the caller on the context (the socket address,
 * or the client behind a trusted proxy: see client-address.ts). A trusted proxy's malformed
 * X-Forwarded-For (or one naming only trusted proxies) answers 400 "Bad request".
 */
export function baseMiddleware(services: Services, trustedProxies: readonly Cidr[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("services", services);
    const peer = socketAddress(c);
    c.set("tls", overTls(c.req.url, peer, c.req.header("x-forwarded-proto"), trustedProxies));
    const client = clientAddress(peer, c.req.header("x-forwarded-for"), trustedProxies);
    if (client === null) throw new AppError(Errors.badRequest, "X-Forwarded-For");
    c.set("clientIp", client);
    c.set(
      "clientIsTrustedProxy",
      trustedProxies.some((cidr) => cidrContains(cidr, client)),
    );
    await next();
  };
}

/**
 * The caller's address for what lets a user in (sign-in, grants, the session's followed address):
 * `clientIp`, except that a trusted proxy's own address is never a user's (a grant would open the
 * proxy to everyone behind it, #8 item 12): such a call answers 400 "Bad request" with Extra
 * "X-Forwarded-For". Agents, admins and tools on the proxy's host may still call directly.
 */
export function userAddress(c: Context<AppEnv>): string {
  if (c.get("clientIsTrustedProxy")) throw new AppError(Errors.badRequest, "X-Forwarded-For");
  return c.get("clientIp");
}

/**
 * The SAML assertion consumer services: the IdP's auto-submitted form posts there cross-site, so
 * they are the one exception to the CSRF guard (docs/reference.md design "Security"); the signed, one-time
 * response is their protection (services/saml/).
 */
export const CSRF_EXEMPT_POSTS: ReadonlySet<string> = new Set(["/api/saml/acs", "/api/admin/saml/acs"]);

/**
 * Refuses cross-site writes: a state-changing request must not come from another site
 * (Sec-Fetch-Site cross-site / same-site, or an Origin whose host differs from Host), and a body
 * must be JSON. Requests without Origin and Sec-Fetch-Site (CLI, agents) pass, and so do POSTs to
 * exactly the paths of CSRF_EXEMPT_POSTS.
 */
export function csrfGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const method = c.req.method;
    if (
      method !== "GET" &&
      method !== "HEAD" &&
      method !== "OPTIONS" &&
      !(method === "POST" && CSRF_EXEMPT_POSTS.has(c.req.path))
    ) {
      const site = c.req.header("sec-fetch-site");
      if (site && site !== "same-origin" && site !== "none") throw new AppError(Errors.unauthorised);
      const origin = c.req.header("origin");
      if (origin) {
        if (URL.parse(origin)?.host !== c.req.header("host")) throw new AppError(Errors.unauthorised);
      }
      const type = c.req.header("content-type");
      if (type !== undefined && !type.startsWith("application/json")) throw new AppError(Errors.unauthorised);
    }
    await next();
  };
}

/**
 * The live user session of this request's cookie (401 err.invalidSession otherwise), by the rule of
 * `readSessionCookie`, with no statement of its own for the PublicURL setting (issue #13 item 2: one
 * statement per status read): over TLS only `__Host-postern_session` counts; on plain http the one
 * session cookie sent counts when it is the name PublicURL's scheme gives, which the session lookup
 * reads with the session (`fromHostCookie`). A request carrying both names is judged as before.
 */
async function userSessionOfRequest(c: Context<AppEnv>): Promise<UserSessionContext> {
  const sessions = c.get("services").userSessions;
  const cookies = getCookie(c);
  const host = cookies[`${HOST_COOKIE_PREFIX}${USER_COOKIE}`];
  if (c.get("tls")) return sessions.resolve(host);
  const plain = cookies[USER_COOKIE];
  if (host !== undefined && plain !== undefined) return sessions.resolve(await readSessionCookie(c, USER_COOKIE));
  return sessions.resolve(host ?? plain, { fromHostCookie: host !== undefined });
}

/** Requires a live user session (401 err.invalidSession otherwise; `userSessionOfRequest`). */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("userSession", await userSessionOfRequest(c));
  await next();
};

/** Requires a live admin session (401 err.invalidSession otherwise). */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("adminSession", await c.get("services").adminSessions.resolve(await readSessionCookie(c, ADMIN_COOKIE)));
  await next();
};

/**
 * Sets a session cookie: HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` prefixed when
 * `secureCookies`.
 */
export async function setSessionCookie(c: Context<AppEnv>, name: string, token: string, endsAt: number): Promise<void> {
  const secure = await secureCookies(c);
  setCookie(c, secure ? `${HOST_COOKIE_PREFIX}${name}` : name, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure,
    path: "/",
    expires: new Date(endsAt),
  });
}

/** Clears a session cookie (under this request's name). */
export async function clearSessionCookie(c: Context<AppEnv>, name: string): Promise<void> {
  const secure = await secureCookies(c);
  deleteCookie(c, secure ? `${HOST_COOKIE_PREFIX}${name}` : name, { path: "/", secure });
}

/** The admin acting, for audit entries. */
export function actorOf(c: Context<AppEnv>): { adminName: string; ip: string } {
  return { adminName: c.get("adminSession").userName, ip: c.get("clientIp") };
}

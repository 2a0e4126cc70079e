/**
 * The Hono environment shared by every route: the services, the caller's address and the resolved
 * sessions. Middleware here: client address, CSRF protection for cookie-authenticated writes
 * (design.md "Security"), and the user / admin session guards.
 */
import { Errors } from "@postern/shared";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Cidr } from "@postern/shared";
import { clientAddress, overTls } from "./client-address.ts";
import type { Services } from "../services/index.ts";
import type { UserSessionContext } from "../services/auth/user-sessions.ts";
import type { AdminSessionContext } from "../services/auth/admin-sessions.ts";
import { AppError } from "../errors.ts";

/** Variables set by middleware. */
export interface AppEnv {
  Variables: {
    services: Services;
    clientIp: string;
    /** The request came over TLS (directly, or per a trusted proxy's X-Forwarded-Proto). */
    tls: boolean;
    userSession: UserSessionContext;
    adminSession: AdminSessionContext;
  };
}

/** Cookie carrying the user session id. */
export const USER_COOKIE = "postern_session";
/** Cookie carrying the admin session id. */
export const ADMIN_COOKIE = "postern_admin_session";

function socketAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? "";
  } catch {
    return "";
  }
}

/**
 * Puts the services and the normalised address of the caller on the context (the socket address,
 * or the client behind a trusted proxy: see client-address.ts).
 */
export function baseMiddleware(services: Services, trustedProxies: readonly Cidr[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("services", services);
    const peer = socketAddress(c);
    c.set("clientIp", clientAddress(peer, c.req.header("x-forwarded-for"), trustedProxies));
    c.set("tls", overTls(c.req.url, peer, c.req.header("x-forwarded-proto"), trustedProxies));
    await next();
  };
}

/**
 * The SAML assertion consumer services: the IdP's auto-submitted form posts there cross-site, so
 * they are the one exception to the CSRF guard (design.md "Security"); the signed, one-time
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

/** Requires a live user session (401 err.invalidSession otherwise). */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("userSession", c.var.services.userSessions.resolve(getCookie(c, USER_COOKIE)));
  await next();
};

/** Requires a live admin session (401 err.invalidSession otherwise). */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("adminSession", c.var.services.adminSessions.resolve(getCookie(c, ADMIN_COOKIE)));
  await next();
};

/** Sets a session cookie: HttpOnly, SameSite=Lax, Secure when the request came over TLS. */
export function setSessionCookie(c: Context<AppEnv>, name: string, token: string, endsAt: number): void {
  setCookie(c, name, token, {
    httpOnly: true,
    sameSite: "Lax",
    secure: c.var.tls,
    path: "/",
    expires: new Date(endsAt),
  });
}

/** Clears a session cookie. */
export function clearSessionCookie(c: Context<AppEnv>, name: string): void {
  deleteCookie(c, name, { path: "/" });
}

/** The admin acting, for audit entries. */
export function actorOf(c: Context<AppEnv>): { adminName: string; ip: string } {
  return { adminName: c.var.adminSession.userName, ip: c.var.clientIp };
}

/**
 * Security headers on every answer (docs/reference.md design "Security"; docs/decisions.md "Security headers"):
 * API answers, the web app, errors, 404s and the IP-discovery listeners. Hono's `secureHeaders`
 * sets them after the handler ran (and after `onError` mapped a failure), so no answer goes out
 * without them:
 *
 * - `Content-Security-Policy`: API_CSP (nothing may load, nothing may frame it) on every answer;
 *   the web app's HTML documents carry portalCsp instead (set by static-web.ts and kept): scripts,
 *   styles, fonts only from this origin, no inline script or style, images also as `data:` (QR code,
 *   ACL icons), connections to this origin and to the IP-discovery host on any port.
 * - `frame-ancestors 'none'` and `X-Frame-Options: DENY`; `X-Content-Type-Options: nosniff`;
 *   `Referrer-Policy: same-origin`; `Cross-Origin-Opener-Policy` and `-Resource-Policy`.
 * - `Strict-Transport-Security` only when the request came over TLS (directly, or per a trusted
 *   proxy's X-Forwarded-Proto): an http answer must not pin a host that is not served over https.
 */
import type { Context, MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./context.ts";

/** HSTS value over TLS: one year (no includeSubDomains: Postern does not own the other hosts of its domain). */
export const HSTS_VALUE = "max-age=31536000";

/** The policy of every answer that is not a web-app document (JSON, text, images, redirects). */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The web app's policy: no inline script or style, no eval; `discoverySources` are the extra
 * connect-src sources the IP discovery needs (see `discoverySources`).
 */
export function portalCsp(discoverySources: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...discoverySources].join(" "),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The connect-src source of an IP-discovery URL: its scheme and host on any port (the portal asks
 * it on several ports, lib/ip-discovery.ts). [] for "" (discovery off) or a URL that is not http(s).
 */
export function discoverySources(ipApi: string): string[] {
  const u = URL.parse(ipApi);
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) return [];
  return [`${u.protocol}//${u.hostname}:*`];
}

/** Options of `securityHeaders`: the discovery listeners allow same-site readers (another port). */
export interface SecurityHeaderOptions {
  crossOriginResourcePolicy?: "same-origin" | "same-site";
}

/** The middleware setting the headers above; mount it first. */
export function securityHeaders(opts: SecurityHeaderOptions = {}): MiddlewareHandler<AppEnv> {
  const headers = secureHeaders({
    contentSecurityPolicy: undefined,
    crossOriginResourcePolicy: opts.crossOriginResourcePolicy ?? "same-origin",
    referrerPolicy: "same-origin",
    strictTransportSecurity: false,
    xFrameOptions: "DENY",
    // A handler's own Content-Security-Policy (the web app's documents) is kept.
    overwrite: false,
  });
  return async (c, next) => {
    await headers(c, next);
    if (!c.res.headers.has("Content-Security-Policy")) c.res.headers.set("Content-Security-Policy", API_CSP);
    if (servedOverTls(c)) c.res.headers.set("Strict-Transport-Security", HSTS_VALUE);
  };
}

/** Whether the request came over TLS (c.get("tls"); false when the context middleware never ran). */
function servedOverTls(c: Context<AppEnv>): boolean {
  try {
    return c.get("tls") === true;
  } catch {
    return false;
  }
}

/**
 * Serves the built web app (web/dist): files by path, index.html for every other non-API path
 * (client-side routes). Hashed assets are cached for a year; index.html never. HTML documents carry
 * the portal's Content-Security-Policy (security-headers.ts); a path whose %-escapes do not decode
 * answers 404.
 */
import { readFileSync, existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import type { MiddlewareHandler } from "hono";
import type { Context } from "hono";
import { Errors } from "@postern/shared";
import type { AppEnv } from "./context.ts";
import { ipApiUrl } from "./discovery.ts";
import { discoverySources, portalCsp } from "./security-headers.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".woff2": "font/woff2",
};

/** Reads web/dist/build.json's JsBundleHash, or "" when the web app is not built. */
export function readJsBundleHash(webDir: string): string {
  try {
    return (
      (JSON.parse(readFileSync(join(webDir, "build.json"), "utf8")) as { JsBundleHash?: string }).JsBundleHash ?? ""
    );
  } catch {
    return "";
  }
}

/** Static handler for `webDir`; answers 404 text when the app is not built. */
export function staticWeb(webDir: string): MiddlewareHandler<AppEnv> {
  const root = normalize(webDir + sep);
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return c.json({ Err: Errors.notFound.err }, 404);
    }
    const file = normalize(join(root, path));
    if (file.startsWith(root) && existsSync(file) && statSync(file).isFile()) {
      const immutable = path.startsWith("/assets/");
      const type = TYPES[extname(file)] ?? "application/octet-stream";
      return c.body(readFileSync(file), 200, {
        "content-type": type,
        "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
        ...(extname(file) === ".html" ? { "content-security-policy": documentCsp(c) } : {}),
      });
    }
    const index = join(root, "index.html");
    if (!existsSync(index)) return c.text("The web app is not built: run npm run build", 404);
    return c.body(readFileSync(index), 200, {
      "content-type": TYPES[".html"] ?? "text/html",
      "cache-control": "no-cache",
      "content-security-policy": documentCsp(c),
    });
  };
}

/** The portal's policy for this request: connections also to the IP-discovery host (any port). */
function documentCsp(c: Context<AppEnv>): string {
  return portalCsp(discoverySources(ipApiUrl(c)));
}

/**
 * Serves the built web apps (web/dist, see web/README.md) with @hono/node-server's static
 * middleware: files by path, streamed (the event loop never waits on a read), each compressible
 * file as its brotli (`.br`) or gzip (`.gz`) copy made at build time when the request's
 * Accept-Encoding names it (issue #9 item 17). Every other GET/HEAD path gets a page: admin.html
 * (the admin console) for /admin and /admin/*, index.html (the portal) for the rest (client-side
 * routes). Hashed assets under /assets/ are cached for a year; everything else never. HTML documents
 * carry the web app's Content-Security-Policy (security-headers.ts); a path whose %-escapes do not
 * decode answers 404.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Context, MiddlewareHandler } from "hono";
import { Errors } from "@postern/shared";
import type { AppEnv } from "./context.ts";
import { ipApiUrl } from "./discovery.ts";
import { errorResponse } from "./on-error.ts";
import { discoverySources, portalCsp } from "./security-headers.ts";

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

/** True for the admin console's client-side routes. */
function isAdminPath(path: string): boolean {
  return path === "/admin" || path.startsWith("/admin/");
}

/** Static handler for `webDir`; answers 404 text when the app is not built. */
export function staticWeb(webDir: string): MiddlewareHandler<AppEnv> {
  const root = resolve(webDir);
  const files = serveStatic({ root, precompressed: true });
  const portalPage = serveStatic({ root, path: "index.html", precompressed: true });
  const adminPage = serveStatic({ root, path: "admin.html", precompressed: true });
  const cached = async (c: Context<AppEnv>, response: Response, immutable: boolean): Promise<Response> => {
    response.headers.set("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache");
    if (response.headers.get("Content-Type")?.startsWith("text/html"))
      response.headers.set("Content-Security-Policy", portalCsp(discoverySources(await ipApiUrl(c))));
    return response;
  };
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    try {
      decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return errorResponse(c, Errors.notFound);
    }
    let missing = false;
    const notFound = async (): Promise<void> => {
      missing = true;
    };
    const file = await files(c, notFound);
    if (!missing && file) return await cached(c, file, c.req.path.startsWith("/assets/"));
    missing = false;
    const page = await (isAdminPath(c.req.path) ? adminPage : portalPage)(c, notFound);
    if (!missing && page) return await cached(c, page, false);
    return c.text("The web app is not built: run npm run build", 404);
  };
}

/**
 * The public allowlist (docs/reference.md admin-console §7 "Public allowlist"): GET /api/v1/allowlists/{aclId}/{token}.txt
 * (one address per line, text/plain, each line ending in a newline) and .json (a JSON array of
 * strings). Read by firewalls and vendors' external-list features with HTTP Basic auth whose
 * password is an API key with scope `allowlist.read:{aclId}`, or by source address when the ACL's
 * AllowAccessByIp is on. The rules are ApiKeyService.readAllowlist's; refusals are 404 (wrong
 * token or not an allowlist), 401 with `WWW-Authenticate: Basic realm="postern"`, or 403.
 * Answers carry a strong ETag of the list; `If-None-Match` with it answers 304 with no body (after
 * the same access checks). `Cache-Control: private, no-cache`: a poller may keep the list and must
 * ask again, shared caches may not keep it.
 */
import { Errors } from "@postern/shared";
import { Hono } from "hono";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";
import { keyFromAuthorization } from "../../services/api-keys.ts";
import type { AllowlistBodies } from "../../services/allowlist-cache.ts";

/** The challenge sent with every 401 of the allowlist. */
export const ALLOWLIST_CHALLENGE = 'Basic realm="postern", charset="UTF-8"';

/** Public allowlist routes (mounted at /v1/allowlists). */
export const allowlistRoutes = new Hono<AppEnv>()
  // GET /v1/allowlists/{aclId}/{token}.txt and /v1/allowlists/{aclId}/{token}.json
  .get("/:aclId/:file", async (c) => {
    const m = /^(.+)\.(txt|json)$/.exec(c.req.param("file"));
    if (!m) throw new AppError(Errors.notFound);
    const [, token, format] = m as unknown as [string, string, "txt" | "json"];
    let list: AllowlistBodies;
    try {
      list = await c
        .get("services")
        .apiKeys.readAllowlist(
          c.req.param("aclId"),
          token,
          keyFromAuthorization(c.req.header("authorization")),
          c.get("clientIp"),
        );
    } catch (err) {
      if (err instanceof AppError && err.status === 401) c.header("WWW-Authenticate", ALLOWLIST_CHALLENGE);
      throw err;
    }
    c.header("Cache-Control", "private, no-cache");
    c.header("ETag", list.etag);
    if (ifNoneMatch(c.req.header("if-none-match"), list.etag)) return c.body(null, 304);
    if (format === "json") return c.body(list.json, 200, { "Content-Type": "application/json" });
    return c.body(list.text, 200, { "Content-Type": "text/plain; charset=utf-8" });
  });

/** Whether an If-None-Match header value names `etag` (a list of tags, weak ones compared weakly, or `*`). */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t === etag || t === `W/${etag}`;
  });
}

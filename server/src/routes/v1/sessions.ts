/**
 * The user-sessions API for API keys with scope `user.sessions` (docs/reference.md admin-console §3 "API key" scopes,
 * §6 "manage user sessions"): GET /api/v1/sessions lists live user sessions; DELETE
 * /api/v1/sessions/{id} ends one and revokes its grants. The key comes as `Authorization: Bearer
 * <key>` (or HTTP Basic with the key as password); a refused key is 401 with
 * `WWW-Authenticate: Bearer realm="postern"`, or 403.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { ApiKeyScopeName, IdSchema, Errors } from "@postern/shared";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";
import { keyFromAuthorization } from "../../services/api-keys.ts";
import type { ApiKeyRow } from "../../repositories/api-keys.ts";

/** The challenge sent with every 401 of the user-sessions API. */
export const SESSIONS_CHALLENGE = 'Bearer realm="postern"';

/** Authenticates the request's key for user.sessions; sets the challenge header on 401. */
async function sessionsKey(c: Context<AppEnv>): Promise<ApiKeyRow> {
  try {
    return await c
      .get("services")
      .apiKeys.authenticate(
        keyFromAuthorization(c.req.header("authorization")),
        c.get("clientIp"),
        ApiKeyScopeName.userSessions,
      );
  } catch (err) {
    if (err instanceof AppError && err.status === 401) c.header("WWW-Authenticate", SESSIONS_CHALLENGE);
    throw err;
  }
}

/** User-sessions API routes (mounted at /v1/sessions). */
export const apiSessionRoutes = new Hono<AppEnv>()
  // GET /v1/sessions
  .get("/", async (c) => {
    await sessionsKey(c);
    return c.json(await c.get("services").apiKeys.liveSessions(), 200);
  })
  // DELETE /v1/sessions/{id}
  .delete("/:id", async (c) => {
    const key = await sessionsKey(c);
    const id = IdSchema.safeParse(c.req.param("id"));
    if (!id.success) throw new AppError(Errors.notFound, "session");
    await c.get("services").apiKeys.endSession(id.data.toLowerCase(), key, c.get("clientIp"));
    return c.body(null, 204);
  });

/**
 * Session invalidation (docs/reference.md admin-console §7 "Sessions"): DELETE /admin/sessions (every user session),
 * DELETE /admin/sessions/{id}, DELETE /admin/adminsessions (every admin session, the caller's
 * included: its cookie is cleared), DELETE /admin/adminsessions/{id}. All answer 204. Two sub-apps,
 * mounted at /admin/sessions and /admin/adminsessions, so the admin guard never covers /admin/login.
 */
import { Hono } from "hono";
import { ADMIN_COOKIE, actorOf, clearSessionCookie, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { adminActorOf } from "./admins.ts";

/** /admin/sessions: user sessions. */
export const userSessionAdminRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // DELETE /admin/sessions
  .delete("/", async (c) => {
    await c.get("services").sessions.endAllUserSessions(actorOf(c));
    return c.body(null, 204);
  })
  // DELETE /admin/sessions/{id}
  .delete("/:id", async (c) => {
    await c.get("services").sessions.endUserSession(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

/** /admin/adminsessions: admin sessions. */
export const adminSessionAdminRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // DELETE /admin/adminsessions
  .delete("/", async (c) => {
    await c.get("services").sessions.endAllAdminSessions(actorOf(c));
    await clearSessionCookie(c, ADMIN_COOKIE);
    return c.body(null, 204);
  })
  // DELETE /admin/adminsessions/{id}
  .delete("/:id", async (c) => {
    if (await c.get("services").sessions.endAdminSession(c.req.param("id"), adminActorOf(c)))
      await clearSessionCookie(c, ADMIN_COOKIE);
    return c.body(null, 204);
  });

/**
 * /admin/admins (docs/reference.md admin-console §7): list, get, create (answers the id as a JSON string), update
 * (answers the id), delete (204), DELETE /{id}/totpToken (reset 2FA, 204), GET /{id}/sessions.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { AdminWriteSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";
import type { AdminActor } from "../../services/admins.ts";

/** The acting admin of a request behind `requireAdmin`: audit fields, account id and session id. */
export function adminActorOf(c: Context<AppEnv>): AdminActor {
  return { ...actorOf(c), adminId: c.get("adminSession").adminId, sessionId: c.get("adminSession").sessionId };
}

/** Admin collection routes. */
export const adminRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/admins
  .get("/", async (c) => c.json(await c.get("services").admins.list(), 200))
  // GET /admin/admins/{id}
  .get("/:id", async (c) => c.json(await c.get("services").admins.get(c.req.param("id")), 200))
  // GET /admin/admins/{id}/sessions
  .get("/:id/sessions", async (c) => c.json(await c.get("services").admins.sessions(c.req.param("id")), 200))
  // POST /admin/admins
  .post("/", async (c) => {
    const body = await parseBody(c, AdminWriteSchema);
    return c.json(await c.get("services").admins.create(body, actorOf(c)), 201);
  })
  // PUT /admin/admins/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, AdminWriteSchema);
    if (body.ID && body.ID !== c.req.param("id")) throw new AppError(Errors.mismatchingIds);
    await c.get("services").admins.update(c.req.param("id"), body, adminActorOf(c));
    return c.json(c.req.param("id"), 200);
  })
  // DELETE /admin/admins/{id}
  .delete("/:id", async (c) => {
    await c.get("services").admins.delete(c.req.param("id"), adminActorOf(c));
    return c.body(null, 204);
  })
  // DELETE /admin/admins/{id}/totpToken
  .delete("/:id/totpToken", async (c) => {
    await c.get("services").admins.resetTotp(c.req.param("id"), adminActorOf(c));
    return c.body(null, 204);
  });

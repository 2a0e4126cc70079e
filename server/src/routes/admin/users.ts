/**
 * /admin/users (docs/reference.md admin-console §7): list, get, create (answers the id), update, delete; reset 2FA
 * (DELETE /{id}/totpToken, 204) and the user's sessions, groups and ACLs (GET /{id}/sessions,
 * /{id}/groups, /{id}/acls).
 */
import { Hono } from "hono";
import { UserWriteSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** User collection routes. */
export const userRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/users
  .get("/", async (c) => c.json(await c.get("services").users.list(), 200))
  // GET /admin/users/{id}
  .get("/:id", async (c) => c.json(await c.get("services").users.get(c.req.param("id")), 200))
  // GET /admin/users/{id}/sessions
  .get("/:id/sessions", async (c) => c.json(await c.get("services").users.sessions(c.req.param("id")), 200))
  // GET /admin/users/{id}/groups
  .get("/:id/groups", async (c) => c.json(await c.get("services").groups.ofUser(c.req.param("id")), 200))
  // GET /admin/users/{id}/acls
  .get("/:id/acls", async (c) => c.json(await c.get("services").users.acls(c.req.param("id")), 200))
  // DELETE /admin/users/{id}/totpToken
  .delete("/:id/totpToken", async (c) => {
    await c.get("services").users.resetTotp(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  })
  // POST /admin/users — with `ApiKey` (AuthType apikey) answers {ID, ApiKey} (auth/api-key-users.ts)
  .post("/", async (c) => {
    const body = await parseBody(c, UserWriteSchema);
    const key = body.ApiKey;
    if (key !== undefined && body.AuthType === "apikey")
      return c.json(await c.get("services").apiKeyUsers.createUser(body, key, actorOf(c)), 201);
    return c.json(await c.get("services").users.create(body, actorOf(c)), 201);
  })
  // PUT /admin/users/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, UserWriteSchema);
    if (body.ID && body.ID !== c.req.param("id")) throw new AppError(Errors.mismatchingIds);
    await c.get("services").users.update(c.req.param("id"), body, actorOf(c));
    return c.json(c.req.param("id"), 200);
  })
  // DELETE /admin/users/{id}
  .delete("/:id", async (c) => {
    await c.get("services").users.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

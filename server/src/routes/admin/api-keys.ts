/**
 * /admin/api-keys (docs/reference.md admin-console §2 "API keys", §7): list, get, create (answers 201 with the
 * plaintext key once), update (AllowedFrom only), delete. Admin only.
 */
import { Hono } from "hono";
import { ApiKeyCreateSchema, ApiKeyUpdateSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** API key collection routes. */
export const apiKeyRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/api-keys
  .get("/", async (c) => c.json(await c.get("services").apiKeys.list(), 200))
  // GET /admin/api-keys/{id}
  .get("/:id", async (c) => c.json(await c.get("services").apiKeys.get(c.req.param("id")), 200))
  // POST /admin/api-keys
  .post("/", async (c) => {
    const body = await parseBody(c, ApiKeyCreateSchema);
    return c.json(await c.get("services").apiKeys.create(body, actorOf(c)), 201);
  })
  // PUT /admin/api-keys/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, ApiKeyUpdateSchema);
    if (body.ID && body.ID.toLowerCase() !== c.req.param("id").toLowerCase()) throw new AppError(Errors.mismatchingIds);
    return c.json(await c.get("services").apiKeys.update(c.req.param("id"), body, actorOf(c)), 200);
  })
  // DELETE /admin/api-keys/{id}
  .delete("/:id", async (c) => {
    await c.get("services").apiKeys.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

/**
 * /admin/backends (docs/reference.md admin-console §7): list, get, create (answers {ID}), update, delete.
 */
import { Hono } from "hono";
import { BackendWriteSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** Backend collection routes. */
export const backendRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/backends
  .get("/", async (c) => c.json(await c.get("services").backends.list(), 200))
  // GET /admin/backends/{id}
  .get("/:id", async (c) => c.json(await c.get("services").backends.get(c.req.param("id")), 200))
  // POST /admin/backends
  .post("/", async (c) => {
    const body = await parseBody(c, BackendWriteSchema);
    return c.json({ ID: await c.get("services").backends.create(body, actorOf(c)) }, 201);
  })
  // PUT /admin/backends/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, BackendWriteSchema);
    if (body.ID && body.ID !== c.req.param("id")) throw new AppError(Errors.mismatchingIds);
    await c.get("services").backends.update(c.req.param("id"), body, actorOf(c));
    return c.json({ ID: c.req.param("id") }, 200);
  })
  // DELETE /admin/backends/{id}
  .delete("/:id", async (c) => {
    await c.get("services").backends.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

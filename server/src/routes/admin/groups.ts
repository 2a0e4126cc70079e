/**
 * /admin/groups (docs/reference.md admin-console §7): list, get, create (answers the id as a JSON string), update
 * (answers the id), delete (204).
 */
import { Hono } from "hono";
import { GroupWriteSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** Group collection routes. */
export const groupRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/groups
  .get("/", async (c) => c.json(await c.get("services").groups.list(), 200))
  // GET /admin/groups/{id}
  .get("/:id", async (c) => c.json(await c.get("services").groups.get(c.req.param("id")), 200))
  // POST /admin/groups
  .post("/", async (c) => {
    const body = await parseBody(c, GroupWriteSchema);
    return c.json(await c.get("services").groups.create(body, actorOf(c)), 201);
  })
  // PUT /admin/groups/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, GroupWriteSchema);
    if (body.ID && body.ID !== c.req.param("id")) throw new AppError(Errors.mismatchingIds);
    await c.get("services").groups.update(c.req.param("id"), body, actorOf(c));
    return c.json(c.req.param("id"), 200);
  })
  // DELETE /admin/groups/{id}
  .delete("/:id", async (c) => {
    await c.get("services").groups.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

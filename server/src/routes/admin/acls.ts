/**
 * /admin/acls (docs/reference.md admin-console §7): list, get, create (answers the id as a JSON string), update,
 * delete.
 */
import { Hono } from "hono";
import { AclWriteSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** ACL collection routes. */
export const aclRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/acls
  .get("/", async (c) => c.json(await c.get("services").acls.list(), 200))
  // GET /admin/acls/{id}
  .get("/:id", async (c) => c.json(await c.get("services").acls.get(c.req.param("id")), 200))
  // POST /admin/acls
  .post("/", async (c) => {
    const body = await parseBody(c, AclWriteSchema);
    return c.json(await c.get("services").acls.create(body, actorOf(c)), 201);
  })
  // PUT /admin/acls/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, AclWriteSchema);
    if (body.ID && body.ID !== c.req.param("id")) throw new AppError(Errors.mismatchingIds);
    await c.get("services").acls.update(c.req.param("id"), body, actorOf(c));
    return c.json(c.req.param("id"), 200);
  })
  // DELETE /admin/acls/{id}
  .delete("/:id", async (c) => {
    await c.get("services").acls.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

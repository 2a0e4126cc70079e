/**
 * /admin/agents (docs/reference.md admin-console §7): list, get, create (answers the token and install command
 * once), update (rename), delete (refused while backends are attached).
 */
import { Hono } from "hono";
import { AgentWriteSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";
import { publicUrl } from "../../http/public-url.ts";

/** Agent collection routes. */
export const agentRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/agents
  .get("/", async (c) => c.json(await c.get("services").agents.list(), 200))
  // GET /admin/agents/{id}
  .get("/:id", async (c) => c.json(await c.get("services").agents.get(c.req.param("id")), 200))
  // POST /admin/agents
  .post("/", async (c) => {
    const body = await parseBody(c, AgentWriteSchema);
    return c.json(
      await c.get("services").agents.create(body.Name, await publicUrl(c), actorOf(c), c.get("serverTlsPin")),
      201,
    );
  })
  // PUT /admin/agents/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, AgentWriteSchema);
    if (body.ID && body.ID !== c.req.param("id")) throw new AppError(Errors.mismatchingIds);
    return c.json(await c.get("services").agents.rename(c.req.param("id"), body.Name, actorOf(c)), 200);
  })
  // DELETE /admin/agents/{id}
  .delete("/:id", async (c) => {
    await c.get("services").agents.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  });

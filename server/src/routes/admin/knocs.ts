/**
 * /admin/knocs (docs/reference.md admin-console §7): GET list (UserCount, AgentName, LastModifiedAt/By, Kind,
 * ApplicationType...), GET by id, and — Postern's choice for the spec's "one shared operation" —
 * POST (create from the wizard state; answers [id, PlaintextKey?, AllowlistURL?]), PUT by id
 * (update page) and DELETE by id (`?deleteApiKey=true` also deletes an API key left with no scope).
 */
import { Hono } from "hono";
import { KnocCreateSchema, KnocUpdateSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { publicUrl } from "../../http/public-url.ts";

/** Knoc routes. */
export const knocRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/knocs
  .get("/", async (c) => c.json(await c.get("services").knocs.list(await publicUrl(c)), 200))
  // GET /admin/knocs/{id}
  .get("/:id", async (c) => c.json(await c.get("services").knocs.get(c.req.param("id"), await publicUrl(c)), 200))
  // POST /admin/knocs
  .post("/", async (c) => {
    const body = await parseBody(c, KnocCreateSchema);
    return c.json(await c.get("services").knocs.create(body, actorOf(c), await publicUrl(c)), 201);
  })
  // PUT /admin/knocs/{id}
  .put("/:id", async (c) => {
    const body = await parseBody(c, KnocUpdateSchema);
    await c.get("services").knocs.update(c.req.param("id"), body, actorOf(c));
    return c.json(c.req.param("id"), 200);
  })
  // DELETE /admin/knocs/{id}
  .delete("/:id", async (c) => {
    await c.get("services").knocs.delete(c.req.param("id"), actorOf(c), c.req.query("deleteApiKey") === "true");
    return c.body(null, 204);
  });

/**
 * /admin/webhooks (issue #14 item 4; docs/admin-guide.md "Webhooks"): the event types, list (each with its last
 * delivery), create (answers 201 with the signing Secret once), change (PATCH or PUT), delete, a test delivery and
 * the deliveries of one webhook (latest first). Admin only.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { Errors, WebhookCreateSchema, WebhookUpdateSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** PATCH and PUT /admin/webhooks/{id}: the fields given change. */
async function update(c: Context<AppEnv>) {
  const body = await parseBody(c, WebhookUpdateSchema);
  const id = c.req.param("id") ?? "";
  if (body.ID && body.ID.toLowerCase() !== id.toLowerCase()) throw new AppError(Errors.mismatchingIds);
  return c.json(await c.get("services").webhooks.update(id, body, actorOf(c)), 200);
}

/** Webhook routes. */
export const webhookRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/webhooks/events
  .get("/events", (c) => c.json(c.get("services").webhooks.eventTypes(), 200))
  // GET /admin/webhooks
  .get("/", async (c) => c.json(await c.get("services").webhooks.list(), 200))
  // GET /admin/webhooks/{id}
  .get("/:id", async (c) => c.json(await c.get("services").webhooks.get(c.req.param("id")), 200))
  // POST /admin/webhooks
  .post("/", async (c) => {
    const body = await parseBody(c, WebhookCreateSchema);
    return c.json(await c.get("services").webhooks.create(body, actorOf(c)), 201);
  })
  // PATCH /admin/webhooks/{id}
  .patch("/:id", update)
  // PUT /admin/webhooks/{id}
  .put("/:id", update)
  // DELETE /admin/webhooks/{id}
  .delete("/:id", async (c) => {
    await c.get("services").webhooks.delete(c.req.param("id"), actorOf(c));
    return c.body(null, 204);
  })
  // POST /admin/webhooks/{id}/test
  .post("/:id/test", async (c) => c.json(await c.get("services").webhooks.test(c.req.param("id"), actorOf(c)), 200))
  // GET /admin/webhooks/{id}/deliveries
  .get("/:id/deliveries", async (c) => c.json(await c.get("services").webhooks.deliveries(c.req.param("id")), 200));

/**
 * Status and grant routes of the signed-in user (user-portal §7): GET /status, POST /grant,
 * DELETE /sessions/current/granted-acls/{id}, POST /log_ips. Each call follows the user's current
 * address first (a changed address moves the grants).
 */
import { Hono } from "hono";
import { GrantRequestSchema, LogIpsRequestSchema, IdSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { requireUser } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { notFound } from "../../errors.ts";

/** The signed-in user's status and grants. */
export const grantRoutes = new Hono<AppEnv>()
  .use(requireUser)
  .use(async (c, next) => {
    c.var.services.status.followAddress(c.var.userSession, c.var.clientIp);
    await next();
  })
  // GET /status
  .get("/status", (c) => c.json(c.var.services.status.status(c.var.userSession), 200))
  // POST /grant
  .post("/grant", async (c) => {
    const body = await parseBody(c, GrantRequestSchema);
    const s = c.var.userSession;
    c.var.services.engine.grant(s.sessionId, body.ACLID, body.IPs.map((p) => p.IP), { userName: s.userName, ip: c.var.clientIp, click: true });
    return c.json(c.var.services.status.status(s), 200);
  })
  // DELETE /sessions/current/granted-acls/{id}
  .delete("/sessions/current/granted-acls/:id", (c) => {
    const id = IdSchema.safeParse(c.req.param("id"));
    if (!id.success) throw notFound("grant");
    const s = c.var.userSession;
    c.var.services.engine.revokeEntry(s.sessionId, id.data, { userName: s.userName, ip: c.var.clientIp });
    return c.json(c.var.services.status.status(s), 200);
  })
  // POST /log_ips
  .post("/log_ips", async (c) => {
    const body = await parseBody(c, LogIpsRequestSchema);
    c.var.services.status.logIps(c.var.userSession, body.IPs);
    return c.body(null, 204);
  });

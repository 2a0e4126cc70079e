/**
 * Status and grant routes of the signed-in user (docs/reference.md user-portal §7): GET /status, POST /grant,
 * DELETE /sessions/current/granted-acls/{id}, POST /log_ips. Each call follows the user's current
 * address first (a changed address moves the grants).
 */
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { GrantRequestSchema, LogIpsRequestSchema, IdSchema, Errors } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { requireUser, userAddress } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** Requires a user session and follows the user's current address. */
const signedIn = createMiddleware<AppEnv>(async (c, next) => {
  await requireUser(c, async () => {
    await c.get("services").status.followAddress(c.get("userSession"), userAddress(c));
    await next();
  });
});

/**
 * The signed-in user's status and grants. The guard is attached per route, so an unknown /api path
 * answers 404, not 401.
 */
export const grantRoutes = new Hono<AppEnv>()
  // GET /status — the text kept per session (services/status-cache.ts), not re-serialised.
  .get("/status", signedIn, async (c) =>
    c.body(await c.get("services").status.statusJson(c.get("userSession")), 200, {
      "Content-Type": "application/json",
    }),
  )
  // POST /grant — the payload's IPs are not trusted; see GrantEngine.grant.
  .post("/grant", signedIn, async (c) => {
    const body = await parseBody(c, GrantRequestSchema);
    const s = c.get("userSession");
    await c.get("services").engine.grant(s.sessionId, body.ACLID, {
      userName: s.userName,
      ip: userAddress(c),
      click: true,
      reason: body.Reason ?? "",
    });
    return c.body(await c.get("services").status.statusJsonAfterChange(s), 200, { "Content-Type": "application/json" });
  })
  // DELETE /sessions/current/granted-acls/{id}
  .delete("/sessions/current/granted-acls/:id", signedIn, async (c) => {
    const id = IdSchema.safeParse(c.req.param("id"));
    if (!id.success) throw new AppError(Errors.notFound, "grant");
    const s = c.get("userSession");
    await c.get("services").engine.revokeEntry(s.sessionId, id.data, { userName: s.userName, ip: c.get("clientIp") });
    return c.body(await c.get("services").status.statusJsonAfterChange(s), 200, { "Content-Type": "application/json" });
  })
  // POST /log_ips
  .post("/log_ips", signedIn, async (c) => {
    const body = await parseBody(c, LogIpsRequestSchema);
    const confirmed = await c.get("services").status.logIps(c.get("userSession"), body.IPs);
    return c.json({ Confirmed: confirmed }, 200);
  });

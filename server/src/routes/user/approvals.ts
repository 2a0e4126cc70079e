/**
 * /approvals for users who approve (docs/decisions.md "Approval requests"): the members of a Knoc's approver
 * groups list the pending requests they may decide and approve or deny them, like admins do at
 * /admin/approvals; never their own (403), and a request of a Knoc their groups do not approve is 404.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { ApproveRequestSchema, DenyRequestSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { requireUser } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import type { Approver } from "../../services/approvals.ts";
import { requestId } from "../admin/approvals.ts";

/** The signed-in user as the approver. */
const userApprover = (c: Context<AppEnv>): Approver => ({
  kind: "user",
  userId: c.get("userSession").userId,
  name: c.get("userSession").userName,
  ip: c.get("clientIp"),
});

/** Approval routes of the user portal. */
export const approvalUserRoutes = new Hono<AppEnv>()
  .use(requireUser)
  // GET /approvals
  .get("/", async (c) => c.json(await c.get("services").approvals.listForUser(c.get("userSession").userId), 200))
  // POST /approvals/{id}/approve
  .post("/:id/approve", async (c) => {
    const id = requestId(c);
    const body = await parseBody(c, ApproveRequestSchema);
    return c.json(await c.get("services").approvals.approve(id, body.Minutes, userApprover(c)), 200);
  })
  // POST /approvals/{id}/deny
  .post("/:id/deny", async (c) => {
    const id = requestId(c);
    const body = await parseBody(c, DenyRequestSchema);
    return c.json(await c.get("services").approvals.deny(id, body.Reason, userApprover(c)), 200);
  });

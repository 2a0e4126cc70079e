/**
 * /admin/approvals (issue #14 item 1; docs/decisions.md "Approval requests"): the approval requests (pending
 * first, then the latest decided), approve (optionally shortening the grant, `Minutes`) and deny (`Reason`,
 * shown to the user). Admin only; an admin cannot decide a request of a user with their own name (403).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { ApproveRequestSchema, DenyRequestSchema, Errors, IdSchema } from "@postern/shared";
import { parseBody } from "../../http/body.ts";
import { requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";
import type { Approver } from "../../services/approvals.ts";

/** The request id of the path; 404 when it is not an id. */
export function requestId(c: Context<AppEnv>): string {
  const id = IdSchema.safeParse(c.req.param("id"));
  if (!id.success) throw new AppError(Errors.notFound, "approval");
  return id.data;
}

/** The signed-in admin as the approver. */
const adminApprover = (c: Context<AppEnv>): Approver => ({
  kind: "admin",
  name: c.get("adminSession").userName,
  ip: c.get("clientIp"),
});

/** Approval routes of the admin console. */
export const approvalAdminRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/approvals
  .get("/", async (c) => c.json(await c.get("services").approvals.listForAdmin(), 200))
  // POST /admin/approvals/{id}/approve
  .post("/:id/approve", async (c) => {
    const id = requestId(c);
    const body = await parseBody(c, ApproveRequestSchema);
    return c.json(await c.get("services").approvals.approve(id, body.Minutes, adminApprover(c)), 200);
  })
  // POST /admin/approvals/{id}/deny
  .post("/:id/deny", async (c) => {
    const id = requestId(c);
    const body = await parseBody(c, DenyRequestSchema);
    return c.json(await c.get("services").approvals.deny(id, body.Reason, adminApprover(c)), 200);
  });

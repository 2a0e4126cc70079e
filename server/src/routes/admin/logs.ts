/**
 * /admin/logs (docs/reference.md admin-console §2 "Audit logs", §7 "GET /admin/logs returns a list of entries"): the
 * paged, searchable list (a bare array; paging in X-Total-Count, X-Page, X-Page-Size), the 30-day
 * clear and the CSV export. Admins only.
 */
import { Readable } from "node:stream";
import { Hono } from "hono";
import type { Context } from "hono";
import { AuditLogHeaders, AuditLogQuerySchema, auditLogCsvFileName, Errors } from "@postern/shared";
import type { AuditLogQuery } from "@postern/shared";
import { actorOf, requireAdmin } from "../../http/context.ts";
import type { AppEnv } from "../../http/context.ts";
import { AppError } from "../../errors.ts";

/** Parses the query string; 400 "Bad request" with `Extra` naming the parameter and the rule. */
function parseQuery(c: Context<AppEnv>): AuditLogQuery {
  const result = AuditLogQuerySchema.safeParse(c.req.query());
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = issue?.path.join(".") ?? "";
  const message = issue?.message ?? "invalid";
  throw new AppError(Errors.badRequest, message.startsWith(name) && name ? message : `${name}: ${message}`);
}

/** Audit log routes. */
export const logRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  // GET /admin/logs?page=1&pageSize=25&search=...
  .get("/", async (c) => {
    const result = await c.get("services").auditLog.list(parseQuery(c));
    c.header(AuditLogHeaders.totalCount, String(result.total));
    c.header(AuditLogHeaders.page, String(result.page));
    c.header(AuditLogHeaders.pageSize, String(result.pageSize));
    c.header("Cache-Control", "no-store");
    return c.json(result.entries, 200);
  })
  // GET /admin/logs/export?search=...
  .get("/export", (c) => {
    const { search } = parseQuery(c);
    const csv = c.get("services").auditLog.exportCsv(search);
    const fileName = auditLogCsvFileName(new Date(c.get("services").clock.now()));
    return c.body(Readable.toWeb(csv) as ReadableStream<Uint8Array>, 200, {
      "Content-Type": "text/csv; charset=utf-8; header=present",
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
  })
  // DELETE /admin/logs
  .delete("/", async (c) => c.json({ Removed: await c.get("services").auditLog.clear(actorOf(c)) }, 200));

/**
 * SQL of the audit folding (`audit_folds`, services/audit-fold.ts): one row per fold key
 * ("<action>:<address>"). Times in epoch ms.
 */
import { count, eq, lte } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { auditFolds } from "../db/schema.ts";

type Q = Db | Tx;
/** A fold row: the minute from `windowStart`, how many entries were folded, the last of them. */
export type AuditFoldRow = typeof auditFolds.$inferSelect;

/** Reads one key's row. */
export async function getFold(q: Q, key: string): Promise<AuditFoldRow | undefined> {
  return await q.select().from(auditFolds).where(eq(auditFolds.key, key)).get();
}

/** Writes one key's row (insert or replace). */
export async function putFold(q: Q, row: AuditFoldRow): Promise<void> {
  await q
    .insert(auditFolds)
    .values(row)
    .onConflictDoUpdate({
      target: auditFolds.key,
      set: { windowStart: row.windowStart, folded: row.folded, last: row.last },
    })
    .run();
}

/** How many keys are being folded. */
export async function foldCount(q: Q): Promise<number> {
  return (await q.select({ n: count() }).from(auditFolds).get())?.n ?? 0;
}

/** The rows whose window started at or before `startedBy` (epoch ms). */
export async function endedFolds(q: Q, startedBy: number): Promise<AuditFoldRow[]> {
  return await q.select().from(auditFolds).where(lte(auditFolds.windowStart, startedBy)).all();
}

/** Deletes one key's row. */
export async function deleteFold(q: Q, key: string): Promise<void> {
  await q.delete(auditFolds).where(eq(auditFolds.key, key)).run();
}

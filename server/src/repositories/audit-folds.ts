/**
 * SQL of the audit folding (`audit_folds`, services/audit-fold.ts): one row per fold key
 * ("<action>:<address>"). Times in epoch ms.
 */
import { count, eq, lte } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type auditFolds } from "../db/schema.ts";

type Q = Db | Tx;
/** A fold row: the minute from `windowStart`, how many entries were folded, the last of them. */
export type AuditFoldRow = typeof auditFolds.$inferSelect;

/** Reads one key's row. */
export async function getFold(q: Q, key: string): Promise<AuditFoldRow | undefined> {
  const { auditFolds } = tablesOf(q);
  return (await q.select().from(auditFolds).where(eq(auditFolds.key, key)).limit(1))[0];
}

/** Writes one key's row (insert or replace). */
export async function putFold(q: Q, row: AuditFoldRow): Promise<void> {
  const { auditFolds } = tablesOf(q);
  await q
    .insert(auditFolds)
    .values(row)
    .onConflictDoUpdate({
      target: auditFolds.key,
      set: { windowStart: row.windowStart, folded: row.folded, last: row.last },
    });
}

/** How many keys are being folded. */
export async function foldCount(q: Q): Promise<number> {
  const { auditFolds } = tablesOf(q);
  return (await q.select({ n: count() }).from(auditFolds).limit(1))[0]?.n ?? 0;
}

/** The rows whose window started at or before `startedBy` (epoch ms). */
export async function endedFolds(q: Q, startedBy: number): Promise<AuditFoldRow[]> {
  const { auditFolds } = tablesOf(q);
  return await q.select().from(auditFolds).where(lte(auditFolds.windowStart, startedBy));
}

/** Deletes one key's row. */
export async function deleteFold(q: Q, key: string): Promise<void> {
  const { auditFolds } = tablesOf(q);
  await q.delete(auditFolds).where(eq(auditFolds.key, key));
}

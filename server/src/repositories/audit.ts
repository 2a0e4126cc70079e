/**
 * SQL of the audit log's read side (docs/reference.md admin-console §2 "Audit logs", §7 GET /admin/logs): search,
 * paging newest first, keyset batches for the CSV export and the GELF forwarder, and the 30-day
 * clear. Entries are written by `writeAudit` (services/audit.ts). Times are epoch milliseconds.
 */
import { and, asc, desc, eq, gt, lt, or, sql } from "drizzle-orm";
import type { SQL } from "drizzle-orm";
import { changedRows, type Db, type Tx, tablesOf, type Tables } from "../db/index.ts";
import { type auditLog } from "../db/schema.ts";
import { prepared } from "../db/prepared.ts";

type Q = Db | Tx;
/** An audit log row. `at` is epoch milliseconds. */
export type AuditRow = typeof auditLog.$inferSelect;

/** The columns a search looks in. */
const searchable = ({ auditLog }: Tables) =>
  [
    auditLog.action,
    auditLog.userName,
    auditLog.adminName,
    auditLog.agentName,
    auditLog.ipAddress,
    auditLog.errorMessage,
    auditLog.aclDescription,
    auditLog.description,
  ] as const;

/**
 * Escapes LIKE's wildcards (`%`, `_`) and the escape character itself, so that the term matches as
 * a literal substring under `ESCAPE '\'`.
 */
export function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * The WHERE condition of a search: the term as a literal substring of any searchable column,
 * case-insensitive on both databases (both sides through `lower()`: PostgreSQL's LIKE is
 * case-sensitive). An empty term matches everything (undefined).
 */
function searchCondition(q: Q, search: string): SQL | undefined {
  if (search === "") return undefined;
  const pattern = `%${escapeLike(search)}%`;
  return or(...searchable(tablesOf(q)).map((col) => sql`lower(${col}) LIKE lower(${pattern}) ESCAPE '\\'`));
}

/** How many entries match the search ("" = all). */
export async function countAuditEntries(q: Q, search: string): Promise<number> {
  const { auditLog } = tablesOf(q);
  const row = (
    await q
      .select({ n: sql<number>`count(*)` })
      .from(auditLog)
      .where(searchCondition(q, search))
      .limit(1)
  )[0];
  return row?.n ?? 0;
}

/** One page of entries matching the search, newest first (time, then sequence number). */
export async function listAuditEntries(
  q: Q,
  opts: { search: string; limit: number; offset: number },
): Promise<AuditRow[]> {
  const { auditLog } = tablesOf(q);
  return await q
    .select()
    .from(auditLog)
    .where(searchCondition(q, opts.search))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(opts.limit)
    .offset(opts.offset);
}

/**
 * The next batch of entries matching the search in the same newest-first order, strictly after the
 * given position (`after` is the last row of the previous batch; null starts at the newest). Used to
 * stream the CSV export without holding the whole log in memory.
 */
export async function auditEntriesOlderThan(
  q: Q,
  opts: { search: string; after: { at: number; id: number } | null; limit: number },
): Promise<AuditRow[]> {
  const { auditLog } = tablesOf(q);
  const position = opts.after
    ? or(lt(auditLog.at, opts.after.at), and(eq(auditLog.at, opts.after.at), lt(auditLog.id, opts.after.id)))
    : undefined;
  return await q
    .select()
    .from(auditLog)
    .where(and(searchCondition(q, opts.search), position))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(opts.limit);
}

/** Deletes the entries written before `cutoffMs` (epoch ms); returns how many were deleted. */
export async function deleteAuditEntriesBefore(q: Q, cutoffMs: number): Promise<number> {
  const { auditLog } = tablesOf(q);
  return changedRows(await q.delete(auditLog).where(lt(auditLog.at, cutoffMs)));
}

/** Up to `limit` entries with a sequence number above `afterId`, in the order they were written. */
export async function auditEntriesAfterId(q: Q, afterId: number, limit: number): Promise<AuditRow[]> {
  const { auditLog } = tablesOf(q);
  return await q.select().from(auditLog).where(gt(auditLog.id, afterId)).orderBy(asc(auditLog.id)).limit(limit);
}

/** The highest sequence number written so far (0 when the log is empty). */
export async function maxAuditId(q: Q): Promise<number> {
  const { auditLog } = tablesOf(q);
  return (
    (
      await q
        .select({ id: sql<number | null>`max(${auditLog.id})` })
        .from(auditLog)
        .limit(1)
    )[0]?.id ?? 0
  );
}

/** The highest sequence number among entries written before `atMs` (epoch ms); 0 when there is none. */
export async function maxAuditIdBefore(q: Q, atMs: number): Promise<number> {
  const { auditLog } = tablesOf(q);
  return (
    (
      await q
        .select({ id: sql<number | null>`max(${auditLog.id})` })
        .from(auditLog)
        .where(lt(auditLog.at, atMs))
        .limit(1)
    )[0]?.id ?? 0
  );
}

/** The `limit` entries written last (highest id first). */
export async function recentAuditEntries(q: Q, limit: number): Promise<AuditRow[]> {
  const { auditLog } = tablesOf(q);
  return await q.select().from(auditLog).orderBy(desc(auditLog.id)).limit(limit);
}

/** An audit entry to insert: every column but the id, which the database gives. */
export type NewAuditEntry = Required<Omit<typeof auditLog.$inferInsert, "id">>;

/** The columns of NewAuditEntry, in the statement's order. */
const ENTRY_COLUMNS = [
  "at",
  "action",
  "userName",
  "adminName",
  "agentName",
  "ipAddress",
  "errorMessage",
  "aclDescription",
  "description",
] as const satisfies readonly (keyof NewAuditEntry)[];

const entryInsert = prepared<NewAuditEntry, unknown>("auditInsert", (q) => {
  const { auditLog } = tablesOf(q);
  return q
    .insert(auditLog)
    .values(Object.fromEntries(ENTRY_COLUMNS.map((c) => [c, sql.placeholder(c)])) as unknown as NewAuditEntry);
});

/** Inserts one audit entry (every text column given, "" where it does not apply). */
export async function insertAuditEntry(q: Q, row: NewAuditEntry): Promise<void> {
  await entryInsert(q, row);
}

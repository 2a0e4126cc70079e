/**
 * SQL of the audit log's followers (docs/decisions.md "Following the audit log"; issue #12 item 3): the GELF
 * forwarder and the webhook dispatcher's collection take the entries a trigger on `audit_log` queued for them in
 * `audit_outbox`, instead of following the log by id. So an entry is handled once across replicas, and an entry
 * that commits after a higher id was read (PostgreSQL numbers entries when they are written, not when they commit)
 * is not skipped. Times are epoch milliseconds.
 */
import { and, asc, eq, gt, gte, inArray, isNotNull, isNull, lt, or } from "drizzle-orm";
import { type Queryable, tablesOf } from "../db/index.ts";
import type { AuditRow } from "./audit.ts";

/** The followers of the audit log (rows of `audit_followers`, seeded by the migration). */
export type AuditFollower = "gelf" | "webhooks";

/** Whether the trigger queues new entries for `follower`. */
export async function followerActive(q: Queryable, follower: AuditFollower): Promise<boolean> {
  const { auditFollowers } = tablesOf(q);
  const rows = await q
    .select({ active: auditFollowers.active })
    .from(auditFollowers)
    .where(eq(auditFollowers.name, follower))
    .limit(1);
  return rows[0]?.active === true;
}

/**
 * Starts or stops queuing new entries for `follower`. Stopping also drops what was queued for it. Returns
 * whether the state changed (written only then, so the trigger's read of the table conflicts with nothing on
 * PostgreSQL while the state holds).
 */
export async function setFollowerActive(q: Queryable, follower: AuditFollower, active: boolean): Promise<boolean> {
  if ((await followerActive(q, follower)) === active) return false;
  const { auditFollowers, auditOutbox } = tablesOf(q);
  await q
    .insert(auditFollowers)
    .values({ name: follower, active })
    .onConflictDoUpdate({ target: auditFollowers.name, set: { active } });
  if (!active) await q.delete(auditOutbox).where(eq(auditOutbox.follower, follower));
  return true;
}

/** Queues for `follower` the entries numbered after `afterId` that are not queued yet. */
export async function queueEntriesAfter(q: Queryable, follower: AuditFollower, afterId: number): Promise<void> {
  const { auditLog, auditOutbox } = tablesOf(q);
  const ids = await q.select({ id: auditLog.id }).from(auditLog).where(gt(auditLog.id, afterId));
  if (ids.length === 0) return;
  await q
    .insert(auditOutbox)
    .values(ids.map(({ id }) => ({ follower, auditId: id })))
    .onConflictDoNothing();
}

/** Whether any entry is queued for `follower` (one indexed read: a follower with nothing to do opens no transaction). */
export async function anyQueued(q: Queryable, follower: AuditFollower): Promise<boolean> {
  const { auditOutbox } = tablesOf(q);
  const rows = await q
    .select({ id: auditOutbox.auditId })
    .from(auditOutbox)
    .where(eq(auditOutbox.follower, follower))
    .limit(1);
  return rows.length > 0;
}

/** The queued entries of `follower` (lowest id first, at most `limit`) with the lease each holds. */
async function queued(
  q: Queryable,
  follower: AuditFollower,
  limit: number,
  where = eq(tablesOf(q).auditOutbox.follower, follower),
): Promise<AuditRow[]> {
  const { auditLog, auditOutbox } = tablesOf(q);
  const rows = await q
    .select({ entry: auditLog })
    .from(auditOutbox)
    .innerJoin(auditLog, eq(auditLog.id, auditOutbox.auditId))
    .where(where)
    .orderBy(asc(auditOutbox.auditId))
    .limit(limit);
  return rows.map((r) => r.entry);
}

/**
 * Takes up to `limit` queued entries of `follower`, lowest id first, and removes them from the queue (run it in
 * the transaction that handles them: a rollback queues them again).
 */
export async function takeQueued(q: Queryable, follower: AuditFollower, limit: number): Promise<AuditRow[]> {
  const rows = await queued(q, follower, limit);
  await removeQueued(
    q,
    follower,
    rows.map((r) => r.id),
  );
  return rows;
}

/**
 * Claims up to `limit` queued entries of `follower` for sending, lowest id first: each gets the lease
 * `claimedUntilMs`. Claims nothing (an empty list) while another batch of the follower holds a lease that has not
 * run out at `nowMs`, so one sender at a time sends, in order; a sender that died is taken over when its lease
 * runs out. Run it in one transaction.
 */
export async function claimQueued(
  q: Queryable,
  follower: AuditFollower,
  nowMs: number,
  claimedUntilMs: number,
  limit: number,
): Promise<AuditRow[]> {
  const { auditOutbox } = tablesOf(q);
  const held = await q
    .select({ id: auditOutbox.auditId })
    .from(auditOutbox)
    .where(
      and(
        eq(auditOutbox.follower, follower),
        isNotNull(auditOutbox.claimedUntil),
        gte(auditOutbox.claimedUntil, nowMs),
      ),
    )
    .limit(1);
  if (held.length > 0) return [];
  const rows = await queued(
    q,
    follower,
    limit,
    and(eq(auditOutbox.follower, follower), or(isNull(auditOutbox.claimedUntil), lt(auditOutbox.claimedUntil, nowMs))),
  );
  if (rows.length > 0)
    await q
      .update(auditOutbox)
      .set({ claimedUntil: claimedUntilMs })
      .where(
        and(
          eq(auditOutbox.follower, follower),
          inArray(
            auditOutbox.auditId,
            rows.map((r) => r.id),
          ),
        ),
      );
  return rows;
}

/** Gives claimed entries back unsent (a failed send): they are claimed again at once. */
export async function unclaimQueued(q: Queryable, follower: AuditFollower, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const { auditOutbox } = tablesOf(q);
  await q
    .update(auditOutbox)
    .set({ claimedUntil: null })
    .where(and(eq(auditOutbox.follower, follower), inArray(auditOutbox.auditId, [...ids])));
}

/** Removes handled entries from `follower`'s queue. */
export async function removeQueued(q: Queryable, follower: AuditFollower, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  const { auditOutbox } = tablesOf(q);
  await q.delete(auditOutbox).where(and(eq(auditOutbox.follower, follower), inArray(auditOutbox.auditId, [...ids])));
}

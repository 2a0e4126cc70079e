/**
 * SQL of the event webhooks (issue #14 item 4): the webhooks, their outbox of deliveries (kept as the delivery
 * history) and the dispatcher's position in the audit log. Times are epoch milliseconds. Async style (issue #12).
 */
import { and, asc, desc, eq, inArray, lte, notInArray, sql } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type webhookDeliveries, type webhooks } from "../db/schema.ts";

type Q = Db | Tx;
/** A webhook row. */
export type WebhookRow = typeof webhooks.$inferSelect;
/** A delivery row. */
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
/** A new delivery row. */
export type NewWebhookDelivery = typeof webhookDeliveries.$inferInsert;

/** Every webhook, oldest first. */
export async function listWebhooks(q: Q): Promise<WebhookRow[]> {
  const { webhooks } = tablesOf(q);
  return await q.select().from(webhooks).orderBy(asc(webhooks.createdAt), asc(webhooks.id));
}

/** Every enabled webhook. */
export async function listEnabledWebhooks(q: Q): Promise<WebhookRow[]> {
  const { webhooks } = tablesOf(q);
  return await q.select().from(webhooks).where(eq(webhooks.enabled, true));
}

/** How many webhooks exist. */
export async function countWebhooks(q: Q): Promise<number> {
  const { webhooks } = tablesOf(q);
  return (await q.select({ n: sql<number>`count(*)` }).from(webhooks))[0]?.n ?? 0;
}

/** One webhook, or undefined. */
export async function getWebhook(q: Q, id: string): Promise<WebhookRow | undefined> {
  const { webhooks } = tablesOf(q);
  return (await q.select().from(webhooks).where(eq(webhooks.id, id)).limit(1))[0];
}

/** Inserts a webhook. */
export async function insertWebhook(q: Q, row: typeof webhooks.$inferInsert): Promise<void> {
  const { webhooks } = tablesOf(q);
  await q.insert(webhooks).values(row);
}

/** Changes a webhook's URL, events, description or enabled flag; returns whether it exists. */
export async function updateWebhook(
  q: Q,
  id: string,
  set: Partial<Pick<WebhookRow, "url" | "events" | "description" | "enabled">>,
): Promise<boolean> {
  const { webhooks } = tablesOf(q);
  return (await q.update(webhooks).set(set).where(eq(webhooks.id, id)).returning({ id: webhooks.id })).length > 0;
}

/** Deletes a webhook and (cascade) its deliveries; returns whether it existed. */
export async function deleteWebhook(q: Q, id: string): Promise<boolean> {
  const { webhooks } = tablesOf(q);
  return (await q.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id })).length > 0;
}

/** Inserts deliveries; a second row for the same (webhook, audit entry) is skipped. */
export async function insertDeliveries(q: Q, rows: NewWebhookDelivery[]): Promise<void> {
  const { webhookDeliveries } = tablesOf(q);
  if (rows.length === 0) return;
  await q.insert(webhookDeliveries).values(rows).onConflictDoNothing();
}

/** One delivery, or undefined. */
export async function getDelivery(q: Q, id: string): Promise<WebhookDeliveryRow | undefined> {
  const { webhookDeliveries } = tablesOf(q);
  return (await q.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)).limit(1))[0];
}

/** The latest `limit` deliveries of a webhook, latest first. */
export async function latestDeliveries(q: Q, webhookId: string, limit: number): Promise<WebhookDeliveryRow[]> {
  const { webhookDeliveries } = tablesOf(q);
  return await q
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit);
}

/** The ids of pending deliveries due at `now` (nextAttemptAt ≤ now), oldest due first, at most `limit`. */
export async function dueDeliveryIds(q: Q, now: number, limit: number): Promise<string[]> {
  const { webhookDeliveries } = tablesOf(q);
  const rows = await q
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, now)))
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** The earliest nextAttemptAt of the pending deliveries (epoch ms), or null when none is pending. */
export async function nextDueAt(q: Q): Promise<number | null> {
  const { webhookDeliveries } = tablesOf(q);
  const row = (
    await q
      .select({ at: sql<number | null>`min(${webhookDeliveries.nextAttemptAt})` })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, "pending"))
  )[0];
  return row?.at ?? null;
}

/**
 * Claims a pending delivery due at `now` for one attempt by moving its nextAttemptAt to `leaseUntil` (a process
 * that dies mid-attempt leaves it due again then). Returns the row when claimed, undefined when it was not
 * pending and due (another attempt holds it, or it is done).
 */
export async function claimDelivery(
  q: Q,
  id: string,
  now: number,
  leaseUntil: number,
): Promise<WebhookDeliveryRow | undefined> {
  const { webhookDeliveries } = tablesOf(q);
  return (
    await q
      .update(webhookDeliveries)
      .set({ nextAttemptAt: leaseUntil })
      .where(
        and(
          eq(webhookDeliveries.id, id),
          eq(webhookDeliveries.status, "pending"),
          lte(webhookDeliveries.nextAttemptAt, now),
        ),
      )
      .returning()
  )[0];
}

/** Records the outcome of one attempt. */
export async function recordAttempt(
  q: Q,
  id: string,
  set: Pick<
    WebhookDeliveryRow,
    "status" | "attempts" | "lastStatusCode" | "lastError" | "lastAttemptAt" | "nextAttemptAt"
  >,
): Promise<void> {
  const { webhookDeliveries } = tablesOf(q);
  await q.update(webhookDeliveries).set(set).where(eq(webhookDeliveries.id, id));
}

/**
 * Deletes a webhook's finished deliveries beyond its latest `keep` (pending ones stay until they finish);
 * returns how many were deleted.
 */
export async function pruneDeliveries(q: Q, webhookId: string, keep: number): Promise<number> {
  const { webhookDeliveries } = tablesOf(q);
  const kept = await q
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(keep);
  const deleted = await q
    .delete(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        inArray(webhookDeliveries.status, ["delivered", "failed"]),
        kept.length > 0
          ? notInArray(
              webhookDeliveries.id,
              kept.map((k) => k.id),
            )
          : undefined,
      ),
    )
    .returning({ id: webhookDeliveries.id });
  return deleted.length;
}

/** Whether any webhook is enabled (then the audit log is followed for the webhooks). */
export async function anyEnabledWebhook(q: Q): Promise<boolean> {
  const { webhooks } = tablesOf(q);
  return (await q.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.enabled, true)).limit(1)).length > 0;
}

/**
 * SQL of licensing: the installed licence rows, and the counts the licence is checked against
 * (users in creation order — admins live in their own table and are never counted — and agents).
 */
import { and, asc, count, eq, inArray, lt, or } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type licenses } from "../db/schema.ts";
import { prepared } from "../db/prepared.ts";

type Q = Db | Tx;
/** A licence row. */
export type LicenseRow = typeof licenses.$inferSelect;

/** Every installed licence row (normally one), oldest first. */
export async function listLicenses(q: Q): Promise<LicenseRow[]> {
  const { licenses } = tablesOf(q);
  return await q.select().from(licenses).orderBy(asc(licenses.installedAt), asc(licenses.id));
}

/** Replaces every installed licence with this one (exactly one is installed at a time). */
export async function replaceLicense(
  q: Q,
  row: { id: string; key: string; payload: Record<string, unknown>; installedAt: number },
): Promise<void> {
  const { licenses } = tablesOf(q);
  await q.delete(licenses);
  await q.insert(licenses).values(row);
}

/** Number of users (every row of `users`, disabled ones included). */
export async function countUsers(q: Q): Promise<number> {
  const { users } = tablesOf(q);
  return (await q.select({ n: count() }).from(users).limit(1))[0]?.n ?? 0;
}

/** Number of agents (the licence's MachineCount). */
export async function countAgents(q: Q): Promise<number> {
  const { agents } = tablesOf(q);
  return (await q.select({ n: count() }).from(agents).limit(1))[0]?.n ?? 0;
}

/** Ids of the first `limit` users in creation order (CreatedAt, then ID). */
export async function firstUserIds(q: Q, limit: number): Promise<string[]> {
  const { users } = tablesOf(q);
  return (await q.select({ id: users.id }).from(users).orderBy(asc(users.createdAt), asc(users.id)).limit(limit)).map(
    (r) => r.id,
  );
}

/**
 * How many users were created before this one (CreatedAt, then ID): its 0-based place in creation
 * order. Null when the user does not exist.
 */
export async function userPosition(q: Q, userId: string): Promise<number | null> {
  const { users } = tablesOf(q);
  const u = (await q.select({ createdAt: users.createdAt }).from(users).where(eq(users.id, userId)).limit(1))[0];
  if (!u) return null;
  const before = or(lt(users.createdAt, u.createdAt), and(eq(users.createdAt, u.createdAt), lt(users.id, userId)));
  return (await q.select({ n: count() }).from(users).where(before).limit(1))[0]?.n ?? 0;
}

/** A user's place in creation order: its CreatedAt and ID (compared in that order). */
export type RankKey = readonly [createdAt: number, id: string];

/** The rank key of a user, or undefined when the user does not exist. */
export async function userRankKey(q: Q, userId: string): Promise<RankKey | undefined> {
  const { users } = tablesOf(q);
  const u = (await q.select({ createdAt: users.createdAt }).from(users).where(eq(users.id, userId)).limit(1))[0];
  return u ? [u.createdAt, userId] : undefined;
}

/**
 * The rank key of the user at 0-based place `index` in creation order (CreatedAt, then ID), or
 * undefined when there are not that many users.
 */
export async function rankKeyAt(q: Q, index: number): Promise<RankKey | undefined> {
  const { users } = tablesOf(q);
  const u = (
    await q
      .select({ createdAt: users.createdAt, id: users.id })
      .from(users)
      .orderBy(asc(users.createdAt), asc(users.id))
      .limit(1)
      .offset(index)
  )[0];
  return u ? [u.createdAt, u.id] : undefined;
}

const countersRead = prepared<Record<string, never>, { name: string; value: number }[]>("licenceCounters", (q) => {
  const { changeCounters } = tablesOf(q);
  return q
    .select({ name: changeCounters.name, value: changeCounters.value })
    .from(changeCounters)
    .where(inArray(changeCounters.name, ["licenses", "users"]));
});

/**
 * The change counters a user's licence depends on: `licenses` (raised by triggers on every write to
 * licenses) and `users` (when a user is added or removed or its rank key changes); -1 for a missing one.
 */
export async function licenceCounters(q: Q): Promise<{ licenses: number; users: number }> {
  const rows = await countersRead(q, {});
  const of = (name: string) => rows.find((r) => r.name === name)?.value ?? -1;
  return { licenses: of("licenses"), users: of("users") };
}

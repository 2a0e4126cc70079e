/**
 * SQL of the sign-in throttle (`login_throttle`): one row per throttle key ("account:<name>",
 * "code:<name>", "ip:<address>"). Times in epoch ms.
 */
import { and, eq, lte, sql } from "drizzle-orm";
import { changedRows, type Db, type Tx, tablesOf } from "../db/index.ts";
import { type loginThrottle } from "../db/schema.ts";

type Q = Db | Tx;
/** A throttle row: failures counted since `windowStart`, refused until `blockedUntil` (null: never blocked). */
export type ThrottleRow = typeof loginThrottle.$inferSelect;

/** Reads one key's row. */
export async function getThrottle(q: Q, key: string): Promise<ThrottleRow | undefined> {
  const { loginThrottle } = tablesOf(q);
  return (await q.select().from(loginThrottle).where(eq(loginThrottle.key, key)).limit(1))[0];
}

/** Writes one key's row (insert or replace). */
export async function putThrottle(q: Q, row: ThrottleRow): Promise<void> {
  const { loginThrottle } = tablesOf(q);
  await q
    .insert(loginThrottle)
    .values(row)
    .onConflictDoUpdate({
      target: loginThrottle.key,
      set: { failures: row.failures, windowStart: row.windowStart, blockedUntil: row.blockedUntil },
    });
}

/** Deletes one key's row. */
export async function deleteThrottle(q: Q, key: string): Promise<void> {
  const { loginThrottle } = tablesOf(q);
  await q.delete(loginThrottle).where(eq(loginThrottle.key, key));
}

/**
 * Deletes the rows forgotten by `staleBefore` (epoch ms): window started and any block ended at or
 * before it. Returns how many went.
 */
export async function pruneThrottle(q: Q, staleBefore: number): Promise<number> {
  const { loginThrottle } = tablesOf(q);
  return changedRows(
    await q
      .delete(loginThrottle)
      .where(
        and(
          lte(loginThrottle.windowStart, staleBefore),
          lte(sql`coalesce(${loginThrottle.blockedUntil}, 0)`, staleBefore),
        ),
      ),
  );
}

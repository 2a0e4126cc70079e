/**
 * SQL of SAML sign-in: the AuthnRequests sent and not yet answered (`saml_requests`), the assertion
 * ids already accepted (`saml_assertions`), and the membership of users in groups of type saml.
 * Times are epoch milliseconds.
 */
import { and, count, eq, gt, inArray, lte } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type samlRequests } from "../db/schema.ts";

type Q = Db | Tx;
/** A stored AuthnRequest. */
export type SamlRequestRow = typeof samlRequests.$inferSelect;

/** Stores an AuthnRequest id sent to the IdP. */
export async function insertRequest(q: Q, row: SamlRequestRow): Promise<void> {
  const { samlRequests } = tablesOf(q);
  await q.insert(samlRequests).values(row);
}

/** How many stored AuthnRequests of `audience` are still pending (not expired at `now`). */
export async function pendingRequestCount(q: Q, audience: "user" | "admin", now: number): Promise<number> {
  const { samlRequests } = tablesOf(q);
  return (
    (
      await q
        .select({ n: count() })
        .from(samlRequests)
        .where(and(eq(samlRequests.audience, audience), gt(samlRequests.expiresAt, now)))
        .limit(1)
    )[0]?.n ?? 0
  );
}

/**
 * Removes and returns the request `id` of `audience` when it is still pending at `now`; undefined
 * when unknown, of the other audience, expired or already consumed. Each request is used once.
 */
export async function consumeRequest(
  q: Q,
  id: string,
  audience: "user" | "admin",
  now: number,
): Promise<SamlRequestRow | undefined> {
  const { samlRequests } = tablesOf(q);
  const row = (await q.select().from(samlRequests).where(eq(samlRequests.id, id)).limit(1))[0];
  if (!row || row.audience !== audience || row.expiresAt <= now) return undefined;
  await q.delete(samlRequests).where(eq(samlRequests.id, id));
  return row;
}

/** Whether an assertion id was already accepted (and is still remembered). */
export async function assertionSeen(q: Q, id: string): Promise<boolean> {
  const { samlAssertions } = tablesOf(q);
  return (
    (await q.select({ id: samlAssertions.id }).from(samlAssertions).where(eq(samlAssertions.id, id)).limit(1))[0] !==
    undefined
  );
}

/** Remembers an accepted assertion id until `expiresAt`. */
export async function rememberAssertion(q: Q, id: string, expiresAt: number): Promise<void> {
  const { samlAssertions } = tablesOf(q);
  await q.insert(samlAssertions).values({ id, expiresAt });
}

/** Deletes expired requests and forgotten assertion ids (at or before `now`). */
export async function purgeExpired(q: Q, now: number): Promise<void> {
  const { samlAssertions, samlRequests } = tablesOf(q);
  await q.delete(samlRequests).where(lte(samlRequests.expiresAt, now));
  await q.delete(samlAssertions).where(lte(samlAssertions.expiresAt, now));
}

/** The groups of type saml whose names are exactly among `names`. */
export async function samlGroupsByNames(q: Q, names: readonly string[]): Promise<{ id: string; name: string }[]> {
  const { groups } = tablesOf(q);
  if (names.length === 0) return [];
  return await q
    .select({ id: groups.id, name: groups.name })
    .from(groups)
    .where(and(eq(groups.type, "saml"), inArray(groups.name, [...names])));
}

/** The ids of the groups of type saml the user is a member of. */
export async function samlGroupIdsOfUser(q: Q, userId: string): Promise<string[]> {
  const { groupUsers, groups } = tablesOf(q);
  return (
    await q
      .select({ id: groupUsers.groupId })
      .from(groupUsers)
      .innerJoin(groups, eq(groups.id, groupUsers.groupId))
      .where(and(eq(groupUsers.userId, userId), eq(groups.type, "saml")))
  ).map((r) => r.id);
}

/** Replaces the user's membership in groups of type saml by `groupIds` (other groups are untouched). */
export async function setSamlGroupIdsOfUser(q: Q, userId: string, groupIds: readonly string[]): Promise<void> {
  const { groupUsers } = tablesOf(q);
  const current = await samlGroupIdsOfUser(q, userId);
  const wanted = new Set(groupIds);
  const drop = current.filter((id) => !wanted.has(id));
  if (drop.length > 0)
    await q.delete(groupUsers).where(and(eq(groupUsers.userId, userId), inArray(groupUsers.groupId, drop)));
  for (const groupId of wanted) if (!current.includes(groupId)) await q.insert(groupUsers).values({ groupId, userId });
}

/**
 * SQL of SAML sign-in: the AuthnRequests sent and not yet answered (`saml_requests`), the assertion
 * ids already accepted (`saml_assertions`), and the membership of users in groups of type saml.
 * Times are epoch milliseconds.
 */
import { and, count, eq, gt, inArray, lte } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { groups, groupUsers, samlAssertions, samlRequests } from "../db/schema.ts";

type Q = Db | Tx;
/** A stored AuthnRequest. */
export type SamlRequestRow = typeof samlRequests.$inferSelect;

/** Stores an AuthnRequest id sent to the IdP. */
export function insertRequest(q: Q, row: SamlRequestRow): void {
  q.insert(samlRequests).values(row).run();
}

/** How many stored AuthnRequests of `audience` are still pending (not expired at `now`). */
export function pendingRequestCount(q: Q, audience: "user" | "admin", now: number): number {
  return (
    q
      .select({ n: count() })
      .from(samlRequests)
      .where(and(eq(samlRequests.audience, audience), gt(samlRequests.expiresAt, now)))
      .get()?.n ?? 0
  );
}

/**
 * Removes and returns the request `id` of `audience` when it is still pending at `now`; undefined
 * when unknown, of the other audience, expired or already consumed. Each request is used once.
 */
export function consumeRequest(q: Q, id: string, audience: "user" | "admin", now: number): SamlRequestRow | undefined {
  const row = q.select().from(samlRequests).where(eq(samlRequests.id, id)).get();
  if (!row || row.audience !== audience || row.expiresAt <= now) return undefined;
  q.delete(samlRequests).where(eq(samlRequests.id, id)).run();
  return row;
}

/** Whether an assertion id was already accepted (and is still remembered). */
export function assertionSeen(q: Q, id: string): boolean {
  return q.select({ id: samlAssertions.id }).from(samlAssertions).where(eq(samlAssertions.id, id)).get() !== undefined;
}

/** Remembers an accepted assertion id until `expiresAt`. */
export function rememberAssertion(q: Q, id: string, expiresAt: number): void {
  q.insert(samlAssertions).values({ id, expiresAt }).run();
}

/** Deletes expired requests and forgotten assertion ids (at or before `now`). */
export function purgeExpired(q: Q, now: number): void {
  q.delete(samlRequests).where(lte(samlRequests.expiresAt, now)).run();
  q.delete(samlAssertions).where(lte(samlAssertions.expiresAt, now)).run();
}

/** The groups of type saml whose names are exactly among `names`. */
export function samlGroupsByNames(q: Q, names: readonly string[]): { id: string; name: string }[] {
  if (names.length === 0) return [];
  return q
    .select({ id: groups.id, name: groups.name })
    .from(groups)
    .where(and(eq(groups.type, "saml"), inArray(groups.name, [...names])))
    .all();
}

/** The ids of the groups of type saml the user is a member of. */
export function samlGroupIdsOfUser(q: Q, userId: string): string[] {
  return q
    .select({ id: groupUsers.groupId })
    .from(groupUsers)
    .innerJoin(groups, eq(groups.id, groupUsers.groupId))
    .where(and(eq(groupUsers.userId, userId), eq(groups.type, "saml")))
    .all()
    .map((r) => r.id);
}

/** Replaces the user's membership in groups of type saml by `groupIds` (other groups are untouched). */
export function setSamlGroupIdsOfUser(q: Q, userId: string, groupIds: readonly string[]): void {
  const current = samlGroupIdsOfUser(q, userId);
  const wanted = new Set(groupIds);
  const drop = current.filter((id) => !wanted.has(id));
  if (drop.length > 0)
    q.delete(groupUsers)
      .where(and(eq(groupUsers.userId, userId), inArray(groupUsers.groupId, drop)))
      .run();
  for (const groupId of wanted) if (!current.includes(groupId)) q.insert(groupUsers).values({ groupId, userId }).run();
}

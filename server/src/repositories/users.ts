/**
 * SQL of users, their direct ACL assignments and the ACLs they reach through groups.
 */
import { count, eq, exists, inArray, and, isNull, gt, or, sql } from "drizzle-orm";
import type { SQL, SQLWrapper } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type users } from "../db/schema.ts";

type Q = Db | Tx;
/** A user row. */
export type UserRow = typeof users.$inferSelect;

/** Reads a user by id. */
export async function getUser(q: Q, id: string): Promise<UserRow | undefined> {
  const { users } = tablesOf(q);
  return (await q.select().from(users).where(eq(users.id, id)).limit(1))[0];
}

/** Reads a user by user name (exact). */
export async function getUserByName(q: Q, userName: string): Promise<UserRow | undefined> {
  const { users } = tablesOf(q);
  return (await q.select().from(users).where(eq(users.userName, userName)).limit(1))[0];
}

/** Lists every user, oldest first. */
export async function listUsers(q: Q): Promise<UserRow[]> {
  const { users } = tablesOf(q);
  return await q.select().from(users).orderBy(users.createdAt);
}

/** The ACL ids assigned to the user directly (User.AclIds). */
export async function directAclIds(q: Q, userId: string): Promise<string[]> {
  const { userAcls } = tablesOf(q);
  return (await q.select({ id: userAcls.aclId }).from(userAcls).where(eq(userAcls.userId, userId))).map((r) => r.id);
}

/** Replaces the user's direct ACL assignments. */
export async function setDirectAclIds(q: Q, userId: string, aclIds: readonly string[]): Promise<void> {
  const { userAcls } = tablesOf(q);
  await q.delete(userAcls).where(eq(userAcls.userId, userId));
  for (const aclId of new Set(aclIds)) await q.insert(userAcls).values({ userId, aclId });
}

/** Every ACL id the user reaches, directly or through a group. */
export async function assignedAclIds(q: Q, userId: string): Promise<string[]> {
  const { groupAcls, groupUsers } = tablesOf(q);
  const direct = await directAclIds(q, userId);
  const viaGroups = (
    await q
      .select({ id: groupAcls.aclId })
      .from(groupAcls)
      .innerJoin(groupUsers, eq(groupUsers.groupId, groupAcls.groupId))
      .where(eq(groupUsers.userId, userId))
  ).map((r) => r.id);
  return [...new Set([...direct, ...viaGroups])];
}

/**
 * The SQL condition "ACL `aclId` is assigned to user `userId`, directly or through a group" (the rule of
 * `assignedAclIds`), for a query that names both: each a column or a placeholder of its own.
 */
export function assignedCondition(q: Q, userId: SQLWrapper, aclId: SQLWrapper): SQL {
  const { userAcls, groupAcls, groupUsers } = tablesOf(q);
  const direct = q
    .select({ one: sql`1` })
    .from(userAcls)
    .where(and(eq(userAcls.userId, userId), eq(userAcls.aclId, aclId)));
  const viaGroup = q
    .select({ one: sql`1` })
    .from(groupAcls)
    .innerJoin(groupUsers, eq(groupUsers.groupId, groupAcls.groupId))
    .where(and(eq(groupUsers.userId, userId), eq(groupAcls.aclId, aclId)));
  return or(exists(direct), exists(viaGroup)) as SQL;
}

/** Ids of the user's live sessions (not ended, end in the future). */
export async function liveSessionIds(q: Q, userId: string, now: number): Promise<string[]> {
  const { userSessions } = tablesOf(q);
  return (
    await q
      .select({ id: userSessions.id })
      .from(userSessions)
      .where(and(eq(userSessions.userId, userId), isNull(userSessions.endedAt), gt(userSessions.endsAt, now)))
      .orderBy(userSessions.createdAt)
  ).map((r) => r.id);
}

/** Ends the given sessions with a reason. */
export async function endSessions(q: Q, ids: readonly string[], now: number, reason: string): Promise<void> {
  const { userSessions } = tablesOf(q);
  if (ids.length === 0) return;
  await q
    .update(userSessions)
    .set({ endedAt: now, endReason: reason })
    .where(inArray(userSessions.id, [...ids]));
}

/** Clears a user's TOTP secret and last used step (the next sign-in enrols again). */
export async function clearUserTotp(q: Q, userId: string): Promise<void> {
  const { users } = tablesOf(q);
  await q.update(users).set({ totpSecretEnc: null, totpLastStep: null }).where(eq(users.id, userId));
}

/** Changes columns of a user. */
export async function updateUser(q: Q, id: string, set: Partial<Omit<UserRow, "id">>): Promise<void> {
  const { users } = tablesOf(q);
  await q.update(users).set(set).where(eq(users.id, id));
}

/** Inserts a user row. */
export async function insertUser(q: Q, row: typeof users.$inferInsert): Promise<void> {
  const { users } = tablesOf(q);
  await q.insert(users).values(row);
}

/** Deletes a user row (their sessions, grants and assignments go with it by cascade). */
export async function deleteUser(q: Q, id: string): Promise<void> {
  const { users } = tablesOf(q);
  await q.delete(users).where(eq(users.id, id));
}

/** How many users there are. */
export async function countUsers(q: Q): Promise<number> {
  const { users } = tablesOf(q);
  return (await q.select({ n: count() }).from(users).limit(1))[0]?.n ?? 0;
}

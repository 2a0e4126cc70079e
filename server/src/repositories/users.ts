/**
 * SQL of users, their direct ACL assignments and the ACLs they reach through groups.
 */
import { count, eq, inArray, and, isNull, gt } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { groupAcls, groupUsers, userAcls, users, userSessions } from "../db/schema.ts";

type Q = Db | Tx;
/** A user row. */
export type UserRow = typeof users.$inferSelect;

/** Reads a user by id. */
export async function getUser(q: Q, id: string): Promise<UserRow | undefined> {
  return await q.select().from(users).where(eq(users.id, id)).get();
}

/** Reads a user by user name (exact). */
export async function getUserByName(q: Q, userName: string): Promise<UserRow | undefined> {
  return await q.select().from(users).where(eq(users.userName, userName)).get();
}

/** Lists every user, oldest first. */
export async function listUsers(q: Q): Promise<UserRow[]> {
  return await q.select().from(users).orderBy(users.createdAt).all();
}

/** The ACL ids assigned to the user directly (User.AclIds). */
export async function directAclIds(q: Q, userId: string): Promise<string[]> {
  return (await q.select({ id: userAcls.aclId }).from(userAcls).where(eq(userAcls.userId, userId)).all()).map(
    (r) => r.id,
  );
}

/** Replaces the user's direct ACL assignments. */
export async function setDirectAclIds(q: Q, userId: string, aclIds: readonly string[]): Promise<void> {
  await q.delete(userAcls).where(eq(userAcls.userId, userId)).run();
  for (const aclId of new Set(aclIds)) await q.insert(userAcls).values({ userId, aclId }).run();
}

/** Every ACL id the user reaches, directly or through a group. */
export async function assignedAclIds(q: Q, userId: string): Promise<string[]> {
  const direct = await directAclIds(q, userId);
  const viaGroups = (
    await q
      .select({ id: groupAcls.aclId })
      .from(groupAcls)
      .innerJoin(groupUsers, eq(groupUsers.groupId, groupAcls.groupId))
      .where(eq(groupUsers.userId, userId))
      .all()
  ).map((r) => r.id);
  return [...new Set([...direct, ...viaGroups])];
}

/** Ids of the user's live sessions (not ended, end in the future). */
export async function liveSessionIds(q: Q, userId: string, now: number): Promise<string[]> {
  return (
    await q
      .select({ id: userSessions.id })
      .from(userSessions)
      .where(and(eq(userSessions.userId, userId), isNull(userSessions.endedAt), gt(userSessions.endsAt, now)))
      .orderBy(userSessions.createdAt)
      .all()
  ).map((r) => r.id);
}

/** Ends the given sessions with a reason. */
export async function endSessions(q: Q, ids: readonly string[], now: number, reason: string): Promise<void> {
  if (ids.length === 0) return;
  await q
    .update(userSessions)
    .set({ endedAt: now, endReason: reason })
    .where(inArray(userSessions.id, [...ids]))
    .run();
}

/** Clears a user's TOTP secret and last used step (the next sign-in enrols again). */
export async function clearUserTotp(q: Q, userId: string): Promise<void> {
  await q.update(users).set({ totpSecretEnc: null, totpLastStep: null }).where(eq(users.id, userId)).run();
}

/** Changes columns of a user. */
export async function updateUser(q: Q, id: string, set: Partial<Omit<UserRow, "id">>): Promise<void> {
  await q.update(users).set(set).where(eq(users.id, id)).run();
}

/** Inserts a user row. */
export async function insertUser(q: Q, row: typeof users.$inferInsert): Promise<void> {
  await q.insert(users).values(row).run();
}

/** Deletes a user row (their sessions, grants and assignments go with it by cascade). */
export async function deleteUser(q: Q, id: string): Promise<void> {
  await q.delete(users).where(eq(users.id, id)).run();
}

/** How many users there are. */
export async function countUsers(q: Q): Promise<number> {
  return (await q.select({ n: count() }).from(users).get())?.n ?? 0;
}

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
export function getUser(q: Q, id: string): UserRow | undefined {
  return q.select().from(users).where(eq(users.id, id)).get();
}

/** Reads a user by user name (exact). */
export function getUserByName(q: Q, userName: string): UserRow | undefined {
  return q.select().from(users).where(eq(users.userName, userName)).get();
}

/** Lists every user, oldest first. */
export function listUsers(q: Q): UserRow[] {
  return q.select().from(users).orderBy(users.createdAt).all();
}

/** The ACL ids assigned to the user directly (User.AclIds). */
export function directAclIds(q: Q, userId: string): string[] {
  return q
    .select({ id: userAcls.aclId })
    .from(userAcls)
    .where(eq(userAcls.userId, userId))
    .all()
    .map((r) => r.id);
}

/** Replaces the user's direct ACL assignments. */
export function setDirectAclIds(q: Q, userId: string, aclIds: readonly string[]): void {
  q.delete(userAcls).where(eq(userAcls.userId, userId)).run();
  for (const aclId of new Set(aclIds)) q.insert(userAcls).values({ userId, aclId }).run();
}

/** Every ACL id the user reaches, directly or through a group. */
export function assignedAclIds(q: Q, userId: string): string[] {
  const direct = directAclIds(q, userId);
  const viaGroups = q
    .select({ id: groupAcls.aclId })
    .from(groupAcls)
    .innerJoin(groupUsers, eq(groupUsers.groupId, groupAcls.groupId))
    .where(eq(groupUsers.userId, userId))
    .all()
    .map((r) => r.id);
  return [...new Set([...direct, ...viaGroups])];
}

/** Ids of the user's live sessions (not ended, end in the future). */
export function liveSessionIds(q: Q, userId: string, now: number): string[] {
  return q
    .select({ id: userSessions.id })
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.endedAt), gt(userSessions.endsAt, now)))
    .orderBy(userSessions.createdAt)
    .all()
    .map((r) => r.id);
}

/** Ends the given sessions with a reason. */
export function endSessions(q: Q, ids: readonly string[], now: number, reason: string): void {
  if (ids.length === 0) return;
  q.update(userSessions)
    .set({ endedAt: now, endReason: reason })
    .where(inArray(userSessions.id, [...ids]))
    .run();
}

/** Clears a user's TOTP secret and last used step (the next sign-in enrols again). */
export function clearUserTotp(q: Q, userId: string): void {
  q.update(users).set({ totpSecretEnc: null, totpLastStep: null }).where(eq(users.id, userId)).run();
}

/** Changes columns of a user. */
export function updateUser(q: Q, id: string, set: Partial<Omit<UserRow, "id">>): void {
  q.update(users).set(set).where(eq(users.id, id)).run();
}

/** Inserts a user row. */
export function insertUser(q: Q, row: typeof users.$inferInsert): void {
  q.insert(users).values(row).run();
}

/** Deletes a user row (their sessions, grants and assignments go with it by cascade). */
export function deleteUser(q: Q, id: string): void {
  q.delete(users).where(eq(users.id, id)).run();
}

/** How many users there are. */
export function countUsers(q: Q): number {
  return q.select({ n: count() }).from(users).get()?.n ?? 0;
}

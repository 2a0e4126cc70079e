/**
 * SQL of groups, their members (group_users) and their ACLs (group_acls).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { acls, groupAcls, groups, groupUsers, users } from "../db/schema.ts";

type Q = Db | Tx;
/** A group row. */
export type GroupRow = typeof groups.$inferSelect;
/** The insertable fields of a group. */
export type NewGroup = typeof groups.$inferInsert;

/** Lists every group by name. */
export async function listGroups(q: Q): Promise<GroupRow[]> {
  return await q.select().from(groups).orderBy(asc(groups.name)).all();
}

/** Reads a group by id. */
export async function getGroup(q: Q, id: string): Promise<GroupRow | undefined> {
  return await q.select().from(groups).where(eq(groups.id, id)).get();
}

/** Reads a group by its exact name. */
export async function getGroupByName(q: Q, name: string): Promise<GroupRow | undefined> {
  return await q.select().from(groups).where(eq(groups.name, name)).get();
}

/** Inserts a group. */
export async function insertGroup(q: Q, row: NewGroup): Promise<void> {
  await q.insert(groups).values(row).run();
}

/** Updates a group's name and description. */
export async function updateGroup(q: Q, id: string, fields: { name: string; description: string }): Promise<void> {
  await q.update(groups).set(fields).where(eq(groups.id, id)).run();
}

/** Deletes a group (its member and ACL rows cascade). */
export async function deleteGroup(q: Q, id: string): Promise<void> {
  await q.delete(groups).where(eq(groups.id, id)).run();
}

/** The ACL ids the group grants (Group.ACLIDs). */
export async function groupAclIds(q: Q, groupId: string): Promise<string[]> {
  return (await q.select({ id: groupAcls.aclId }).from(groupAcls).where(eq(groupAcls.groupId, groupId)).all()).map(
    (r) => r.id,
  );
}

/** The ids of the group's members (Group.UserIDs). */
export async function groupUserIds(q: Q, groupId: string): Promise<string[]> {
  return (await q.select({ id: groupUsers.userId }).from(groupUsers).where(eq(groupUsers.groupId, groupId)).all()).map(
    (r) => r.id,
  );
}

/** How many of the group's ACLs admins see (Passive+ hidden children are not counted). */
export async function visibleAclCount(q: Q, groupId: string): Promise<number> {
  return (
    await q
      .select({ id: groupAcls.aclId })
      .from(groupAcls)
      .innerJoin(acls, eq(acls.id, groupAcls.aclId))
      .where(and(eq(groupAcls.groupId, groupId), eq(acls.hideFromAdmins, false)))
      .all()
  ).length;
}

/** Replaces the group's ACLs. */
export async function setGroupAclIds(q: Q, groupId: string, aclIds: readonly string[]): Promise<void> {
  await q.delete(groupAcls).where(eq(groupAcls.groupId, groupId)).run();
  for (const aclId of new Set(aclIds)) await q.insert(groupAcls).values({ groupId, aclId }).run();
}

/** Replaces the group's members. */
export async function setGroupUserIds(q: Q, groupId: string, userIds: readonly string[]): Promise<void> {
  await q.delete(groupUsers).where(eq(groupUsers.groupId, groupId)).run();
  for (const userId of new Set(userIds)) await q.insert(groupUsers).values({ groupId, userId }).run();
}

/** The groups a user is a member of, by name. */
export async function groupsOfUser(q: Q, userId: string): Promise<GroupRow[]> {
  return (
    await q
      .select({ g: groups })
      .from(groups)
      .innerJoin(groupUsers, eq(groupUsers.groupId, groups.id))
      .where(eq(groupUsers.userId, userId))
      .orderBy(asc(groups.name))
      .all()
  ).map((r) => r.g);
}

/** Splits ids into chunks that stay well below SQLite's bound-parameter limit. */
function chunks(ids: readonly string[]): string[][] {
  const unique = [...new Set(ids)];
  const out: string[][] = [];
  for (let i = 0; i < unique.length; i += 500) out.push(unique.slice(i, i + 500));
  return out;
}

/** Runs `query` on each chunk of `ids` in turn and joins the rows. */
async function inChunks<T>(ids: readonly string[], query: (part: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (const part of chunks(ids)) out.push(...(await query(part)));
  return out;
}

/** Which of `ids` are users, with their AuthType. */
export async function usersByIds(q: Q, ids: readonly string[]): Promise<{ id: string; authType: string }[]> {
  return inChunks(ids, (part) =>
    q.select({ id: users.id, authType: users.authType }).from(users).where(inArray(users.id, part)).all(),
  );
}

/** Which of `ids` are ACLs. */
export async function existingAclIds(q: Q, ids: readonly string[]): Promise<string[]> {
  const rows = await inChunks(ids, (part) => q.select({ id: acls.id }).from(acls).where(inArray(acls.id, part)).all());
  return rows.map((r) => r.id);
}

/** The (ACL, group) pairs through which a user reaches ACLs, with the group's name. */
export async function aclsViaGroups(
  q: Q,
  userId: string,
): Promise<{ aclId: string; groupId: string; groupName: string }[]> {
  return await q
    .select({ aclId: groupAcls.aclId, groupId: groups.id, groupName: groups.name })
    .from(groupAcls)
    .innerJoin(groupUsers, eq(groupUsers.groupId, groupAcls.groupId))
    .innerJoin(groups, eq(groups.id, groupAcls.groupId))
    .where(eq(groupUsers.userId, userId))
    .orderBy(asc(groups.name))
    .all();
}

/** The display fields of the given ACLs. */
export async function aclSummaries(
  q: Q,
  ids: readonly string[],
): Promise<
  { id: string; description: string; url: string; category: string; icon: string; hideFromAdmins: boolean }[]
> {
  const rows = await inChunks(ids, (part) =>
    q
      .select({
        id: acls.id,
        description: acls.description,
        url: acls.url,
        category: acls.category,
        icon: acls.icon,
        hideFromAdmins: acls.hideFromAdmins,
      })
      .from(acls)
      .where(inArray(acls.id, part))
      .all(),
  );
  return rows.sort((a, b) => a.description.localeCompare(b.description));
}

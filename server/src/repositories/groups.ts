/**
 * SQL of groups, their members (group_users) and their ACLs (group_acls).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type groups } from "../db/schema.ts";

type Q = Db | Tx;
/** A group row. */
export type GroupRow = typeof groups.$inferSelect;
/** The insertable fields of a group. */
export type NewGroup = typeof groups.$inferInsert;

/** Lists every group by name. */
export async function listGroups(q: Q): Promise<GroupRow[]> {
  const { groups } = tablesOf(q);
  return await q.select().from(groups).orderBy(asc(groups.name));
}

/** Reads a group by id. */
export async function getGroup(q: Q, id: string): Promise<GroupRow | undefined> {
  const { groups } = tablesOf(q);
  return (await q.select().from(groups).where(eq(groups.id, id)).limit(1))[0];
}

/** Reads a group by its exact name. */
export async function getGroupByName(q: Q, name: string): Promise<GroupRow | undefined> {
  const { groups } = tablesOf(q);
  return (await q.select().from(groups).where(eq(groups.name, name)).limit(1))[0];
}

/** Inserts a group. */
export async function insertGroup(q: Q, row: NewGroup): Promise<void> {
  const { groups } = tablesOf(q);
  await q.insert(groups).values(row);
}

/** Updates a group's name and description. */
export async function updateGroup(q: Q, id: string, fields: { name: string; description: string }): Promise<void> {
  const { groups } = tablesOf(q);
  await q.update(groups).set(fields).where(eq(groups.id, id));
}

/** Deletes a group (its member and ACL rows cascade). */
export async function deleteGroup(q: Q, id: string): Promise<void> {
  const { groups } = tablesOf(q);
  await q.delete(groups).where(eq(groups.id, id));
}

/** The ACL ids the group grants (Group.ACLIDs). */
export async function groupAclIds(q: Q, groupId: string): Promise<string[]> {
  const { groupAcls } = tablesOf(q);
  return (await q.select({ id: groupAcls.aclId }).from(groupAcls).where(eq(groupAcls.groupId, groupId))).map(
    (r) => r.id,
  );
}

/** The ids of the group's members (Group.UserIDs). */
export async function groupUserIds(q: Q, groupId: string): Promise<string[]> {
  const { groupUsers } = tablesOf(q);
  return (await q.select({ id: groupUsers.userId }).from(groupUsers).where(eq(groupUsers.groupId, groupId))).map(
    (r) => r.id,
  );
}

/** How many of the group's ACLs admins see (Passive+ hidden children are not counted). */
export async function visibleAclCount(q: Q, groupId: string): Promise<number> {
  const { acls, groupAcls } = tablesOf(q);
  return (
    await q
      .select({ id: groupAcls.aclId })
      .from(groupAcls)
      .innerJoin(acls, eq(acls.id, groupAcls.aclId))
      .where(and(eq(groupAcls.groupId, groupId), eq(acls.hideFromAdmins, false)))
  ).length;
}

/** Replaces the group's ACLs. */
export async function setGroupAclIds(q: Q, groupId: string, aclIds: readonly string[]): Promise<void> {
  const { groupAcls } = tablesOf(q);
  await q.delete(groupAcls).where(eq(groupAcls.groupId, groupId));
  for (const aclId of new Set(aclIds)) await q.insert(groupAcls).values({ groupId, aclId });
}

/** Replaces the group's members. */
export async function setGroupUserIds(q: Q, groupId: string, userIds: readonly string[]): Promise<void> {
  const { groupUsers } = tablesOf(q);
  await q.delete(groupUsers).where(eq(groupUsers.groupId, groupId));
  for (const userId of new Set(userIds)) await q.insert(groupUsers).values({ groupId, userId });
}

/** The groups a user is a member of, by name. */
export async function groupsOfUser(q: Q, userId: string): Promise<GroupRow[]> {
  const { groupUsers, groups } = tablesOf(q);
  return (
    await q
      .select({ g: groups })
      .from(groups)
      .innerJoin(groupUsers, eq(groupUsers.groupId, groups.id))
      .where(eq(groupUsers.userId, userId))
      .orderBy(asc(groups.name))
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
  const { users } = tablesOf(q);
  return inChunks(ids, (part) =>
    q.select({ id: users.id, authType: users.authType }).from(users).where(inArray(users.id, part)),
  );
}

/** Which of `ids` are ACLs. */
export async function existingAclIds(q: Q, ids: readonly string[]): Promise<string[]> {
  const { acls } = tablesOf(q);
  const rows = await inChunks(ids, (part) => q.select({ id: acls.id }).from(acls).where(inArray(acls.id, part)));
  return rows.map((r) => r.id);
}

/** The (ACL, group) pairs through which a user reaches ACLs, with the group's name. */
export async function aclsViaGroups(
  q: Q,
  userId: string,
): Promise<{ aclId: string; groupId: string; groupName: string }[]> {
  const { groupAcls, groupUsers, groups } = tablesOf(q);
  return await q
    .select({ aclId: groupAcls.aclId, groupId: groups.id, groupName: groups.name })
    .from(groupAcls)
    .innerJoin(groupUsers, eq(groupUsers.groupId, groupAcls.groupId))
    .innerJoin(groups, eq(groups.id, groupAcls.groupId))
    .where(eq(groupUsers.userId, userId))
    .orderBy(asc(groups.name));
}

/** The display fields of the given ACLs. */
export async function aclSummaries(
  q: Q,
  ids: readonly string[],
): Promise<
  { id: string; description: string; url: string; category: string; icon: string; hideFromAdmins: boolean }[]
> {
  const { acls } = tablesOf(q);
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
      .where(inArray(acls.id, part)),
  );
  return rows.sort((a, b) => a.description.localeCompare(b.description));
}

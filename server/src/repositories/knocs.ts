/**
 * SQL of Knoc assignments (which users and groups an ACL is assigned to) and of the API key scopes
 * a Knoc adds to an existing key.
 */
import { and, count, eq, inArray } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
type Q = Db | Tx;

/** Users the ACL is assigned to directly. */
export async function aclUserIds(q: Q, aclId: string): Promise<string[]> {
  const { userAcls } = tablesOf(q);
  return (await q.select({ id: userAcls.userId }).from(userAcls).where(eq(userAcls.aclId, aclId))).map((r) => r.id);
}

/** Groups the ACL is assigned to. */
export async function aclGroupIds(q: Q, aclId: string): Promise<string[]> {
  const { groupAcls } = tablesOf(q);
  return (await q.select({ id: groupAcls.groupId }).from(groupAcls).where(eq(groupAcls.aclId, aclId))).map((r) => r.id);
}

/** Users reaching the ACL directly or through a group. */
export async function aclReachingUserIds(q: Q, aclId: string): Promise<string[]> {
  const { groupAcls, groupUsers } = tablesOf(q);
  const viaGroups = (
    await q
      .select({ id: groupUsers.userId })
      .from(groupUsers)
      .innerJoin(groupAcls, eq(groupAcls.groupId, groupUsers.groupId))
      .where(eq(groupAcls.aclId, aclId))
  ).map((r) => r.id);
  return [...new Set([...(await aclUserIds(q, aclId)), ...viaGroups])];
}

/** Members of the given groups. */
export async function membersOf(q: Q, groupIds: readonly string[]): Promise<string[]> {
  const { groupUsers } = tablesOf(q);
  if (groupIds.length === 0) return [];
  return (
    await q
      .select({ id: groupUsers.userId })
      .from(groupUsers)
      .where(inArray(groupUsers.groupId, [...groupIds]))
  ).map((r) => r.id);
}

/** Makes the ACL's direct user assignments exactly `userIds`. */
export async function setAclUsers(q: Q, aclId: string, userIds: readonly string[]): Promise<void> {
  const { userAcls } = tablesOf(q);
  await q.delete(userAcls).where(eq(userAcls.aclId, aclId));
  for (const userId of new Set(userIds)) await q.insert(userAcls).values({ userId, aclId });
}

/** Makes the ACL's group assignments exactly `groupIds`. */
export async function setAclGroups(q: Q, aclId: string, groupIds: readonly string[]): Promise<void> {
  const { groupAcls } = tablesOf(q);
  await q.delete(groupAcls).where(eq(groupAcls.aclId, aclId));
  for (const groupId of new Set(groupIds)) await q.insert(groupAcls).values({ groupId, aclId });
}

/** The ids among `ids` that are not users (unknown ones). */
export async function unknownUserIds(q: Q, ids: readonly string[]): Promise<string[]> {
  const { users } = tablesOf(q);
  if (ids.length === 0) return [];
  const known = new Set(
    (
      await q
        .select({ id: users.id })
        .from(users)
        .where(inArray(users.id, [...ids]))
    ).map((r) => r.id),
  );
  return ids.filter((id) => !known.has(id));
}

/** The ids among `ids` that are not groups (unknown ones). */
export async function unknownGroupIds(q: Q, ids: readonly string[]): Promise<string[]> {
  const { groups } = tablesOf(q);
  if (ids.length === 0) return [];
  const known = new Set(
    (
      await q
        .select({ id: groups.id })
        .from(groups)
        .where(inArray(groups.id, [...ids]))
    ).map((r) => r.id),
  );
  return ids.filter((id) => !known.has(id));
}

/** Number of ACLs on a backend. */
export async function aclsOnBackend(q: Q, backendId: string): Promise<number> {
  const { acls } = tablesOf(q);
  return (await q.select({ n: count() }).from(acls).where(eq(acls.backendId, backendId)).limit(1))[0]?.n ?? 0;
}

/** Child ACLs (Passive+) of an ACL. */
export async function childAclIds(q: Q, aclId: string): Promise<string[]> {
  const { acls } = tablesOf(q);
  return (await q.select({ id: acls.id }).from(acls).where(eq(acls.parentId, aclId))).map((r) => r.id);
}

/** Adds a scope to an API key (a Knoc reusing an existing key for its allowlist). */
export async function addApiKeyScope(q: Q, keyId: string, scope: string): Promise<boolean> {
  const { apiKeys } = tablesOf(q);
  const row = (await q.select({ scopes: apiKeys.scopes }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1))[0];
  if (!row) return false;
  if (!row.scopes.includes(scope))
    await q
      .update(apiKeys)
      .set({ scopes: [...row.scopes, scope] })
      .where(eq(apiKeys.id, keyId));
  return true;
}

/** Removes a scope from an API key; returns the scopes left. */
export async function removeApiKeyScope(q: Q, keyId: string, scope: string): Promise<string[]> {
  const { apiKeys } = tablesOf(q);
  const row = (await q.select({ scopes: apiKeys.scopes }).from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1))[0];
  if (!row) return [];
  const left = row.scopes.filter((s) => s !== scope);
  await q.update(apiKeys).set({ scopes: left }).where(eq(apiKeys.id, keyId));
  return left;
}

/** Sets an ACL's raw config (the Knoc's own bookkeeping, e.g. the API key id of its allowlist). */
export async function setAclConfig(q: Q, aclId: string, config: Record<string, unknown>): Promise<void> {
  const { acls } = tablesOf(q);
  await q
    .update(acls)
    .set({ config })
    .where(and(eq(acls.id, aclId)));
}

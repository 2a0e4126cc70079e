/**
 * SQL of Knoc assignments (which users and groups an ACL is assigned to) and of the API key scopes
 * a Knoc adds to an existing key.
 */
import { and, count, eq, inArray } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { acls, apiKeys, groupAcls, groupUsers, groups, userAcls, users } from "../db/schema.ts";

type Q = Db | Tx;

/** Users the ACL is assigned to directly. */
export function aclUserIds(q: Q, aclId: string): string[] {
  return q
    .select({ id: userAcls.userId })
    .from(userAcls)
    .where(eq(userAcls.aclId, aclId))
    .all()
    .map((r) => r.id);
}

/** Groups the ACL is assigned to. */
export function aclGroupIds(q: Q, aclId: string): string[] {
  return q
    .select({ id: groupAcls.groupId })
    .from(groupAcls)
    .where(eq(groupAcls.aclId, aclId))
    .all()
    .map((r) => r.id);
}

/** Users reaching the ACL directly or through a group. */
export function aclReachingUserIds(q: Q, aclId: string): string[] {
  const viaGroups = q
    .select({ id: groupUsers.userId })
    .from(groupUsers)
    .innerJoin(groupAcls, eq(groupAcls.groupId, groupUsers.groupId))
    .where(eq(groupAcls.aclId, aclId))
    .all()
    .map((r) => r.id);
  return [...new Set([...aclUserIds(q, aclId), ...viaGroups])];
}

/** Members of the given groups. */
export function membersOf(q: Q, groupIds: readonly string[]): string[] {
  if (groupIds.length === 0) return [];
  return q
    .select({ id: groupUsers.userId })
    .from(groupUsers)
    .where(inArray(groupUsers.groupId, [...groupIds]))
    .all()
    .map((r) => r.id);
}

/** Makes the ACL's direct user assignments exactly `userIds`. */
export function setAclUsers(q: Q, aclId: string, userIds: readonly string[]): void {
  q.delete(userAcls).where(eq(userAcls.aclId, aclId)).run();
  for (const userId of new Set(userIds)) q.insert(userAcls).values({ userId, aclId }).run();
}

/** Makes the ACL's group assignments exactly `groupIds`. */
export function setAclGroups(q: Q, aclId: string, groupIds: readonly string[]): void {
  q.delete(groupAcls).where(eq(groupAcls.aclId, aclId)).run();
  for (const groupId of new Set(groupIds)) q.insert(groupAcls).values({ groupId, aclId }).run();
}

/** The ids among `ids` that are not users (unknown ones). */
export function unknownUserIds(q: Q, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const known = new Set(
    q
      .select({ id: users.id })
      .from(users)
      .where(inArray(users.id, [...ids]))
      .all()
      .map((r) => r.id),
  );
  return ids.filter((id) => !known.has(id));
}

/** The ids among `ids` that are not groups (unknown ones). */
export function unknownGroupIds(q: Q, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const known = new Set(
    q
      .select({ id: groups.id })
      .from(groups)
      .where(inArray(groups.id, [...ids]))
      .all()
      .map((r) => r.id),
  );
  return ids.filter((id) => !known.has(id));
}

/** Number of ACLs on a backend. */
export function aclsOnBackend(q: Q, backendId: string): number {
  return q.select({ n: count() }).from(acls).where(eq(acls.backendId, backendId)).get()?.n ?? 0;
}

/** Child ACLs (Passive+) of an ACL. */
export function childAclIds(q: Q, aclId: string): string[] {
  return q
    .select({ id: acls.id })
    .from(acls)
    .where(eq(acls.parentId, aclId))
    .all()
    .map((r) => r.id);
}

/** Adds a scope to an API key (a Knoc reusing an existing key for its allowlist). */
export function addApiKeyScope(q: Q, keyId: string, scope: string): boolean {
  const row = q.select({ scopes: apiKeys.scopes }).from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!row) return false;
  if (!row.scopes.includes(scope))
    q.update(apiKeys)
      .set({ scopes: [...row.scopes, scope] })
      .where(eq(apiKeys.id, keyId))
      .run();
  return true;
}

/** Removes a scope from an API key; returns the scopes left. */
export function removeApiKeyScope(q: Q, keyId: string, scope: string): string[] {
  const row = q.select({ scopes: apiKeys.scopes }).from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  if (!row) return [];
  const left = row.scopes.filter((s) => s !== scope);
  q.update(apiKeys).set({ scopes: left }).where(eq(apiKeys.id, keyId)).run();
  return left;
}

/** Sets an ACL's raw config (the Knoc's own bookkeeping, e.g. the API key id of its allowlist). */
export function setAclConfig(q: Q, aclId: string, config: Record<string, unknown>): void {
  q.update(acls)
    .set({ config })
    .where(and(eq(acls.id, aclId)))
    .run();
}

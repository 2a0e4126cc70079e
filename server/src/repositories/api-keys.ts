/**
 * SQL of API keys (docs/reference.md admin-console §3 "API key") and of what they reach: allowlist ACLs (an ACL on a
 * backend of type allowlist), API-key users, and live user sessions for the `user.sessions` API.
 * No rules here.
 */
import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import { changedRows, type Db, type Tx, tablesOf, type Tables } from "../db/index.ts";
import { type apiKeys } from "../db/schema.ts";

type Q = Db | Tx;

/** An api_keys row (times epoch ms; expiredAfter null = never). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** Values of a new api_keys row. */
export type NewApiKeyRow = typeof apiKeys.$inferInsert;

/** Lists every key by name. */
export async function listApiKeys(q: Q): Promise<ApiKeyRow[]> {
  const { apiKeys } = tablesOf(q);
  return await q.select().from(apiKeys).orderBy(asc(apiKeys.name));
}

/** Reads one key by id. */
export async function getApiKey(q: Q, id: string): Promise<ApiKeyRow | undefined> {
  const { apiKeys } = tablesOf(q);
  return (await q.select().from(apiKeys).where(eq(apiKeys.id, id)).limit(1))[0];
}

/** Reads one key by its (unique) name. */
export async function getApiKeyByName(q: Q, name: string): Promise<ApiKeyRow | undefined> {
  const { apiKeys } = tablesOf(q);
  return (await q.select().from(apiKeys).where(eq(apiKeys.name, name)).limit(1))[0];
}

/** Inserts a key. */
export async function insertApiKey(q: Q, row: NewApiKeyRow): Promise<void> {
  const { apiKeys } = tablesOf(q);
  await q.insert(apiKeys).values(row);
}

/** Replaces a key's AllowedFrom list. */
export async function setAllowedFrom(q: Q, id: string, allowedFrom: { Prefix: string; Note: string }[]): Promise<void> {
  const { apiKeys } = tablesOf(q);
  await q.update(apiKeys).set({ allowedFrom }).where(eq(apiKeys.id, id));
}

/** Sets a key's LastUsedAt (epoch ms). */
export async function touchApiKey(q: Q, id: string, at: number): Promise<void> {
  const { apiKeys } = tablesOf(q);
  await q.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
}

/** Deletes a key; returns whether a row went. */
export async function deleteApiKey(q: Q, id: string): Promise<boolean> {
  const { apiKeys } = tablesOf(q);
  return changedRows(await q.delete(apiKeys).where(eq(apiKeys.id, id))) > 0;
}

/** An ACL on an allowlist backend: its id, description and Config (Config.allowlist holds Token, ApiKeyId, …). */
export interface AllowlistAclRow {
  id: string;
  description: string;
  config: Record<string, unknown>;
}

/** The ACL `aclId` when it is an allowlist ACL (its backend's type is allowlist); undefined otherwise. */
export async function getAllowlistAcl(q: Q, aclId: string): Promise<AllowlistAclRow | undefined> {
  const { acls, backends } = tablesOf(q);
  return (
    await q
      .select({ id: acls.id, description: acls.description, config: acls.config })
      .from(acls)
      .innerJoin(backends, eq(backends.id, acls.backendId))
      .where(and(eq(acls.id, aclId), eq(backends.type, "allowlist")))
      .limit(1)
  )[0];
}

/** Every allowlist ACL (few: one per passive Knoc). */
export async function listAllowlistAcls(q: Q): Promise<AllowlistAclRow[]> {
  const { acls, backends } = tablesOf(q);
  return await q
    .select({ id: acls.id, description: acls.description, config: acls.config })
    .from(acls)
    .innerJoin(backends, eq(backends.id, acls.backendId))
    .where(eq(backends.type, "allowlist"))
    .orderBy(asc(acls.description));
}

/** Descriptions of the given ACLs, by id (unknown ids are absent). */
export async function aclDescriptions(q: Q, ids: readonly string[]): Promise<Map<string, string>> {
  const { acls } = tablesOf(q);
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: acls.id, description: acls.description })
    .from(acls)
    .where(inArray(acls.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r.description]));
}

/** Id, user name, name and auth type of the given users, by id (unknown ids are absent). */
export async function usersByIds(
  q: Q,
  ids: readonly string[],
): Promise<Map<string, { userName: string; name: string; authType: string }>> {
  const { users } = tablesOf(q);
  if (ids.length === 0) return new Map();
  const rows = await q
    .select({ id: users.id, userName: users.userName, name: users.name, authType: users.authType })
    .from(users)
    .where(inArray(users.id, [...ids]));
  return new Map(rows.map((r) => [r.id, { userName: r.userName, name: r.name, authType: r.authType }]));
}

/** A live user session with its user's name (times epoch ms). */
export interface LiveSessionRow {
  id: string;
  userName: string;
  createdAt: number;
  endsAt: number;
  ipAddress: string;
}

const liveSessionColumns = ({ users, userSessions }: Tables) => ({
  id: userSessions.id,
  userName: users.userName,
  createdAt: userSessions.createdAt,
  endsAt: userSessions.endsAt,
  ipAddress: userSessions.ipAddress,
});

/** Every live user session (not ended, end after `now`), oldest first. */
export async function listLiveSessions(q: Q, now: number): Promise<LiveSessionRow[]> {
  const { userSessions, users } = tablesOf(q);
  return await q
    .select(liveSessionColumns(tablesOf(q)))
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(and(isNull(userSessions.endedAt), gt(userSessions.endsAt, now)))
    .orderBy(asc(userSessions.createdAt), asc(userSessions.id));
}

/** One live user session by id; undefined when unknown, ended or past its end. */
export async function getLiveSession(q: Q, id: string, now: number): Promise<LiveSessionRow | undefined> {
  const { userSessions, users } = tablesOf(q);
  return (
    await q
      .select(liveSessionColumns(tablesOf(q)))
      .from(userSessions)
      .innerJoin(users, eq(users.id, userSessions.userId))
      .where(and(eq(userSessions.id, id), isNull(userSessions.endedAt), gt(userSessions.endsAt, now)))
      .limit(1)
  )[0];
}

/**
 * SQL of grants, their addresses and status history, and the enforcement queries built on them
 * (reference counting of (ACL, address) entries over grants).
 */
import { and, eq, inArray, isNotNull, isNull, lte, gt, or, sql, ne } from "drizzle-orm";
import type { SQL } from "drizzle-orm";
import { scalar, dialectOf, type Db, type Tx, tablesOf, type Tables } from "../db/index.ts";
import { type grants } from "../db/schema.ts";
import type { ObservedAddress } from "../db/schema.ts";
import type { AclRow } from "./acls.ts";
import type { BackendRow } from "./backends.ts";
import { prepared } from "../db/prepared.ts";
import type { UserSessionRow } from "./sessions.ts";
import { assignedCondition } from "./users.ts";

/**
 * Statuses in which a grant holds its addresses in its target: Granted, Pending, AgentOffline, Read,
 * and Published (in a passive allowlist).
 */
export const HOLDING_STATUSES = [0, 2, 3, 5, 6] as const;

/** The ACL and backend columns a target needs (services/grants/targets.ts builds the target). */
export interface TargetSource {
  aclId: string;
  aclConfig: Record<string, unknown>;
  backendId: string;
  backendType: string;
  backendConfig: Record<string, unknown>;
  /** The backend's sealed secrets (`backends.sealed_secrets`): its fields and `acl:<id>:env:<NAME>` variables. */
  sealedSecrets?: Record<string, string>;
}

/** An address the server observed for a session, as stored with it. */
export type { ObservedAddress } from "../db/schema.ts";

type Q = Db | Tx;

/** A placeholder of a prepared query (db/prepared.ts). */
const ph = (name: string) => sql.placeholder(name);

/** A grant row. */
export type GrantRow = typeof grants.$inferSelect;

const grantById = prepared<{ id: string }, GrantRow[]>("grantById", (q) => {
  const { grants } = tablesOf(q);
  return q
    .select()
    .from(grants)
    .where(eq(grants.id, ph("id")))
    .limit(1);
});

/** Reads one grant. */
export async function getGrant(q: Q, id: string): Promise<GrantRow | undefined> {
  return (await grantById(q, { id }))[0];
}

/** Reads the grant of (session, ACL). */
export async function getGrantFor(q: Q, sessionId: string, aclId: string): Promise<GrantRow | undefined> {
  const { grants } = tablesOf(q);
  return (
    await q
      .select()
      .from(grants)
      .where(and(eq(grants.sessionId, sessionId), eq(grants.aclId, aclId)))
      .limit(1)
  )[0];
}

/** The session columns the grant request uses. */
export type GrantRequestSession = Pick<UserSessionRow, "userId" | "endedAt" | "endsAt" | "ipAddress" | "discoveredIps">;

/** The ACL columns the grant request uses (approval hooks included). */
export type GrantRequestAcl = Pick<
  AclRow,
  | "id"
  | "description"
  | "config"
  | "cgnatOpen"
  | "grantType"
  | "ipExclusions"
  | "maximumGrantDurationSeconds"
  | "requiresApproval"
  | "approvalTimeoutSeconds"
>;

/** What the grant request reads before it decides (`grantRequestRead`). */
export interface GrantRequestRow {
  readonly grant: GrantRow;
  readonly session: GrantRequestSession;
  /** The ACL is assigned to the session's user, directly or through a group (users.ts `assignedCondition`). */
  readonly assigned: boolean;
  /** The ACL, or null when there is none. */
  readonly acl: GrantRequestAcl | null;
  /** The ACL's target source (as `aclTargetSource`), or undefined when it has no backend. */
  readonly source: (TargetSource & { agentId: string | null }) | undefined;
}

/**
 * Everything POST /grant reads before it decides, in one statement (issue #13: the grant path): the
 * status entry of the session on the ACL, the session, whether the ACL is assigned to the session's
 * user, the ACL and its backend. Only the columns the grant path uses: each column a row carries costs
 * ~1.3 µs to hand over here (measured on SQLite, 2026-11-26), so the rows' other ~30 are left out.
 * Undefined when the session has no entry for that ACL.
 */
export async function grantRequestRead(q: Q, sessionId: string, aclId: string): Promise<GrantRequestRow | undefined> {
  const row = (await grantRequest(q, { sessionId, aclId }))[0];
  if (!row) return undefined;
  const { acl, backend } = row;
  return {
    grant: row.grant,
    session: row.session,
    assigned: acl !== null && Boolean(row.assigned),
    acl,
    source:
      acl && backend
        ? {
            aclId: acl.id,
            aclConfig: acl.config,
            backendId: backend.id,
            backendType: backend.type,
            backendConfig: backend.config,
            sealedSecrets: backend.sealedSecrets,
            agentId: backend.agentId,
          }
        : undefined,
  };
}

const grantRequest = prepared<
  { sessionId: string; aclId: string },
  {
    grant: GrantRow;
    session: GrantRequestSession;
    assigned: unknown;
    acl: GrantRequestAcl | null;
    backend: Pick<BackendRow, "id" | "type" | "config" | "sealedSecrets" | "agentId"> | null;
  }[]
>("grantRequest", (q) => {
  const { acls, backends, grants, userSessions } = tablesOf(q);
  return q
    .select({
      grant: grants,
      session: {
        userId: userSessions.userId,
        endedAt: userSessions.endedAt,
        endsAt: userSessions.endsAt,
        ipAddress: userSessions.ipAddress,
        discoveredIps: userSessions.discoveredIps,
      },
      assigned: sql<unknown>`case when ${assignedCondition(q, userSessions.userId, grants.aclId)} then 1 else 0 end`,
      acl: {
        id: acls.id,
        description: acls.description,
        config: acls.config,
        cgnatOpen: acls.cgnatOpen,
        grantType: acls.grantType,
        ipExclusions: acls.ipExclusions,
        maximumGrantDurationSeconds: acls.maximumGrantDurationSeconds,
        requiresApproval: acls.requiresApproval,
        approvalTimeoutSeconds: acls.approvalTimeoutSeconds,
      },
      backend: {
        id: backends.id,
        type: backends.type,
        config: backends.config,
        sealedSecrets: backends.sealedSecrets,
        agentId: backends.agentId,
      },
    })
    .from(grants)
    .innerJoin(userSessions, eq(userSessions.id, grants.sessionId))
    .leftJoin(acls, eq(acls.id, grants.aclId))
    .leftJoin(backends, eq(backends.id, acls.backendId))
    .where(and(eq(grants.sessionId, ph("sessionId")), eq(grants.aclId, ph("aclId"))))
    .limit(1);
});

/** Creates status entries (status 4 Created) for ACLs of a session that have none yet; returns those ACL ids. */
export async function ensureGrantRows(
  q: Q,
  sessionId: string,
  aclIds: readonly string[],
  now: number,
  newId: () => string,
): Promise<string[]> {
  const { grantStatusHistory, grants } = tablesOf(q);
  const created: string[] = [];
  if (aclIds.length === 0) return created;
  const existing = new Set(
    (await q.select({ aclId: grants.aclId }).from(grants).where(eq(grants.sessionId, sessionId))).map((r) => r.aclId),
  );
  for (const aclId of aclIds) {
    if (existing.has(aclId)) continue;
    const id = newId();
    await q.insert(grants).values({ id, sessionId, aclId, status: 4, error: "", updatedAt: now });
    await q.insert(grantStatusHistory).values({ grantId: id, status: 4, error: "", at: now });
    created.push(aclId);
  }
  return created;
}

/** Sets a grant's status (and optional error/expiry fields) and records the transition. */
export async function setGrantStatus(
  q: Q,
  id: string,
  status: number,
  now: number,
  fields: { error?: string; grantedAt?: number | null; expiresAt?: number | null } = {},
): Promise<void> {
  const error = fields.error ?? "";
  const shape = (fields.grantedAt !== undefined ? 1 : 0) + (fields.expiresAt !== undefined ? 2 : 0);
  await statusUpdates[shape]!(q, {
    id,
    status,
    error,
    now,
    grantedAt: fields.grantedAt ?? null,
    expiresAt: fields.expiresAt ?? null,
  });
  await historyInsert(q, { id, status, error, now });
}

/** The status updates of setGrantStatus, by which of grantedAt (1) and expiresAt (2) they set. */
const statusUpdates = [0, 1, 2, 3].map((shape) =>
  prepared<
    { id: string; status: number; error: string; now: number; grantedAt: number | null; expiresAt: number | null },
    unknown
  >(`grantStatus${shape}`, (q) => {
    const { grants } = tablesOf(q);
    return (
      q
        .update(grants)
        // As SQL: drizzle types `set` without placeholders (the values are plain numbers and text).
        .set({
          status: sql`${ph("status")}`,
          error: sql`${ph("error")}`,
          updatedAt: sql`${ph("now")}`,
          ...(shape & 1 ? { grantedAt: sql`${ph("grantedAt")}` } : {}),
          ...(shape & 2 ? { expiresAt: sql`${ph("expiresAt")}` } : {}),
        })
        .where(eq(grants.id, ph("id")))
    );
  }),
);

const historyInsert = prepared<{ id: string; status: number; error: string; now: number }, unknown>(
  "grantHistory",
  (q) => {
    const { grantStatusHistory } = tablesOf(q);
    return q
      .insert(grantStatusHistory)
      .values({ grantId: ph("id"), status: ph("status"), error: ph("error"), at: ph("now") });
  },
);

/** Replaces the addresses a grant carries. */
export async function setGrantAddresses(q: Q, grantId: string, ips: readonly string[]): Promise<void> {
  await addressesDelete(q, { grantId });
  for (const ip of ips) await addressInsert(q, { grantId, ip });
}

const addressesDelete = prepared<{ grantId: string }, unknown>("grantAddressesDelete", (q) => {
  const { grantAddresses } = tablesOf(q);
  return q.delete(grantAddresses).where(eq(grantAddresses.grantId, ph("grantId")));
});

const addressInsert = prepared<{ grantId: string; ip: string }, unknown>("grantAddressInsert", (q) => {
  const { grantAddresses } = tablesOf(q);
  return q.insert(grantAddresses).values({ grantId: ph("grantId"), ip: ph("ip") });
});

const addressesOf = prepared<{ grantId: string }, { ip: string }[]>("grantAddresses", (q) => {
  const { grantAddresses } = tablesOf(q);
  return q
    .select({ ip: grantAddresses.ip })
    .from(grantAddresses)
    .where(eq(grantAddresses.grantId, ph("grantId")));
});

/** Reads the addresses of a grant. */
export async function getGrantAddresses(q: Q, grantId: string): Promise<string[]> {
  return (await addressesOf(q, { grantId })).map((r) => r.ip);
}

/**
 * BY_ADDRESS — the reads of one (ACL, address) entry over the grants that hold it (`entryExpiry`,
 * `grantsHolding`) start from the address (`grant_addresses_ip_idx`: the few grants carrying it) and
 * look each grant up by id. Written as `grant_addresses CROSS JOIN grants` with the join condition in
 * WHERE: SQLite takes a CROSS JOIN's order as given, PostgreSQL plans it as any inner join. Without it,
 * SQLite (no statistics) started from `grants_acl_status_expiry_idx` and visited every holding grant
 * of the ACL: 490 µs per read with 1,000 sessions granted on it, against 27 µs (issue #13, the grant
 * path at 1,000 live sessions; each grant, revoke and acknowledgement runs one per address).
 */

/**
 * The condition joining `grant_addresses CROSS JOIN grants` (BY_ADDRESS) to the grants of the entry
 * (placeholders `aclId`, `ip`).
 */
function entryOfAddress({ grantAddresses, grants }: Tables): SQL | undefined {
  return and(eq(grants.id, grantAddresses.grantId), eq(grants.aclId, ph("aclId")), eq(grantAddresses.ip, ph("ip")));
}

/**
 * The expiry an (ACL, address) entry must carry: the latest expiry over the holding grants that
 * carry it, excluding `exceptGrantId`; null when no other grant holds it (the entry must go).
 */
export async function entryExpiry(
  q: Q,
  aclId: string,
  ip: string,
  now: number,
  exceptGrantId?: string,
): Promise<number | null> {
  // No grant has the empty id: "" excepts none.
  const row = (await entryExpiryRead(q, { aclId, ip, now, except: exceptGrantId ?? "" }))[0];
  return row?.max ?? null;
}

const entryExpiryRead = prepared<{ aclId: string; ip: string; now: number; except: string }, { max: number | null }[]>(
  "entryExpiry",
  (q) => {
    const { grantAddresses, grants } = tablesOf(q);
    return q
      .select({ max: sql<number | null>`max(${grants.expiresAt})` })
      .from(grantAddresses)
      .crossJoin(grants) // from the address: see BY_ADDRESS
      .where(
        and(
          entryOfAddress(tablesOf(q)),
          inArray(grants.status, [...HOLDING_STATUSES]),
          gt(grants.expiresAt, ph("now")),
          ne(grants.id, ph("except")),
        ),
      )
      .limit(1);
  },
);

/** Holding grants of an ACL carrying `ip` whose status is one of `statuses`. */
export async function grantsHolding(q: Q, aclId: string, ip: string, statuses: readonly number[]): Promise<GrantRow[]> {
  const key = statuses.join("_");
  let read = holdingReads.get(key);
  if (read === undefined) {
    const list = [...statuses];
    read = prepared(`grantsHolding_${key}`, (h) => {
      const { grantAddresses, grants } = tablesOf(h);
      return h
        .select({ g: grants })
        .from(grantAddresses)
        .crossJoin(grants) // from the address: see BY_ADDRESS
        .where(and(entryOfAddress(tablesOf(h)), inArray(grants.status, list)));
    });
    holdingReads.set(key, read);
  }
  return (await read(q, { aclId, ip })).map((r) => r.g);
}

/** grantsHolding's reads, one per list of statuses asked for. */
const holdingReads = new Map<string, (q: Q, values: { aclId: string; ip: string }) => Promise<{ g: GrantRow }[]>>();

/** The number of grants in each status (status code → count; statuses with none are left out). */
export async function countGrantsByStatus(q: Q): Promise<Map<number, number>> {
  const { grants } = tablesOf(q);
  const rows = await q
    .select({ status: grants.status, n: sql<number>`count(*)` })
    .from(grants)
    .groupBy(grants.status);
  return new Map(rows.map((r) => [r.status, r.n]));
}

/** Holding grants whose expiry has passed. */
export async function dueGrants(q: Q, now: number): Promise<GrantRow[]> {
  const { grants } = tablesOf(q);
  return await q
    .select()
    .from(grants)
    .where(and(inArray(grants.status, [...HOLDING_STATUSES]), lte(grants.expiresAt, now)));
}

/** Holding grants of the given sessions. */
export async function holdingGrantsOfSessions(q: Q, sessionIds: readonly string[]): Promise<GrantRow[]> {
  const { grants } = tablesOf(q);
  return await holdingGrantsWhere(q, grants.sessionId, sessionIds);
}

/** Holding grants of the given ACLs. */
export async function holdingGrantsOfAcls(q: Q, aclIds: readonly string[]): Promise<GrantRow[]> {
  const { grants } = tablesOf(q);
  return await holdingGrantsWhere(q, grants.aclId, aclIds);
}

async function holdingGrantsWhere(
  q: Q,
  column: typeof grants.sessionId | typeof grants.aclId,
  ids: readonly string[],
): Promise<GrantRow[]> {
  const { grants } = tablesOf(q);
  if (ids.length === 0) return [];
  return await q
    .select()
    .from(grants)
    .where(and(inArray(column, [...ids]), inArray(grants.status, [...HOLDING_STATUSES])));
}

/** The columns of a target source: an ACL joined with its backend. */
const targetColumns = ({ acls, backends }: Tables) => ({
  aclId: acls.id,
  aclConfig: acls.config,
  backendId: backends.id,
  backendType: backends.type,
  backendConfig: backends.config,
  sealedSecrets: backends.sealedSecrets,
  agentId: backends.agentId,
});

/** The target source (ACL + backend) of one ACL, with the backend's agent. */
export async function aclTargetSource(
  q: Q,
  aclId: string,
): Promise<(TargetSource & { agentId: string | null }) | undefined> {
  return (await targetSourceRead(q, { aclId }))[0];
}

const targetSourceRead = prepared<{ aclId: string }, (TargetSource & { agentId: string | null })[]>(
  "aclTargetSource",
  (q) => {
    const { acls, backends } = tablesOf(q);
    return q
      .select(targetColumns(tablesOf(q)))
      .from(acls)
      .innerJoin(backends, eq(backends.id, acls.backendId))
      .where(eq(acls.id, ph("aclId")))
      .limit(1);
  },
);

/** The live addresses published on an allowlist ACL (grants in status 6 not yet expired), sorted. */
export async function publishedAddresses(q: Q, aclId: string, now: number): Promise<string[]> {
  const { grantAddresses, grants } = tablesOf(q);
  return (
    await q
      .selectDistinct({ ip: grantAddresses.ip })
      .from(grants)
      .innerJoin(grantAddresses, eq(grantAddresses.grantId, grants.id))
      .where(and(eq(grants.aclId, aclId), eq(grants.status, 6), gt(grants.expiresAt, now)))
      .orderBy(grantAddresses.ip)
  ).map((r) => r.ip);
}

/**
 * The live addresses published on an allowlist ACL, sorted, and when the first of them expires
 * (epoch ms; null when none is published): the list stays as it is until then unless the database
 * changes (services/allowlist-cache.ts).
 */
export async function publishedAllowlist(
  q: Q,
  aclId: string,
  now: number,
): Promise<{ addresses: string[]; nextExpiry: number | null }> {
  const { grants } = tablesOf(q);
  const live = and(eq(grants.aclId, aclId), eq(grants.status, 6), gt(grants.expiresAt, now));
  const next = (
    await q
      .select({ at: sql<number | null>`min(${grants.expiresAt})` })
      .from(grants)
      .where(live)
      .limit(1)
  )[0];
  return { addresses: await publishedAddresses(q, aclId, now), nextExpiry: next?.at ?? null };
}

/**
 * A mark of the database's writes: equal on two reads means nothing was written in between. On SQLite
 * the rows this process's one connection has changed so far (total_changes(), cascades and rolled-back
 * statements included); on PostgreSQL the write-ahead log's insert position, which every write of every
 * replica moves (pg_current_wal_insert_lsn()). Either may move without a change that matters; neither
 * stays put across one that does.
 */
export async function writeMark(q: Q): Promise<string> {
  if (dialectOf(q) === "postgres")
    return String(await scalar<string>(q, sql`select pg_current_wal_insert_lsn()::text`));
  return String((await scalar<number>(q, sql`select total_changes()`)) ?? 0);
}

/** Every ACL target bound to an agent. */
export async function agentTargetSources(q: Q, agentId: string): Promise<TargetSource[]> {
  const { acls, backends } = tablesOf(q);
  return await q
    .select(targetColumns(tablesOf(q)))
    .from(acls)
    .innerJoin(backends, eq(backends.id, acls.backendId))
    .where(eq(backends.agentId, agentId));
}

/**
 * The live (ACL, address, latest expiry) entries of an agent's ACLs (only those of `onlyAclIds` when
 * given), each with the user name of one grant holding it (the first by name; scripts get it as
 * knoc_username).
 */
export async function agentEntries(
  q: Q,
  agentId: string,
  now: number,
  onlyAclIds?: readonly string[],
): Promise<{ aclId: string; ip: string; expiresAt: number; user: string | null }[]> {
  const { acls, backends, grantAddresses, grants, userSessions, users } = tablesOf(q);
  return await q
    .select({
      aclId: grants.aclId,
      ip: grantAddresses.ip,
      expiresAt: sql<number>`max(${grants.expiresAt})`,
      user: sql<string | null>`min(${users.userName})`,
    })
    .from(grants)
    .innerJoin(grantAddresses, eq(grantAddresses.grantId, grants.id))
    .leftJoin(userSessions, eq(userSessions.id, grants.sessionId))
    .leftJoin(users, eq(users.id, userSessions.userId))
    .innerJoin(acls, eq(acls.id, grants.aclId))
    .innerJoin(backends, eq(backends.id, acls.backendId))
    .where(
      and(
        eq(backends.agentId, agentId),
        inArray(grants.status, [...HOLDING_STATUSES]),
        gt(grants.expiresAt, now),
        onlyAclIds ? inArray(grants.aclId, [...onlyAclIds]) : undefined,
      ),
    )
    .groupBy(grants.aclId, grantAddresses.ip);
}

/**
 * Grants of an agent's ACLs in one of `from` statuses, moved to `to` (only those last changed at or
 * before `changedBy`, epoch ms, when given). Leaving a holding status clears the expiry. Returns how many.
 */
export async function moveAgentGrants(
  q: Q,
  agentId: string,
  from: readonly number[],
  to: number,
  now: number,
  changedBy?: number,
): Promise<number> {
  const { acls, backends, grants } = tablesOf(q);
  const rows = await q
    .select({ id: grants.id })
    .from(grants)
    .innerJoin(acls, eq(acls.id, grants.aclId))
    .innerJoin(backends, eq(backends.id, acls.backendId))
    .where(
      and(
        eq(backends.agentId, agentId),
        inArray(grants.status, [...from]),
        changedBy !== undefined ? lte(grants.updatedAt, changedBy) : undefined,
      ),
    );
  const clear = !(HOLDING_STATUSES as readonly number[]).includes(to);
  for (const r of rows) await setGrantStatus(q, r.id, to, now, clear ? { expiresAt: null } : {});
  return rows.length;
}

/** Every grant in one of `from` statuses moved to `to` (server start). Returns how many. */
export async function moveAllGrants(q: Q, from: readonly number[], to: number, now: number): Promise<number> {
  const { grants } = tablesOf(q);
  const rows = await q
    .select({ id: grants.id })
    .from(grants)
    .where(inArray(grants.status, [...from]));
  for (const r of rows) await setGrantStatus(q, r.id, to, now);
  return rows.length;
}

/**
 * A live session whose effective end has passed, with what bounds it: its own end, the user's
 * ValidUntil, and — for a session an API key signed in — the key's expiry and whether the key
 * still exists. Times epoch ms.
 */
export interface DueSession {
  id: string;
  userId: string;
  userName: string;
  endsAt: number;
  validUntil: number | null;
  apiKeyId: string | null;
  keyExists: boolean;
  keyExpiredAfter: number | null;
}

/**
 * Live sessions whose effective end has passed: the earliest of the session's end, its user's
 * ValidUntil and, for a session an API key signed in, the key's expiry — a key that no longer
 * exists ends it at once (docs/decisions.md "Access ends with the account"). The expiry sweep runs
 * this a few times a second, so each bound is found by its own index-driven query (live sessions
 * by end; users past ValidUntil, then their live sessions; live API-key sessions with their key)
 * rather than by scanning every live session.
 */
export async function dueSessions(q: Q, now: number): Promise<DueSession[]> {
  const { apiKeys, userSessions, users } = tablesOf(q);
  const live = isNull(userSessions.endedAt);
  const ids = new Set<string>();
  const add = (rows: { id: string }[]) => rows.forEach((r) => ids.add(r.id));
  add(
    await q
      .select({ id: userSessions.id })
      .from(userSessions)
      .where(and(live, lte(userSessions.endsAt, now))),
  );
  add(
    await q
      .select({ id: userSessions.id })
      .from(userSessions)
      .where(
        and(
          live,
          inArray(userSessions.userId, q.select({ id: users.id }).from(users).where(lte(users.validUntil, now))),
        ),
      ),
  );
  add(
    await q
      .select({ id: userSessions.id })
      .from(userSessions)
      .leftJoin(apiKeys, eq(apiKeys.id, userSessions.apiKeyId))
      .where(and(live, isNotNull(userSessions.apiKeyId), or(isNull(apiKeys.id), lte(apiKeys.expiredAfter, now)))),
  );
  if (ids.size === 0) return [];
  return await q
    .select({
      id: userSessions.id,
      userId: userSessions.userId,
      userName: users.userName,
      endsAt: userSessions.endsAt,
      validUntil: users.validUntil,
      apiKeyId: userSessions.apiKeyId,
      keyExists: sql<number>`${apiKeys.id} IS NOT NULL`.mapWith(Boolean),
      keyExpiredAfter: apiKeys.expiredAfter,
    })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .leftJoin(apiKeys, eq(apiKeys.id, userSessions.apiKeyId))
    .where(inArray(userSessions.id, [...ids]));
}

/** Live sessions (not past their end) whose first observed address aged out by `now`. */
export async function sessionsWithStaleObserved(
  q: Q,
  now: number,
): Promise<{ id: string; ipAddress: string; discoveredIps: ObservedAddress[] }[]> {
  const { userSessions } = tablesOf(q);
  return await q
    .select({ id: userSessions.id, ipAddress: userSessions.ipAddress, discoveredIps: userSessions.discoveredIps })
    .from(userSessions)
    .where(and(isNull(userSessions.endedAt), lte(userSessions.observedUntil, now), gt(userSessions.endsAt, now)));
}

/** The addresses the server observed for a session (discovery ports, the other family), as stored. */
export async function getObserved(q: Q, sessionId: string): Promise<ObservedAddress[]> {
  const { userSessions } = tablesOf(q);
  return (
    (
      await q
        .select({ d: userSessions.discoveredIps })
        .from(userSessions)
        .where(eq(userSessions.id, sessionId))
        .limit(1)
    )[0]?.d ?? []
  );
}

/** Sets the observed addresses of a session and when the first of them ages out. */
export async function setObserved(
  q: Q,
  sessionId: string,
  list: readonly ObservedAddress[],
  until: number | null,
): Promise<void> {
  const { userSessions } = tablesOf(q);
  await q
    .update(userSessions)
    .set({ discoveredIps: [...list], observedUntil: until })
    .where(eq(userSessions.id, sessionId));
}

/** Live sessions among `ids` ending after `end` (epoch ms), with their end. */
export async function sessionsEndingAfter(
  q: Q,
  ids: readonly string[],
  end: number,
): Promise<{ id: string; endsAt: number }[]> {
  const { userSessions } = tablesOf(q);
  if (ids.length === 0) return [];
  return await q
    .select({ id: userSessions.id, endsAt: userSessions.endsAt })
    .from(userSessions)
    .where(and(inArray(userSessions.id, [...ids]), isNull(userSessions.endedAt), gt(userSessions.endsAt, end)));
}

/** Sets a session's end (epoch ms). */
export async function setSessionEnd(q: Q, sessionId: string, endsAt: number): Promise<void> {
  const { userSessions } = tablesOf(q);
  await q.update(userSessions).set({ endsAt }).where(eq(userSessions.id, sessionId));
}

/** Sets a grant's expiry (epoch ms) without a status transition. */
export async function setGrantExpiry(q: Q, grantId: string, expiresAt: number): Promise<void> {
  const { grants } = tablesOf(q);
  await q.update(grants).set({ expiresAt }).where(eq(grants.id, grantId));
}

/** Removes addresses from a grant. */
export async function removeGrantAddresses(q: Q, grantId: string, ips: readonly string[]): Promise<void> {
  const { grantAddresses } = tablesOf(q);
  if (ips.length === 0) return;
  await q.delete(grantAddresses).where(and(eq(grantAddresses.grantId, grantId), inArray(grantAddresses.ip, [...ips])));
}

/**
 * The reads of GET /status, the hottest request (issue #13 item 2): plain SQLite statements in raw
 * mode, prepared once per database, reading only the columns the status needs (drizzle's row mapping
 * of the whole ACL row was most of the request's cost). The ACLs' unchanging parts are read apart
 * (acls.ts `getAcl`) and kept by the status service while the `acls` change counter stays the same;
 * the whole status is kept per session while `versions` stays the same (services/status-cache.ts).
 */
import { rawStatement, type Db } from "../db/index.ts";

/** One ACL the session's user reaches with the session's status entry: [aclId, grantId, status, error, expiresAt] (grant fields null when there is no entry yet). */
export type SessionGrantRow = [
  aclId: string,
  grantId: string | null,
  status: number | null,
  error: string | null,
  expiresAt: number | null,
];

/** The prepared status reads of one database. */
export interface StatusReads {
  /** Every ACL the user reaches (directly or through a group) with the session's entry. */
  rows(sessionId: string, userId: string): Promise<SessionGrantRow[]>;
  /** The `acls` change counter (raised by a trigger on every write to acls). */
  aclsVersion(): Promise<number>;
  /**
   * What a session's status is kept by: [the session's `status_version` (raised by triggers on every
   * write to its grants), the sum of the change counters of everything else a status shows (acls,
   * users' licence ranks, assignments, licences, the NewUserDashboard setting)]. Every counter only
   * grows, so an equal pair means no such write happened in between, on any replica. Undefined when
   * the session does not exist.
   */
  versions(sessionId: string): Promise<[session: number, shared: number] | undefined>;
}

/** The change counters (migrations 0007, 0008, 0011) of what a status shows beside the session's grants. */
export const STATUS_COUNTERS = ["acls", "users", "assignments", "licenses", "status_settings"] as const;

/**
 * The SQL of one column: the sum of STATUS_COUNTERS (the shared half of `versions`), for a statement
 * over `user_sessions s` that reads `s.status_version` too (sessions.ts reads both with the session).
 */
export const SHARED_STATUS_VERSION = `(SELECT sum(c.value) FROM change_counters c WHERE c.name IN (${STATUS_COUNTERS.map((n) => `'${n}'`).join(", ")}))`;

/** `versions` from the two columns as read (PostgreSQL answers bigint and its sum as strings). */
export function statusVersions(session: unknown, shared: unknown): [session: number, shared: number] {
  return [Number(session), Number(shared ?? 0)];
}

/** Prepares the status reads on `db` (once per service). */
export function prepareStatusReads(db: Db): StatusReads {
  const rows = rawStatement<SessionGrantRow>(
    db,
    `SELECT a.id, g.id, g.status, g.error, g.expires_at
         FROM acls a
         LEFT JOIN grants g ON g.acl_id = a.id AND g.session_id = @sessionId
        WHERE a.id IN (SELECT acl_id FROM user_acls WHERE user_id = @userId
                       UNION SELECT ga.acl_id FROM group_acls ga JOIN group_users gu ON gu.group_id = ga.group_id
                        WHERE gu.user_id = @userId)`,
  );
  const version = rawStatement<[number]>(db, `SELECT value FROM change_counters WHERE name = 'acls'`);
  const versions = rawStatement<[unknown, unknown]>(
    db,
    `SELECT s.status_version, ${SHARED_STATUS_VERSION} FROM user_sessions s WHERE s.id = @sessionId`,
  );
  return {
    rows: (sessionId, userId) => rows.all({ sessionId, userId }),
    versions: async (sessionId) => {
      const row = (await versions.all({ sessionId }))[0];
      return row ? statusVersions(row[0], row[1]) : undefined;
    },
    aclsVersion: async () => ((await version.value()) as number | undefined) ?? -1,
  };
}

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
  /**
   * What a session's status is kept by (StatusVersions), or undefined when the session does not
   * exist. Every counter only grows, so equal versions mean no such write happened in between, on
   * any replica.
   */
  versions(sessionId: string): Promise<StatusVersions | undefined>;
}

/** The change counters (migrations 0007, 0008, 0011) of what a status shows beside the session's grants. */
export const STATUS_COUNTERS = ["acls", "users", "assignments", "licenses", "status_settings"] as const;

/**
 * What a session's status is kept by: the session's `status_version` (raised by triggers on every
 * write to its grants) and each of STATUS_COUNTERS (acls; users' licence ranks; assignments;
 * licences; the NewUserDashboard setting). The status read also keeps its parts by them: the ACLs'
 * parts by `acls`, the licence answers by `licenses` and `users`, the setting by `statusSettings`.
 */
export interface StatusVersions {
  readonly session: number;
  readonly acls: number;
  readonly users: number;
  readonly assignments: number;
  readonly licenses: number;
  readonly statusSettings: number;
}

/**
 * The SQL of STATUS_COUNTERS as columns, in that order, each a lookup by primary key (for a statement
 * that reads `s.status_version` before them: sessions.ts reads them with the session).
 */
export const STATUS_COUNTER_COLUMNS = STATUS_COUNTERS.map(
  (n) => `(SELECT c.value FROM change_counters c WHERE c.name = '${n}')`,
).join(", ");

/**
 * StatusVersions from a row as read: `row[at]` is the session's `status_version`, the next columns
 * STATUS_COUNTER_COLUMNS (PostgreSQL answers bigint as strings; a missing counter reads -1).
 */
export function statusVersions(row: readonly unknown[], at: number): StatusVersions {
  const n = (i: number) => (row[at + i] === null || row[at + i] === undefined ? -1 : Number(row[at + i]));
  return { session: n(0), acls: n(1), users: n(2), assignments: n(3), licenses: n(4), statusSettings: n(5) };
}

/** The versions as one string (the status cache's key part). */
export function versionsKey(v: StatusVersions): string {
  return `${v.session}\u0001${v.acls}\u0001${v.users}\u0001${v.assignments}\u0001${v.licenses}\u0001${v.statusSettings}`;
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
  const versions = rawStatement<unknown[]>(
    db,
    `SELECT s.status_version, ${STATUS_COUNTER_COLUMNS} FROM user_sessions s WHERE s.id = @sessionId`,
  );
  return {
    rows: (sessionId, userId) => rows.all({ sessionId, userId }),
    versions: async (sessionId) => {
      const row = (await versions.all({ sessionId }))[0];
      return row ? statusVersions(row, 0) : undefined;
    },
  };
}

/**
 * SQL of user sessions as admins see and end them (docs/reference.md admin-console §7 "Sessions").
 */
import { and, asc, count, eq, gt, isNull } from "drizzle-orm";
import { rawStatement, type Db, type Tx, tablesOf } from "../db/index.ts";
import type { userSessions } from "../db/schema.ts";
import { STATUS_COUNTER_COLUMNS, STATUS_COUNTERS, statusVersions, type StatusVersions } from "./status.ts";

type Q = Db | Tx;
/** A user session row. */
export type UserSessionRow = typeof userSessions.$inferSelect;

/** Live user sessions (not ended, end in the future), of one user or of all when `userId` is undefined; oldest first. */
export async function liveUserSessions(q: Q, now: number, userId?: string): Promise<UserSessionRow[]> {
  const { userSessions } = tablesOf(q);
  return await q
    .select()
    .from(userSessions)
    .where(
      and(
        isNull(userSessions.endedAt),
        gt(userSessions.endsAt, now),
        userId !== undefined ? eq(userSessions.userId, userId) : undefined,
      ),
    )
    .orderBy(asc(userSessions.createdAt));
}

/** Reads a user session by its public id, with its user's name. */
export async function getUserSessionWithUser(
  q: Q,
  id: string,
): Promise<{ session: UserSessionRow; userName: string } | undefined> {
  const { userSessions, users } = tablesOf(q);
  return (
    await q
      .select({ session: userSessions, userName: users.userName })
      .from(userSessions)
      .innerJoin(users, eq(users.id, userSessions.userId))
      .where(eq(userSessions.id, id))
      .limit(1)
  )[0];
}

/** A new user session row. */
export type NewUserSessionRow = typeof userSessions.$inferInsert;

/** Inserts a user session row. */
export async function insertUserSession(q: Q, row: NewUserSessionRow): Promise<void> {
  const { userSessions } = tablesOf(q);
  await q.insert(userSessions).values(row);
}

/** Gives a user session a new cookie token hash. */
export async function rotateUserSessionToken(q: Q, sessionId: string, tokenHash: string): Promise<void> {
  const { userSessions } = tablesOf(q);
  await q.update(userSessions).set({ tokenHash }).where(eq(userSessions.id, sessionId));
}

/** Marks a user session verified (its sign-in completed). */
export async function verifyUserSession(q: Q, sessionId: string): Promise<void> {
  const { userSessions } = tablesOf(q);
  await q.update(userSessions).set({ verified: true }).where(eq(userSessions.id, sessionId));
}

/** What resolving a cookie needs of a user session and its user (times epoch ms). */
export interface SessionLookupRow {
  sessionId: string;
  endedAt: number | null;
  endsAt: number;
  verified: boolean;
  ipAddress: string;
  userId: string;
  disabled: boolean;
  validUntil: number | null;
  userName: string;
  name: string;
  authType: string;
  /** The session's status versions, read in the same statement (status.ts `StatusReads.versions`). */
  statusVersions: StatusVersions;
  /**
   * The PublicURL setting ("" when never written), read in the same statement: its scheme decides
   * which session cookie counts on a plain-http request (http/context.ts `secureCookies`), so a
   * request needs no statement of its own for it.
   */
  publicUrl: string;
}

/** The user columns the session lookup reads, in its row's order. */
const USER_COLUMNS = ["disabled", "valid_until", "user_name", "name", "auth_type"] as const;

/**
 * The lookup of a user session by its cookie token hash, with its user, as a raw statement prepared once
 * for `db` (every request with a session cookie runs it; issue #13 item 2): only the columns resolving
 * needs, no drizzle mapping, and the session's status versions with them (one statement for a status
 * read kept ready), and the PublicURL setting (SessionLookupRow `publicUrl`). `lookup(tokenHash)`.
 */
export function prepareSessionByTokenHash(db: Db): (tokenHash: string) => Promise<SessionLookupRow | undefined> {
  const statement = rawStatement<
    [string, unknown, unknown, unknown, string, string, unknown, unknown, string, string, string, ...unknown[]]
  >(
    db,
    // The user's columns as scalar subqueries: SQLite ran the same lookup as a join at about twice the cost.
    `SELECT s.id, s.ended_at, s.ends_at, s.verified, s.ip_address, s.user_id,
            ${USER_COLUMNS.map((c) => `(SELECT u.${c} FROM users u WHERE u.id = s.user_id)`).join(", ")},
            s.status_version, ${STATUS_COUNTER_COLUMNS},
            (SELECT CAST(v.value AS TEXT) FROM settings v WHERE v.key = 'PublicURL')
       FROM user_sessions s
      WHERE s.token_hash = @hash`,
  );
  const time = (v: unknown): number | null => (v === null ? null : Number(v));
  return async (hash) => {
    const r = (await statement.all({ hash }))[0];
    // No user name: the user is gone (the session row goes with it; fail closed all the same).
    if (!r || r[8] === null) return undefined;
    // Booleans are 0/1 on SQLite; bigint times are strings on PostgreSQL.
    return {
      sessionId: r[0],
      endedAt: time(r[1]),
      endsAt: Number(r[2]),
      verified: Boolean(r[3]),
      ipAddress: r[4],
      userId: r[5],
      disabled: Boolean(r[6]),
      validUntil: time(r[7]),
      userName: r[8],
      name: r[9],
      authType: r[10],
      statusVersions: statusVersions(r, 11),
      publicUrl: settingText(r[11 + STATUS_COUNTERS.length + 1]),
    };
  };
}

/** A string setting from its stored JSON text; "" when it was never written (null) or is not a string. */
function settingText(text: unknown): string {
  if (typeof text !== "string") return "";
  const value = JSON.parse(text) as unknown;
  return typeof value === "string" ? value : "";
}

/** Moves a user session to a new main address. */
export async function setSessionAddress(q: Q, sessionId: string, ip: string): Promise<void> {
  const { userSessions } = tablesOf(q);
  await q.update(userSessions).set({ ipAddress: ip }).where(eq(userSessions.id, sessionId));
}

/** How many user sessions are live (not ended, ending after `now`, epoch ms). */
export async function countLiveSessions(q: Q, now: number): Promise<number> {
  const { userSessions } = tablesOf(q);
  return (
    (
      await q
        .select({ n: count() })
        .from(userSessions)
        .where(and(isNull(userSessions.endedAt), gt(userSessions.endsAt, now)))
        .limit(1)
    )[0]?.n ?? 0
  );
}

/** Reads a user session by id. */
export async function getUserSession(q: Q, id: string): Promise<UserSessionRow | undefined> {
  const { userSessions } = tablesOf(q);
  return (await q.select().from(userSessions).where(eq(userSessions.id, id)).limit(1))[0];
}

/**
 * SQL of user sessions as admins see and end them (docs/reference.md admin-console §7 "Sessions").
 */
import { and, asc, count, eq, gt, isNull, sql } from "drizzle-orm";
import { type Db, type Tx, tablesOf, dialectOf } from "../db/index.ts";
import { type users, type userSessions } from "../db/schema.ts";

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

/**
 * The lookup of a user session by its cookie token hash, with its user, as a statement prepared once
 * for `db` (every request with a session cookie runs it): `lookup(tokenHash)`.
 */
export function prepareSessionByTokenHash(
  db: Db,
): (tokenHash: string) => Promise<{ session: UserSessionRow; user: typeof users.$inferSelect } | undefined> {
  const { userSessions, users } = tablesOf(db);
  const query = db
    .select({ session: userSessions, user: users })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(eq(userSessions.tokenHash, sql.placeholder("hash")));
  type Row = { session: UserSessionRow; user: typeof users.$inferSelect };
  if (dialectOf(db) === "postgres") {
    // PostgreSQL prepares a named statement once per pooled connection.
    const statement = (
      query as unknown as { prepare(name: string): { execute(params: object): Promise<Row[]> } }
    ).prepare("postern_session_by_token_hash");
    return async (tokenHash) => (await statement.execute({ hash: tokenHash }))[0];
  }
  const statement = query.prepare();
  return (tokenHash) => statement.get({ hash: tokenHash });
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

/**
 * SQL of user sessions as admins see and end them (admin-console §7 "Sessions").
 */
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { users, userSessions } from "../db/schema.ts";

type Q = Db | Tx;
/** A user session row. */
export type UserSessionRow = typeof userSessions.$inferSelect;

/** Live user sessions (not ended, end in the future), of one user or of all when `userId` is undefined; oldest first. */
export function liveUserSessions(q: Q, now: number, userId?: string): UserSessionRow[] {
  return q
    .select()
    .from(userSessions)
    .where(
      and(
        isNull(userSessions.endedAt),
        gt(userSessions.endsAt, now),
        userId !== undefined ? eq(userSessions.userId, userId) : undefined,
      ),
    )
    .orderBy(asc(userSessions.createdAt))
    .all();
}

/** Reads a user session by its public id, with its user's name. */
export function getUserSessionWithUser(q: Q, id: string): { session: UserSessionRow; userName: string } | undefined {
  return q
    .select({ session: userSessions, userName: users.userName })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(eq(userSessions.id, id))
    .get();
}

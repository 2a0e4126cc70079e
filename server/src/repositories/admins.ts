/**
 * SQL of admin accounts and admin sessions.
 */
import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { admins, adminSessions } from "../db/schema.ts";

type Q = Db | Tx;
/** An admin row (carries the password hash and TOTP secret: never send it as is). */
export type AdminRow = typeof admins.$inferSelect;
/** The insertable fields of an admin. */
export type NewAdmin = typeof admins.$inferInsert;
/** An admin session row. */
export type AdminSessionRow = typeof adminSessions.$inferSelect;

/** Lists every admin by user name. */
export function listAdmins(q: Q): AdminRow[] {
  return q.select().from(admins).orderBy(asc(admins.userName)).all();
}

/** Reads an admin by id. */
export function getAdmin(q: Q, id: string): AdminRow | undefined {
  return q.select().from(admins).where(eq(admins.id, id)).get();
}

/** Reads an admin by exact user name. */
export function getAdminByName(q: Q, userName: string): AdminRow | undefined {
  return q.select().from(admins).where(eq(admins.userName, userName)).get();
}

/** Inserts an admin. */
export function insertAdmin(q: Q, row: NewAdmin): void {
  q.insert(admins).values(row).run();
}

/** Updates an admin's fields. */
export function updateAdmin(q: Q, id: string, fields: Partial<Omit<NewAdmin, "id" | "userName">>): void {
  q.update(admins).set(fields).where(eq(admins.id, id)).run();
}

/** Deletes an admin (its session rows cascade). */
export function deleteAdmin(q: Q, id: string): void {
  q.delete(admins).where(eq(admins.id, id)).run();
}

/** Clears an admin's TOTP secret and last used step (the next sign-in enrols again). */
export function clearAdminTotp(q: Q, id: string): void {
  q.update(admins).set({ totpSecretEnc: null, totpLastStep: null }).where(eq(admins.id, id)).run();
}

/** Live admin sessions (not ended, end in the future), of one admin or of all when `adminId` is undefined; oldest first. */
export function liveAdminSessions(q: Q, now: number, adminId?: string): AdminSessionRow[] {
  return q
    .select()
    .from(adminSessions)
    .where(
      and(
        isNull(adminSessions.endedAt),
        gt(adminSessions.endsAt, now),
        adminId !== undefined ? eq(adminSessions.adminId, adminId) : undefined,
      ),
    )
    .orderBy(asc(adminSessions.createdAt))
    .all();
}

/** Reads an admin session by its public id. */
export function getAdminSession(q: Q, id: string): AdminSessionRow | undefined {
  return q.select().from(adminSessions).where(eq(adminSessions.id, id)).get();
}

/** Ends the given admin sessions at `now` (epoch ms). */
export function endAdminSessions(q: Q, ids: readonly string[], now: number): void {
  for (let i = 0; i < ids.length; i += 500) {
    q.update(adminSessions)
      .set({ endedAt: now })
      .where(inArray(adminSessions.id, ids.slice(i, i + 500)))
      .run();
  }
}

/** Inserts an admin session row. */
export function insertAdminSession(q: Q, row: typeof adminSessions.$inferInsert): void {
  q.insert(adminSessions).values(row).run();
}

/** Gives an admin session a new cookie token hash; answers its end (epoch ms), undefined when unknown. */
export function rotateAdminSessionToken(q: Q, sessionId: string, tokenHash: string): number | undefined {
  return q
    .update(adminSessions)
    .set({ tokenHash })
    .where(eq(adminSessions.id, sessionId))
    .returning({ endsAt: adminSessions.endsAt })
    .get()?.endsAt;
}

/** Marks an admin session verified (its sign-in completed). */
export function verifyAdminSession(q: Q, sessionId: string): void {
  q.update(adminSessions).set({ verified: true }).where(eq(adminSessions.id, sessionId)).run();
}

/** The admin session whose cookie token has this hash, with its admin. */
export function adminSessionByTokenHash(
  q: Q,
  tokenHash: string,
): { session: AdminSessionRow; admin: AdminRow } | undefined {
  const row = q
    .select({ session: adminSessions, admin: admins })
    .from(adminSessions)
    .innerJoin(admins, eq(admins.id, adminSessions.adminId))
    .where(eq(adminSessions.tokenHash, tokenHash))
    .get();
  return row;
}

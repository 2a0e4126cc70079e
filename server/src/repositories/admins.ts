/**
 * SQL of admin accounts and admin sessions.
 */
import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type admins, type adminSessions } from "../db/schema.ts";

type Q = Db | Tx;
/** An admin row (carries the password hash and TOTP secret: never send it as is). */
export type AdminRow = typeof admins.$inferSelect;
/** The insertable fields of an admin. */
export type NewAdmin = typeof admins.$inferInsert;
/** An admin session row. */
export type AdminSessionRow = typeof adminSessions.$inferSelect;

/** Lists every admin by user name. */
export async function listAdmins(q: Q): Promise<AdminRow[]> {
  const { admins } = tablesOf(q);
  return await q.select().from(admins).orderBy(asc(admins.userName));
}

/** Reads an admin by id. */
export async function getAdmin(q: Q, id: string): Promise<AdminRow | undefined> {
  const { admins } = tablesOf(q);
  return (await q.select().from(admins).where(eq(admins.id, id)).limit(1))[0];
}

/** Reads an admin by exact user name. */
export async function getAdminByName(q: Q, userName: string): Promise<AdminRow | undefined> {
  const { admins } = tablesOf(q);
  return (await q.select().from(admins).where(eq(admins.userName, userName)).limit(1))[0];
}

/** Inserts an admin. */
export async function insertAdmin(q: Q, row: NewAdmin): Promise<void> {
  const { admins } = tablesOf(q);
  await q.insert(admins).values(row);
}

/** Updates an admin's fields. */
export async function updateAdmin(q: Q, id: string, fields: Partial<Omit<NewAdmin, "id" | "userName">>): Promise<void> {
  const { admins } = tablesOf(q);
  await q.update(admins).set(fields).where(eq(admins.id, id));
}

/** Deletes an admin (its session rows cascade). */
export async function deleteAdmin(q: Q, id: string): Promise<void> {
  const { admins } = tablesOf(q);
  await q.delete(admins).where(eq(admins.id, id));
}

/** Clears an admin's TOTP secret and last used step (the next sign-in enrols again). */
export async function clearAdminTotp(q: Q, id: string): Promise<void> {
  const { admins } = tablesOf(q);
  await q.update(admins).set({ totpSecretEnc: null, totpLastStep: null }).where(eq(admins.id, id));
}

/** Live admin sessions (not ended, end in the future), of one admin or of all when `adminId` is undefined; oldest first. */
export async function liveAdminSessions(q: Q, now: number, adminId?: string): Promise<AdminSessionRow[]> {
  const { adminSessions } = tablesOf(q);
  return await q
    .select()
    .from(adminSessions)
    .where(
      and(
        isNull(adminSessions.endedAt),
        gt(adminSessions.endsAt, now),
        adminId !== undefined ? eq(adminSessions.adminId, adminId) : undefined,
      ),
    )
    .orderBy(asc(adminSessions.createdAt));
}

/** Reads an admin session by its public id. */
export async function getAdminSession(q: Q, id: string): Promise<AdminSessionRow | undefined> {
  const { adminSessions } = tablesOf(q);
  return (await q.select().from(adminSessions).where(eq(adminSessions.id, id)).limit(1))[0];
}

/** Ends the given admin sessions at `now` (epoch ms). */
export async function endAdminSessions(q: Q, ids: readonly string[], now: number): Promise<void> {
  const { adminSessions } = tablesOf(q);
  for (let i = 0; i < ids.length; i += 500) {
    await q
      .update(adminSessions)
      .set({ endedAt: now })
      .where(inArray(adminSessions.id, ids.slice(i, i + 500)));
  }
}

/** Inserts an admin session row. */
export async function insertAdminSession(q: Q, row: typeof adminSessions.$inferInsert): Promise<void> {
  const { adminSessions } = tablesOf(q);
  await q.insert(adminSessions).values(row);
}

/** Gives an admin session a new cookie token hash; answers its end (epoch ms), undefined when unknown. */
export async function rotateAdminSessionToken(q: Q, sessionId: string, tokenHash: string): Promise<number | undefined> {
  const { adminSessions } = tablesOf(q);
  return (
    await q
      .update(adminSessions)
      .set({ tokenHash })
      .where(eq(adminSessions.id, sessionId))
      .returning({ endsAt: adminSessions.endsAt })
  )[0]?.endsAt;
}

/** Marks an admin session verified (its sign-in completed). */
export async function verifyAdminSession(q: Q, sessionId: string): Promise<void> {
  const { adminSessions } = tablesOf(q);
  await q.update(adminSessions).set({ verified: true }).where(eq(adminSessions.id, sessionId));
}

/** The admin session whose cookie token has this hash, with its admin. */
export async function adminSessionByTokenHash(
  q: Q,
  tokenHash: string,
): Promise<{ session: AdminSessionRow; admin: AdminRow } | undefined> {
  const { adminSessions, admins } = tablesOf(q);
  const row = (
    await q
      .select({ session: adminSessions, admin: admins })
      .from(adminSessions)
      .innerJoin(admins, eq(admins.id, adminSessions.adminId))
      .where(eq(adminSessions.tokenHash, tokenHash))
      .limit(1)
  )[0];
  return row;
}

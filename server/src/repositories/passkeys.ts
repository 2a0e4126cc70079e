/**
 * SQL of passkeys (WebAuthn credentials of users and admins, table `passkeys`) and of the challenges
 * handed out for them (`passkey_challenges`). Times epoch ms.
 */
import { and, asc, count, eq, lte } from "drizzle-orm";
import { changedRows, type Db, type Tx, tablesOf, type Tables } from "../db/index.ts";
import { type passkeys } from "../db/schema.ts";

type Q = Db | Tx;

/** Whose passkeys: an end user (users) or an administrator (admins). */
export type PasskeyAccountKind = "user" | "admin";
/** A passkey row. */
export type PasskeyRow = typeof passkeys.$inferSelect;
/** What a challenge is for: enrolling a passkey, or signing in with one. */
export type ChallengePurpose = "register" | "authenticate";

/** The owner column of an account kind. */
function owner({ passkeys }: Tables, kind: PasskeyAccountKind) {
  return kind === "user" ? passkeys.userId : passkeys.adminId;
}

/** The passkeys of one account, oldest first. */
export async function listPasskeys(q: Q, kind: PasskeyAccountKind, accountId: string): Promise<PasskeyRow[]> {
  const { passkeys } = tablesOf(q);
  return await q
    .select()
    .from(passkeys)
    .where(eq(owner(tablesOf(q), kind), accountId))
    .orderBy(asc(passkeys.createdAt));
}

/** How many passkeys one account has. */
export async function countPasskeys(q: Q, kind: PasskeyAccountKind, accountId: string): Promise<number> {
  const { passkeys } = tablesOf(q);
  return (
    (
      await q
        .select({ n: count() })
        .from(passkeys)
        .where(eq(owner(tablesOf(q), kind), accountId))
    )[0]?.n ?? 0
  );
}

/** One account's passkey by its credential id (base64url); undefined when the account has none such. */
export async function getPasskeyByCredential(
  q: Q,
  kind: PasskeyAccountKind,
  accountId: string,
  credentialId: string,
): Promise<PasskeyRow | undefined> {
  const { passkeys } = tablesOf(q);
  return (
    await q
      .select()
      .from(passkeys)
      .where(and(eq(owner(tablesOf(q), kind), accountId), eq(passkeys.credentialId, credentialId)))
      .limit(1)
  )[0];
}

/** Whether any account holds this credential id (a credential is enrolled once). */
export async function credentialExists(q: Q, credentialId: string): Promise<boolean> {
  const { passkeys } = tablesOf(q);
  return (
    (await q.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.credentialId, credentialId)).limit(1))
      .length > 0
  );
}

/** A new passkey row, without its owner columns. */
export type NewPasskey = Omit<typeof passkeys.$inferInsert, "userId" | "adminId">;

/** Inserts a passkey of an account; returns the row. */
export async function insertPasskey(
  q: Q,
  kind: PasskeyAccountKind,
  accountId: string,
  row: NewPasskey,
): Promise<PasskeyRow> {
  const { passkeys } = tablesOf(q);
  const values = { ...row, userId: kind === "user" ? accountId : null, adminId: kind === "admin" ? accountId : null };
  return (await q.insert(passkeys).values(values).returning())[0]!;
}

/** Deletes one account's passkey by id; returns the deleted row (undefined when the account has none such). */
export async function deletePasskey(
  q: Q,
  kind: PasskeyAccountKind,
  accountId: string,
  id: string,
): Promise<PasskeyRow | undefined> {
  const { passkeys } = tablesOf(q);
  return (
    await q
      .delete(passkeys)
      .where(and(eq(owner(tablesOf(q), kind), accountId), eq(passkeys.id, id)))
      .returning()
  )[0];
}

/** Deletes every passkey of an account (the admin's 2FA reset); returns how many went. */
export async function deleteAllPasskeys(q: Q, kind: PasskeyAccountKind, accountId: string): Promise<number> {
  const { passkeys } = tablesOf(q);
  return changedRows(await q.delete(passkeys).where(eq(owner(tablesOf(q), kind), accountId)));
}

/**
 * Records a use of a passkey: its new signature counter and the time — only while the stored counter
 * is still `expectCounter` (a concurrent use of the same signature loses). Returns true when it changed.
 */
export async function recordPasskeyUse(
  q: Q,
  id: string,
  expectCounter: number,
  counter: number,
  usedAt: number,
): Promise<boolean> {
  const { passkeys } = tablesOf(q);
  const res = await q
    .update(passkeys)
    .set({ counter, lastUsedAt: usedAt })
    .where(and(eq(passkeys.id, id), eq(passkeys.counter, expectCounter)));
  return changedRows(res) === 1;
}

/** Stores a session's challenge for a purpose, replacing one handed out before; drops expired ones first. */
export async function putChallenge(
  q: Q,
  kind: PasskeyAccountKind,
  sessionId: string,
  purpose: ChallengePurpose,
  challenge: string,
  now: number,
  expiresAt: number,
): Promise<void> {
  const { passkeyChallenges } = tablesOf(q);
  await q.delete(passkeyChallenges).where(lte(passkeyChallenges.expiresAt, now));
  await q
    .insert(passkeyChallenges)
    .values({ kind, sessionId, purpose, challenge, expiresAt })
    .onConflictDoUpdate({
      target: [passkeyChallenges.kind, passkeyChallenges.sessionId, passkeyChallenges.purpose],
      set: { challenge, expiresAt },
    });
}

/**
 * Takes (deletes and returns) a session's challenge for a purpose, so it is used at most once;
 * undefined when none was handed out (or it was taken). The caller checks `expiresAt`.
 */
export async function takeChallenge(
  q: Q,
  kind: PasskeyAccountKind,
  sessionId: string,
  purpose: ChallengePurpose,
): Promise<{ challenge: string; expiresAt: number } | undefined> {
  const { passkeyChallenges } = tablesOf(q);
  return (
    await q
      .delete(passkeyChallenges)
      .where(
        and(
          eq(passkeyChallenges.kind, kind),
          eq(passkeyChallenges.sessionId, sessionId),
          eq(passkeyChallenges.purpose, purpose),
        ),
      )
      .returning({ challenge: passkeyChallenges.challenge, expiresAt: passkeyChallenges.expiresAt })
  )[0];
}

/**
 * SQL of two-factor codes: the TOTP fields of users and admins (`totp_enabled`, `totp_secret_enc`,
 * `totp_last_step`) and whether a sign-in session still owes its code (`verified`).
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { changedRows, type Db, type Tx, tablesOf } from "../db/index.ts";
type Q = Db | Tx;

/** Whose account: an end user (users) or an administrator (admins). */
export type TotpAccountKind = "user" | "admin";

/** The TOTP state of one account. `secretEnc` is sealed; `lastStep` is the last used RFC 6238 time step (30 s). */
export interface TotpAccountRow {
  id: string;
  userName: string;
  authType: string;
  totpEnabled: boolean;
  secretEnc: string | null;
  lastStep: number | null;
}

/** Reads the TOTP state of a user or an admin; undefined when the account is gone. */
export async function getTotpAccount(q: Q, kind: TotpAccountKind, id: string): Promise<TotpAccountRow | undefined> {
  const { admins, users } = tablesOf(q);
  if (kind === "user") {
    return (
      await q
        .select({
          id: users.id,
          userName: users.userName,
          authType: users.authType,
          totpEnabled: users.totpEnabled,
          secretEnc: users.totpSecretEnc,
          lastStep: users.totpLastStep,
        })
        .from(users)
        .where(eq(users.id, id))
        .limit(1)
    )[0];
  }
  return (
    await q
      .select({
        id: admins.id,
        userName: admins.userName,
        authType: admins.authType,
        totpEnabled: admins.totpEnabled,
        secretEnc: admins.totpSecretEnc,
        lastStep: admins.totpLastStep,
      })
      .from(admins)
      .where(eq(admins.id, id))
      .limit(1)
  )[0];
}

/** True when the session completed its sign-in, false while it owes a TOTP code, undefined when unknown. */
export async function sessionVerified(q: Q, kind: TotpAccountKind, sessionId: string): Promise<boolean | undefined> {
  const { adminSessions, userSessions } = tablesOf(q);
  const table = kind === "user" ? userSessions : adminSessions;
  return (await q.select({ v: table.verified }).from(table).where(eq(table.id, sessionId)).limit(1))[0]?.v;
}

/**
 * Records a used time step — and, at enrolment, the sealed secret — only if the step is later than
 * the stored one (RFC 6238 §5.2: a step is never accepted twice). When `expectSecretEnc` is given,
 * the stored secret must still be that one (null: none stored yet), so a reset or a concurrent
 * enrolment in between wins. Returns true when the row changed.
 */
export async function recordTotpStep(
  q: Q,
  kind: TotpAccountKind,
  id: string,
  step: number,
  opts: { expectSecretEnc: string | null; newSecretEnc?: string },
): Promise<boolean> {
  const { admins, users } = tablesOf(q);
  const t = kind === "user" ? users : admins;
  const set =
    opts.newSecretEnc !== undefined ? { totpLastStep: step, totpSecretEnc: opts.newSecretEnc } : { totpLastStep: step };
  const sameSecret =
    opts.expectSecretEnc === null ? isNull(t.totpSecretEnc) : eq(t.totpSecretEnc, opts.expectSecretEnc);
  const res = await q
    .update(t)
    .set(set)
    .where(and(eq(t.id, id), sameSecret, or(isNull(t.totpLastStep), lt(t.totpLastStep, step))));
  return changedRows(res) === 1;
}

/**
 * Two-factor codes (TOTP, RFC 6238: SHA-1, 6 digits, 30-second steps) for users and admins
 * (docs/reference.md user-portal §4 "Login outcomes", §5 "OTP is supported only for non-SAML users and admins", §7
 * GET /otp/generate, POST /otp/verify; docs/reference.md admin-console §7 GET /admin/otp/generate, POST
 * /admin/otp/verify with {Code} or {deferEnrolment}; docs/reference.md design "Security").
 *
 * - A sign-in that owes a code (a pending session, see user-sessions.ts / admin-sessions.ts) either
 *   verifies the account's enrolled secret, or enrols one: GET generate shows the secret, and the
 *   first code that verifies stores it.
 * - Until then nothing is stored: the enrolment secret of a pending session is derived,
 *   HMAC-SHA-256(enrolment key, kind ‖ account id ‖ session id) cut to 160 bits, so GET generate
 *   answers the same secret for the whole pending session (a reload shows the same QR code), another
 *   session gets another secret, and an unfinished enrolment leaves the account untouched (the next
 *   sign-in still asks to enrol). The enrolment key is 32 random bytes sealed in the setting
 *   TotpEnrolmentKeySealed.
 * - Enrolled secrets are stored sealed (AES-256-GCM, purpose "totp.user:<id>" / "totp.admin:<id>").
 * - A code is accepted within ±1 step of the server's time; the step it matched is stored in
 *   `totp_last_step`, and steps ≤ the stored one are refused (RFC 6238 §5.2: never twice).
 * - SAML users and admins and API-key users never have TOTP.
 * - Every event is audited: totpEnrolled, totpVerified, totpCodeFailed, totpEnrolmentDeferred.
 * - Throttling plugs in through `TotpHooks` (see `useHooks`).
 */
import { createHmac, randomBytes } from "node:crypto";
import { generateURI, verifySync, ScureBase32Plugin } from "otplib";
import { Errors } from "@postern/shared";
import type { OtpGenerateResponse } from "@postern/shared";
import { AppError } from "../../errors.ts";
import * as repo from "../../repositories/totp.ts";
import type { TotpAccountKind, TotpAccountRow } from "../../repositories/totp.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { AuditEntry } from "../audit.ts";
import { getSetting, setSetting } from "../settings.ts";
import type { SecretBox } from "../secrets/at-rest.ts";
import { Service } from "../service.ts";
import type { ServiceDeps } from "../service.ts";

/** Issuer shown by authenticator apps (the `issuer` of the otpauth:// URL). */
export const TOTP_ISSUER = "Postern";
/** Length of a TOTP time step in seconds (RFC 6238 default). */
export const TOTP_PERIOD_SECONDS = 30;
/** Steps accepted on either side of the current one (±1 step = ±30 seconds of clock drift). */
export const TOTP_TOLERANCE_STEPS = 1;
/** Size of a TOTP secret in bytes (160 bits, RFC 4226 §4). */
export const TOTP_SECRET_BYTES = 20;

const base32 = new ScureBase32Plugin();

/** The RFC 6238 time step (30-second periods since the Unix epoch) of a time in epoch milliseconds. */
export function totpStep(epochMs: number): number {
  return Math.floor(epochMs / 1000 / TOTP_PERIOD_SECONDS);
}

/** The `otpauth://totp/Postern:<accountName>?secret=…&issuer=Postern` URL of a base32 secret. */
export function totpUrl(accountName: string, secret: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: accountName, secret });
}

/**
 * Checks a code against a base32 secret at `epochMs` (epoch milliseconds) within ±1 step, refusing
 * steps ≤ `afterStep` (the last used one; null: none). Spaces in the code are ignored; anything
 * but 6 digits is refused. Returns the matched time step, or null when refused. Never throws for a
 * malformed code.
 */
export function checkTotpCode(secret: string, code: string, epochMs: number, afterStep: number | null): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const result = verifySync({
    secret,
    token,
    epoch: Math.floor(epochMs / 1000),
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_TOLERANCE_STEPS * TOTP_PERIOD_SECONDS,
    ...(afterStep !== null ? { afterTimeStep: afterStep } : {}),
  });
  // A TOTP result carries the matched step (HOTP's union member does not).
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/**
 * Who is presenting a code: the account (`kind` "user" or "admin" and its id), the pending
 * session, the account's user name (for the URL label and the audit entry) and the caller's address.
 */
export interface TotpSubject {
  kind: TotpAccountKind;
  accountId: string;
  sessionId: string;
  userName: string;
  ip: string;
}

/** What a throttle learns of a code attempt: whose account, its name, and the source address. */
export interface CodeAttempt {
  kind: TotpAccountKind;
  accountId: string;
  userName: string;
  ip: string;
}

/**
 * Hooks for throttling (docs/reference.md design "Login and 2FA throttling per account and per source address").
 * `beforeCode` runs before a code is checked and may throw (AppError 429 "Too many requests. Please
 * try again in..."): the code is then not checked and nothing is audited by this service.
 * `onCodeFailure` runs after a refused code was audited (wrong, malformed, replayed, too old);
 * `onCodeSuccess` after an accepted one. All default to no-ops.
 */
export interface TotpHooks {
  beforeCode?: (attempt: CodeAttempt) => void | Promise<void>;
  onCodeFailure?: (attempt: CodeAttempt) => void | Promise<void>;
  onCodeSuccess?: (attempt: CodeAttempt) => void | Promise<void>;
}

/** What a verified code did: "enrolled" (the account's first code; the secret is now stored) or "verified". */
export type TotpOutcome = "enrolled" | "verified";

const ENROLMENT_KEY_PURPOSE = "totp.enrolment-key";

/** TOTP enrolment and verification for pending sign-ins of users and admins. */
export class TotpService extends Service {
  private readonly secrets: SecretBox;
  private hooks: TotpHooks;
  private enrolmentKeyCache: { sealed: string; key: Buffer } | null = null;

  /** `secrets` seals the stored secrets; `hooks` plug in throttling (defaults: no-ops). */
  constructor(deps: ServiceDeps, secrets: SecretBox, hooks: TotpHooks = {}) {
    super(deps);
    this.secrets = secrets;
    this.hooks = hooks;
  }

  /**
   * Sets the throttling hooks (the place where a failed code is recorded: `onCodeFailure`).
   * Replaces the hooks given before.
   */
  useHooks(hooks: TotpHooks): void {
    this.hooks = hooks;
  }

  /**
   * GET /otp/generate, GET /admin/otp/generate: the enrolment secret of a pending session and its
   * otpauth:// URL (`{Secret, URL}`). The same secret for the whole session; nothing is stored.
   * Throws 409 "Already verified 2FA" when the session completed its sign-in, 409 "User already
   * verified" when the account already has a secret (it verifies instead), 401 err.invalidSession
   * when the account no longer has TOTP (sign in again).
   */
  async generate(subject: TotpSubject): Promise<OtpGenerateResponse> {
    const account = await this.pendingAccount(subject);
    if (account.secretEnc !== null) throw new AppError(Errors.userAlreadyVerified);
    const secret = await this.enrolmentSecret(subject);
    return { Secret: secret, URL: totpUrl(account.userName, secret) };
  }

  /**
   * POST /otp/verify, POST /admin/otp/verify {Code}: checks a code for a pending session. With an
   * enrolled secret the code must match it; without one it must match the session's enrolment
   * secret (GET generate), which is then stored sealed. The matched step is stored and never
   * accepted again. Audits totpEnrolled / totpVerified, or totpCodeFailed. The caller then completes
   * the sign-in (`completeSignIn`). Throws 401 "Invalid code" for a refused code, 409 "Already
   * verified 2FA" for a completed session, 401 err.invalidSession when the account no longer has
   * TOTP, and whatever `hooks.beforeCode` throws (429 when throttled).
   */
  async verify(subject: TotpSubject, code: string): Promise<TotpOutcome> {
    await this.pendingAccount(subject);
    const attempt: CodeAttempt = {
      kind: subject.kind,
      accountId: subject.accountId,
      userName: subject.userName,
      ip: subject.ip,
    };
    await this.hooks.beforeCode?.(attempt);
    // From here to the write nothing awaits: the read, the check and the conditional write of the
    // step run as one step of the event loop, and the write re-checks the step in SQL.
    const outcome = await this.checkAndRecord(subject, code);
    if (outcome === null) {
      await this.hooks.onCodeFailure?.(attempt);
      throw new AppError(Errors.invalidCode);
    }
    await this.hooks.onCodeSuccess?.(attempt);
    return outcome;
  }

  /**
   * POST /admin/otp/verify {deferEnrolment: true}: an admin who has not enrolled yet puts enrolment
   * off for this sign-in (only when the setting AllowAdminTotpDeferral is on). Audits
   * totpEnrolmentDeferred; the caller then completes the sign-in without a code. Throws 403 "2FA
   * enrolment cannot be deferred" when the server does not allow it, 409 "User already verified"
   * for an enrolled admin (who must give a code), 409 "Already verified 2FA" for a completed
   * session, 401 err.invalidSession when the admin no longer has TOTP.
   */
  async deferEnrolment(subject: TotpSubject): Promise<void> {
    if (subject.kind !== "admin") throw new AppError(Errors.deferralNotAllowed);
    await this.db.transaction(async (tx) => {
      const account = await this.pendingAccount(subject, tx);
      if (!(await getSetting(tx, "AllowAdminTotpDeferral"))) throw new AppError(Errors.deferralNotAllowed);
      if (account.secretEnc !== null) throw new AppError(Errors.userAlreadyVerified);
      await writeAudit(tx, {
        action: AuditAction.totpEnrolmentDeferred,
        at: this.clock.now(),
        adminName: subject.userName,
        ipAddress: subject.ip,
      });
    });
  }

  /** Reads the account of a session that still owes its code, or throws (see `generate`). */
  private async pendingAccount(
    subject: TotpSubject,
    q: Parameters<typeof repo.getTotpAccount>[0] = this.db,
  ): Promise<TotpAccountRow> {
    const verified = await repo.sessionVerified(q, subject.kind, subject.sessionId);
    if (verified === undefined) throw new AppError(Errors.invalidSession);
    if (verified) throw new AppError(Errors.alreadyVerified2fa);
    const account = await repo.getTotpAccount(q, subject.kind, subject.accountId);
    // TOTP turned off (or the account became SAML) while the sign-in was pending: sign in again.
    if (!account || !account.totpEnabled || account.authType === "SAML" || account.authType === "apikey")
      throw new AppError(Errors.invalidSession);
    return account;
  }

  /** Checks the code and records its step (and, at enrolment, the sealed secret); null when refused. */
  private async checkAndRecord(subject: TotpSubject, code: string): Promise<TotpOutcome | null> {
    const now = this.clock.now();
    const account = await this.pendingAccount(subject);
    const enrolling = account.secretEnc === null;
    const secret = enrolling
      ? await this.enrolmentSecret(subject)
      : this.secrets.open(this.purpose(subject), account.secretEnc!);
    const step = checkTotpCode(secret, code, now, account.lastStep);
    const who: Pick<AuditEntry, "userName" | "adminName"> =
      subject.kind === "user" ? { userName: subject.userName } : { adminName: subject.userName };
    if (step !== null) {
      const recorded = await this.db.transaction(async (tx) => {
        const ok = await repo.recordTotpStep(tx, subject.kind, subject.accountId, step, {
          expectSecretEnc: account.secretEnc,
          ...(enrolling ? { newSecretEnc: this.secrets.seal(this.purpose(subject), secret) } : {}),
        });
        if (ok)
          await writeAudit(tx, {
            action: enrolling ? AuditAction.totpEnrolled : AuditAction.totpVerified,
            at: now,
            ...who,
            ipAddress: subject.ip,
          });
        return ok;
      });
      if (recorded) return enrolling ? "enrolled" : "verified";
    }
    await writeAudit(this.db, {
      action: AuditAction.totpCodeFailed,
      at: now,
      ...who,
      ipAddress: subject.ip,
      errorMessage: Errors.invalidCode.err,
      description: enrolling ? "enrolment" : "verification",
    });
    return null;
  }

  /** The sealing purpose of an account's secret: "totp.user:<id>" or "totp.admin:<id>". */
  private purpose(subject: TotpSubject): string {
    return `totp.${subject.kind}:${subject.accountId}`;
  }

  /** The base32 enrolment secret of a pending session (see the file comment). */
  private async enrolmentSecret(subject: TotpSubject): Promise<string> {
    const mac = createHmac("sha256", await this.enrolmentKey())
      .update(`${subject.kind}\0${subject.accountId}\0${subject.sessionId}`)
      .digest();
    return base32.encode(mac.subarray(0, TOTP_SECRET_BYTES), { padding: false });
  }

  /**
   * The enrolment key: created (32 random bytes, sealed into TotpEnrolmentKeySealed) on first use,
   * and again if the stored one cannot be opened (the data dir's key changed: only enrolments in
   * progress are affected).
   */
  private async enrolmentKey(): Promise<Buffer> {
    const sealed = await getSetting(this.db, "TotpEnrolmentKeySealed");
    if (this.enrolmentKeyCache?.sealed === sealed && sealed !== "") return this.enrolmentKeyCache.key;
    if (sealed !== "") {
      try {
        const key = Buffer.from(this.secrets.open(ENROLMENT_KEY_PURPOSE, sealed), "base64");
        if (key.length === 32) {
          this.enrolmentKeyCache = { sealed, key };
          return key;
        }
      } catch {
        // unreadable: replaced below
      }
    }
    const key = randomBytes(32);
    const fresh = this.secrets.seal(ENROLMENT_KEY_PURPOSE, key.toString("base64"));
    await setSetting(this.db, "TotpEnrolmentKeySealed", fresh);
    this.enrolmentKeyCache = { sealed: fresh, key };
    return key;
  }
}

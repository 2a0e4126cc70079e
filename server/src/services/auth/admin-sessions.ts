/**
 * Admin sign-in with a local password, admin session resolution and logout (docs/reference.md admin-console §7
 * POST /admin/login, /admin/logout). Admin sessions are separate from user sessions, last
 * ADMIN_SESSION_MINUTES, and need LoginEnabled.
 */
import { countPasskeys } from "../../repositories/passkeys.ts";
import { Errors } from "@postern/shared";
import type { Db } from "../../db/index.ts";
import * as repo from "../../repositories/admins.ts";
import type { Clock } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { writeFoldedAudit } from "../audit-fold.ts";
import { hashPassword } from "./passwords.ts";
import { noLdap, verifyCredentials } from "./credentials.ts";
import type { LdapVerifier } from "./credentials.ts";
import { newId, randomToken, sha256 } from "./tokens.ts";
import { LoginThrottle } from "./throttle.ts";

/** Length of an admin session in minutes (12 hours). */
export const ADMIN_SESSION_MINUTES = 720;

/** A resolved admin session. */
export interface AdminSessionContext {
  sessionId: string;
  adminId: string;
  userName: string;
  name: string;
}

/** The result of an admin sign-in: cookie token, session, what is still owed, end (epoch ms). */
export interface AdminSignedIn {
  token: string;
  session: AdminSessionContext;
  pending: "verify" | "enrol" | null;
  endsAt: number;
}

/** Admin accounts' sign-in and sessions. */
export class AdminSessionService {
  private readonly db: Db;
  private readonly clock: Clock;
  /** Sign-in throttling (stateless over the login_throttle table). */
  private readonly throttle: LoginThrottle;
  constructor(db: Db, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.throttle = new LoginThrottle(db, clock);
  }

  /**
   * Creates a local admin (used by `postern admin create`). Throws 409 when the user name exists.
   * The password must already satisfy PasswordSchema (8–64).
   */
  async createLocalAdmin(input: { userName: string; name: string; password: string }): Promise<string> {
    if (await repo.getAdminByName(this.db, input.userName)) throw new AppError(Errors.adminNameExists);
    const id = newId();
    const passwordHash = await hashPassword(input.password);
    await this.db.transaction(async (tx) => {
      await repo.insertAdmin(tx, { id, name: input.name, userName: input.userName, authType: "local", passwordHash });
      await writeAudit(tx, {
        action: AuditAction.adminCreated,
        at: this.clock.now(),
        adminName: input.userName,
        description: "created from the command line",
      });
    });
    return id;
  }

  private ldap: LdapVerifier = noLdap;

  /** Sets how LDAP admins' passwords are checked (the LDAP service, once configured). */
  useLdap(verifier: LdapVerifier): void {
    this.ldap = verifier;
  }

  /**
   * Signs in with a password (local or LDAP admins). Returns the cookie token, the session and
   * `pending` ("verify"/"enrol" while a TOTP code is owed, else null). Throws 429 "Too many
   * requests. Please try again in..." (Extra: seconds) while the account or address is throttled,
   * before any hashing; 401 "Invalid credentials" alike for an unknown admin and a wrong password
   * (one hash either way); 403 "Login not permitted" when LoginEnabled is off. Every refusal is
   * audited adminLoginFailed.
   */
  async login(input: { userName: string; password: string; ip: string }): Promise<AdminSignedIn> {
    // A blocked attempt (anyone can repeat it at will) is folded per address and minute.
    const failed = (errorMessage: string, fold = false) =>
      (fold ? writeFoldedAudit : writeAudit)(this.db, {
        action: AuditAction.adminLoginFailed,
        at: this.clock.now(),
        adminName: input.userName,
        ipAddress: input.ip,
        errorMessage,
      });
    const attempt = await this.throttle.beginAuditedLogin(input.userName, input.ip, () =>
      failed("too many attempts", true),
    );
    const admin = await repo.getAdminByName(this.db, input.userName);
    let ok: boolean;
    try {
      ok = await verifyCredentials(admin ?? null, input.password, this.ldap);
    } catch (e) {
      // The password was not tested (directory unreachable): the attempt does not count.
      await this.throttle.loginAbandoned(attempt);
      await failed("sign-in failed");
      throw e;
    }
    if (!admin || !ok) {
      this.throttle.loginFailed(attempt);
      await failed(admin ? "wrong password" : "unknown admin");
      throw new AppError(Errors.invalidCredentials);
    }
    await this.throttle.loginSucceeded(attempt);
    return await this.issue(admin, input.ip);
  }

  /**
   * True when `password` is right for `admin` (local hash or LDAP bind, as at admin login). For the
   * user login's admin outcome (UserSessionService.portalLogin); no throttling or audit of its own.
   */
  checkPassword(admin: repo.AdminRow, password: string): Promise<boolean> {
    return verifyCredentials(admin, password, this.ldap);
  }

  /**
   * Issues an admin session to an admin whose identity was proven (password, SAML assertion). Admins
   * with TOTP (not SAML admins) get a pending session until `completeSignIn`. 403 "Login not
   * permitted" when LoginEnabled is off.
   */
  async issue(admin: repo.AdminRow, ip: string): Promise<AdminSignedIn> {
    const now = this.clock.now();
    if (!admin.loginEnabled) {
      await writeAudit(this.db, {
        action: AuditAction.adminLoginFailed,
        at: now,
        adminName: admin.userName,
        ipAddress: ip,
        errorMessage: "login not permitted",
      });
      throw new AppError(Errors.loginNotPermitted);
    }
    const ownFactor = admin.authType !== "SAML";
    // A passkey (docs/decisions.md "Passkeys") is a second factor like an enrolled TOTP secret.
    const passkeys = ownFactor && (await countPasskeys(this.db, "admin", admin.id)) > 0;
    const pending: "verify" | "enrol" | null = !ownFactor
      ? null
      : admin.totpEnabled && admin.totpSecretEnc
        ? "verify"
        : passkeys
          ? "verify"
          : admin.totpEnabled
            ? "enrol"
            : null;
    const token = randomToken(16);
    const sessionId = newId();
    const endsAt = now + ADMIN_SESSION_MINUTES * 60_000;
    await repo.insertAdminSession(this.db, {
      id: sessionId,
      tokenHash: sha256(token),
      adminId: admin.id,
      createdAt: now,
      endsAt,
      ipAddress: ip,
      verified: pending === null,
    });
    const session: AdminSessionContext = { sessionId, adminId: admin.id, userName: admin.userName, name: admin.name };
    if (pending === null) await this.completeSignIn(session, ip);
    return { token, session, pending, endsAt };
  }

  /**
   * Completes an admin sign-in whose TOTP code verified or whose enrolment was deferred (POST
   * /admin/otp/verify): the session gets a new cookie token (the one issued before the code no
   * longer resolves), then `completeSignIn`. Returns the new token and the session's end (epoch ms).
   */
  async completeTotpSignIn(session: AdminSessionContext, ip: string): Promise<{ token: string; endsAt: number }> {
    const token = randomToken(16);
    const endsAt = await repo.rotateAdminSessionToken(this.db, session.sessionId, sha256(token));
    await this.completeSignIn(session, ip);
    return { token, endsAt: endsAt ?? this.clock.now() };
  }

  /** Completes an admin sign-in (at once, or after the TOTP code): the session becomes usable. */
  async completeSignIn(session: AdminSessionContext, ip: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      await repo.verifyAdminSession(tx, session.sessionId);
      await repo.updateAdmin(tx, session.adminId, { lastLogin: now });
      await writeAudit(tx, { action: AuditAction.adminLoggedIn, at: now, adminName: session.userName, ipAddress: ip });
    });
  }

  /**
   * Resolves a cookie token; throws 401 err.invalidSession when absent, ended, expired or disabled.
   * With `allowPending` a session still owing its TOTP code is accepted (only the 2FA routes).
   */
  async resolve(token: string | undefined, opts: { allowPending?: boolean } = {}): Promise<AdminSessionContext> {
    if (!token) throw new AppError(Errors.invalidSession);
    const row = await repo.adminSessionByTokenHash(this.db, sha256(token));
    if (
      !row ||
      row.session.endedAt !== null ||
      row.session.endsAt <= this.clock.now() ||
      (!row.session.verified && !opts.allowPending) ||
      !row.admin.loginEnabled
    )
      throw new AppError(Errors.invalidSession);
    return { sessionId: row.session.id, adminId: row.admin.id, userName: row.admin.userName, name: row.admin.name };
  }

  /** Ends the admin session. */
  async logout(session: AdminSessionContext, ip: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      await repo.endAdminSessions(tx, [session.sessionId], now);
      await writeAudit(tx, { action: AuditAction.adminLoggedOut, at: now, adminName: session.userName, ipAddress: ip });
    });
  }
}

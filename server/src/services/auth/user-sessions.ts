/**
 * User sign-in with a local password, session resolution and logout (docs/reference.md user-portal §4 "Login
 * outcomes", §7 POST /login and POST /logout; docs/reference.md design "Security"). A session lasts the user's
 * Duration (minutes), or KioskSessionDuration for a public computer; a new random id is issued at
 * every sign-in and only its SHA-256 is stored. At sign-in every assigned ACL without ClickToGrant
 * is granted at once.
 */
import { countPasskeys } from "../../repositories/passkeys.ts";
import { Errors } from "@postern/shared";
import { getAcl } from "../../repositories/acls.ts";
import * as sessionsRepo from "../../repositories/sessions.ts";
import { AppError } from "../../errors.ts";
import * as usersRepo from "../../repositories/users.ts";
import { ensureGrantRows } from "../../repositories/grants.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { writeFoldedAudit } from "../audit-fold.ts";
import { getSetting, isHttpsUrl } from "../settings.ts";
import { noLdap, verifyCredentials } from "./credentials.ts";
import type { LdapVerifier } from "./credentials.ts";
import { newId, randomToken, sha256 } from "./tokens.ts";
import { LoginThrottle } from "./throttle.ts";
import type { AdminSessionService, AdminSignedIn } from "./admin-sessions.ts";
import { getAdminByName } from "../../repositories/admins.ts";
import { Service } from "../service.ts";
import type { StatusVersions } from "../../repositories/status.ts";

/** A resolved, usable user session. Times in epoch ms. */
export interface UserSessionContext {
  sessionId: string;
  userId: string;
  userName: string;
  name: string;
  authType: string;
  endsAt: number;
  ipAddress: string;
  validUntil: number | null;
  /**
   * The session's status versions when read with the session (repositories/status.ts `versions`):
   * the status read uses them rather than reading them again. Read before anything the request then
   * reads, so they can only be older than what it sees.
   */
  statusVersions?: StatusVersions;
}

/** A TOTP code still owed after the password: verify an enrolled secret, or enrol one first. */
export type TotpPending = "verify" | "enrol" | null;

/** The result of a sign-in: the cookie token (shown once), the session, and what is still owed. */
export interface SignedIn {
  token: string;
  session: UserSessionContext;
  pending: TotpPending;
}

/** The outcome of POST /login: a user signed in, or an admin (whose credentials were given there). */
export type PortalSignIn = ({ kind: "user" } & SignedIn) | ({ kind: "admin" } & AdminSignedIn);

/** User sessions: sign-in, resolve, logout. */
export class UserSessionService extends Service {
  /** Sign-in throttling (stateless over the login_throttle table). */
  private readonly throttle = new LoginThrottle(this.db, this.clock);

  private ldap: LdapVerifier = noLdap;
  private sessionByHash: ReturnType<typeof sessionsRepo.prepareSessionByTokenHash> | undefined;

  /** Sets how LDAP users' passwords are checked (the LDAP service, once configured). */
  useLdap(verifier: LdapVerifier): void {
    this.ldap = verifier;
  }

  /**
   * Signs a user in with a password (local or LDAP accounts). Returns the cookie token (shown
   * once), the session, and `pending`: "verify" or "enrol" when a TOTP code is still owed (the
   * session is not usable until `completeSignIn`), null when signed in. Throws 429 "Too many
   * requests. Please try again in..." (Extra: seconds) while the account or address is throttled,
   * before any hashing; 401 "Invalid credentials" for an unknown user or a wrong password alike
   * (one hash either way); 403 accountDisabled for a disabled account or one past ValidUntil. Every
   * refusal is audited userLoginFailed. Admins are not looked up (see `portalLogin`).
   */
  async login(input: { userName: string; password: string; kiosk: boolean; ip: string }): Promise<SignedIn> {
    const outcome = await this.signIn(input, null);
    if (outcome.kind !== "user") throw new AppError(Errors.invalidCredentials);
    return outcome;
  }

  /**
   * POST /login (docs/reference.md user-portal §4 "Login outcomes"): as `login`, but a name with no user that names
   * an admin signs the admin in through `admins` (docs/reference.md user-portal: "'Unauthorised' on the user login
   * means an admin session"): the outcome is then `kind: "admin"` with the admin's session (pending
   * TOTP as at admin login; 403 "Login not permitted" when LoginEnabled is off). A user with a
   * password (local or LDAP) wins over an admin of the same name; a SAML or API-key user never
   * answers here (they have no password), so a SAML NameID equal to an admin's name cannot shadow
   * the admin. One password check per attempt whatever the outcome.
   */
  portalLogin(
    input: { userName: string; password: string; kiosk: boolean; ip: string },
    admins: AdminSessionService,
  ): Promise<PortalSignIn> {
    return this.signIn(input, admins);
  }

  private async signIn(
    input: { userName: string; password: string; kiosk: boolean; ip: string },
    admins: AdminSessionService | null,
  ): Promise<PortalSignIn> {
    // A blocked attempt (anyone can repeat it at will) is folded per address and minute.
    const failed = (errorMessage: string, fold = false) =>
      (fold ? writeFoldedAudit : writeAudit)(this.db, {
        action: AuditAction.userLoginFailed,
        at: this.clock.now(),
        userName: input.userName,
        ipAddress: input.ip,
        errorMessage,
      });
    const attempt = await this.throttle.beginAuditedLogin(input.userName, input.ip, () =>
      failed("too many attempts", true),
    );
    const user = passwordUser(await usersRepo.getUserByName(this.db, input.userName));
    const admin = !user && admins ? await getAdminByName(this.db, input.userName) : undefined;
    let ok: boolean;
    try {
      ok =
        user || !admin || !admins
          ? await verifyCredentials(user ?? null, input.password, this.ldap)
          : await admins.checkPassword(admin, input.password);
    } catch (e) {
      // The password was not tested (directory unreachable): the attempt does not count.
      await this.throttle.loginAbandoned(attempt);
      await failed("sign-in failed");
      throw e;
    }
    if (!ok) {
      this.throttle.loginFailed(attempt);
      await failed(user || admin ? "wrong password" : "unknown user");
      throw new AppError(Errors.invalidCredentials);
    }
    await this.throttle.loginSucceeded(attempt);
    if (user) return { kind: "user", ...(await this.issue(user, { kiosk: input.kiosk, ip: input.ip })) };
    return { kind: "admin", ...(await admins!.issue(admin!, input.ip)) };
  }

  /**
   * Issues a session to a user whose identity was proven (password, SAML assertion, API key).
   * `minutes` overrides the session length (SAML sessionDuration); kiosk sessions last
   * KioskSessionDuration; never beyond ValidUntil, nor — for a session an API key signs in
   * (`apiKey`) — beyond the key's expiry; such a session remembers its key and ends when the key is
   * deleted (docs/decisions.md "Access ends with the account"). Users with TOTP (not SAML or API-key
   * users) get a pending session. Throws 403 accountDisabled for a disabled or expired account.
   */
  async issue(
    user: usersRepo.UserRow,
    opts: { kiosk: boolean; ip: string; minutes?: number; apiKey?: { id: string; expiredAfter: number | null } },
  ): Promise<SignedIn> {
    const now = this.clock.now();
    if (user.disabled || (user.validUntil !== null && user.validUntil <= now)) {
      await writeAudit(this.db, {
        action: AuditAction.userLoginFailed,
        at: now,
        userName: user.userName,
        ipAddress: opts.ip,
        errorMessage: "account disabled",
      });
      throw new AppError(Errors.accountDisabled);
    }
    const ownFactor = user.authType !== "SAML" && user.authType !== "apikey";
    // A passkey (docs/decisions.md "Passkeys") is a second factor like an enrolled TOTP secret.
    const passkeys = ownFactor && (await countPasskeys(this.db, "user", user.id)) > 0;
    const pending: TotpPending = !ownFactor
      ? null
      : user.totpSecretEnc && user.totpEnabled
        ? "verify"
        : passkeys
          ? "verify"
          : user.totpEnabled
            ? "enrol"
            : null;
    const token = randomToken(16);
    const sessionId = newId();
    const minutes =
      opts.minutes ?? (opts.kiosk ? await getSetting(this.db, "KioskSessionDuration") : user.durationMinutes);
    const endsAt = Math.min(
      now + minutes * 60_000,
      user.validUntil ?? Number.POSITIVE_INFINITY,
      opts.apiKey?.expiredAfter ?? Number.POSITIVE_INFINITY,
    );
    await sessionsRepo.insertUserSession(this.db, {
      id: sessionId,
      tokenHash: sha256(token),
      userId: user.id,
      createdAt: now,
      endsAt,
      kiosk: opts.kiosk,
      ipAddress: opts.ip,
      verified: pending === null,
      apiKeyId: opts.apiKey?.id ?? null,
    });
    const session: UserSessionContext = {
      sessionId,
      userId: user.id,
      userName: user.userName,
      name: user.name,
      authType: user.authType,
      endsAt,
      ipAddress: opts.ip,
      validUntil: user.validUntil,
    };
    if (pending === null) await this.completeSignIn(session);
    return { token, session, pending };
  }

  /**
   * Completes a sign-in whose TOTP code verified (POST /otp/verify): the session gets a new cookie
   * token, so the one issued before the code was given no longer resolves (a token planted or seen
   * before 2FA is worth nothing after it), then `completeSignIn`. Returns the new token.
   */
  async completeTotpSignIn(session: UserSessionContext): Promise<string> {
    const token = randomToken(16);
    await sessionsRepo.rotateUserSessionToken(this.db, session.sessionId, sha256(token));
    await this.completeSignIn(session);
    return token;
  }

  /**
   * Completes a sign-in (at once, or after the TOTP code was verified): the session becomes usable,
   * LastLogin is set, SessionLimit ends the oldest sessions beyond it, and every assigned ACL without
   * ClickToGrant is granted.
   */
  async completeSignIn(session: UserSessionContext): Promise<void> {
    const now = this.clock.now();
    let autoGrant: string[] = [];
    const ops = await this.db.transaction(async (tx) => {
      await sessionsRepo.verifyUserSession(tx, session.sessionId);
      const user = (await usersRepo.getUser(tx, session.userId))!;
      const aclIds = await usersRepo.assignedAclIds(tx, user.id);
      await ensureGrantRows(tx, session.sessionId, aclIds, now, newId);
      autoGrant = [];
      for (const id of aclIds) if ((await getAcl(tx, id))?.clickToGrant === false) autoGrant.push(id);
      // SessionLimit: the oldest sessions beyond the limit end (null means unlimited).
      let ended: string[] = [];
      if (user.sessionLimit !== null) {
        const live = await usersRepo.liveSessionIds(tx, user.id, now);
        ended = live.slice(0, Math.max(0, live.length - user.sessionLimit));
        await usersRepo.endSessions(tx, ended, now, "sessionLimit");
      }
      await writeAudit(tx, {
        action: AuditAction.userLoggedIn,
        at: now,
        userName: user.userName,
        ipAddress: session.ipAddress,
      });
      return await this.engine.revokeForSessions(tx, ended);
    });
    this.engine.dispatch(ops);
    // LastLogin apart from the transaction: in it, sign-ins of one account at the same time all wrote the
    // user's row, and on PostgreSQL (SERIALIZABLE) they failed each other until the retries ran out.
    await usersRepo.updateUser(this.db, session.userId, { lastLogin: now });
    for (const aclId of autoGrant) {
      try {
        await this.engine.grant(session.sessionId, aclId, {
          userName: session.userName,
          ip: session.ipAddress,
          click: false,
        });
      } catch {
        // an ACL that cannot be granted shows its error in the status
      }
    }
  }

  /**
   * Resolves a cookie token to a live session; throws 401 err.invalidSession otherwise. With
   * `allowPending` a session still owing its TOTP code is accepted (only the 2FA routes do that).
   * With `fromHostCookie` (a plain-http request: true when the token came from the `__Host-` cookie,
   * false from the plain one) the token counts only when that is the cookie the PublicURL setting
   * names (http/context.ts `secureCookies`), judged on the setting as read with the session.
   */
  async resolve(
    token: string | undefined,
    opts: { allowPending?: boolean; fromHostCookie?: boolean } = {},
  ): Promise<UserSessionContext> {
    if (!token) throw new AppError(Errors.invalidSession);
    // Every user call resolves its session: one prepared statement, compiled once.
    this.sessionByHash ??= sessionsRepo.prepareSessionByTokenHash(this.db);
    const row = await this.sessionByHash(sha256(token));
    const now = this.clock.now();
    if (!row || row.endedAt !== null || row.endsAt <= now || (!row.verified && !opts.allowPending) || row.disabled)
      throw new AppError(Errors.invalidSession);
    if (opts.fromHostCookie !== undefined && opts.fromHostCookie !== isHttpsUrl(row.publicUrl))
      throw new AppError(Errors.invalidSession);
    if (row.validUntil !== null && row.validUntil <= now) throw new AppError(Errors.invalidSession);
    return {
      sessionId: row.sessionId,
      userId: row.userId,
      userName: row.userName,
      name: row.name,
      authType: row.authType,
      endsAt: row.endsAt,
      ipAddress: row.ipAddress,
      validUntil: row.validUntil,
      statusVersions: row.statusVersions,
    };
  }

  /** Ends the session and revokes its grants (POST /logout). */
  async logout(session: UserSessionContext, ip: string): Promise<void> {
    const ops = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      await usersRepo.endSessions(tx, [session.sessionId], now, "logout");
      await writeAudit(tx, { action: AuditAction.userLoggedOut, at: now, userName: session.userName, ipAddress: ip });
      return await this.engine.revokeForSessions(tx, [session.sessionId]);
    });
    this.engine.dispatch(ops);
  }
}

/**
 * The user when it signs in with a password (local or LDAP); undefined for SAML and API-key users,
 * which POST /login treats as unknown names (docs/decisions.md "Sessions and sign-in").
 */
function passwordUser(user: usersRepo.UserRow | undefined): usersRepo.UserRow | undefined {
  return user && (user.authType === "local" || user.authType === "LDAP") ? user : undefined;
}

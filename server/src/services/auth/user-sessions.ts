/**
 * User sign-in with a local password, session resolution and logout (user-portal §4 "Login
 * outcomes", §7 POST /login and POST /logout; design.md "Security"). A session lasts the user's
 * Duration (minutes), or KioskSessionDuration for a public computer; a new random id is issued at
 * every sign-in and only its SHA-256 is stored. At sign-in every assigned ACL without ClickToGrant
 * is granted at once.
 */
import { eq } from "drizzle-orm";
import { ErrKey, ServerMessage } from "@postern/shared";
import { acls, users, userSessions } from "../../db/schema.ts";
import { AppError, invalidSession } from "../../errors.ts";
import * as usersRepo from "../../repositories/users.ts";
import { ensureGrantRows } from "../../repositories/grants.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { getSetting } from "../settings.ts";
import { verifyPassword } from "./passwords.ts";
import { newId, randomToken, sha256 } from "./tokens.ts";
import { Service } from "../service.ts";

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
}

/** User sessions: sign-in, resolve, logout. */
export class UserSessionService extends Service {

  /**
   * Signs in with a local password. Returns the cookie token (shown once) and the session.
   * Throws 401 "Invalid credentials" for an unknown user or wrong password alike (same timing),
   * 403 accountDisabled for a disabled account or one past ValidUntil.
   */
  async login(input: { userName: string; password: string; kiosk: boolean; ip: string }): Promise<{ token: string; session: UserSessionContext }> {
    const user = usersRepo.getUserByName(this.db, input.userName);
    const ok = await verifyPassword(user?.authType === "local" ? user.passwordHash : null, input.password);
    const now = this.clock.now();
    if (!user || !ok) {
      writeAudit(this.db, { action: AuditAction.userLoginFailed, at: now, userName: input.userName, ipAddress: input.ip });
      throw new AppError(401, ServerMessage.invalidCredentials);
    }
    if (user.disabled || (user.validUntil !== null && user.validUntil <= now)) {
      writeAudit(this.db, { action: AuditAction.userLoginFailed, at: now, userName: user.userName, ipAddress: input.ip, errorMessage: "account disabled" });
      throw new AppError(403, ErrKey.accountDisabled);
    }
    const token = randomToken(16);
    const sessionId = newId();
    const minutes = input.kiosk ? getSetting(this.db, "KioskSessionDuration") : user.durationMinutes;
    const endsAt = Math.min(now + minutes * 60_000, user.validUntil ?? Number.POSITIVE_INFINITY);
    let autoGrant: string[] = [];
    const ops = this.db.transaction((tx) => {
      tx.insert(userSessions).values({ id: sessionId, tokenHash: sha256(token), userId: user.id, createdAt: now, endsAt, kiosk: input.kiosk, ipAddress: input.ip }).run();
      tx.update(users).set({ lastLogin: now }).where(eq(users.id, user.id)).run();
      const aclIds = usersRepo.assignedAclIds(tx, user.id);
      ensureGrantRows(tx, sessionId, aclIds, now, newId);
      autoGrant = aclIds.filter((id) => tx.select({ c: acls.clickToGrant }).from(acls).where(eq(acls.id, id)).get()?.c === false);
      // SessionLimit: the oldest sessions beyond the limit end (null means unlimited).
      let ended: string[] = [];
      if (user.sessionLimit !== null) {
        const live = usersRepo.liveSessionIds(tx, user.id, now);
        ended = live.slice(0, Math.max(0, live.length - user.sessionLimit));
        usersRepo.endSessions(tx, ended, now, "sessionLimit");
      }
      writeAudit(tx, { action: AuditAction.userLoggedIn, at: now, userName: user.userName, ipAddress: input.ip });
      return this.engine.revokeForSessions(tx, ended);
    });
    this.engine.dispatch(ops);
    const session: UserSessionContext = { sessionId, userId: user.id, userName: user.userName, name: user.name, authType: user.authType, endsAt, ipAddress: input.ip, validUntil: user.validUntil };
    for (const aclId of autoGrant) {
      try {
        this.engine.grant(sessionId, aclId, { userName: user.userName, ip: input.ip, click: false });
      } catch {
        // an ACL that cannot be granted shows its error in the status
      }
    }
    return { token, session };
  }

  /** Resolves a cookie token to a live session; throws 401 err.invalidSession otherwise. */
  resolve(token: string | undefined): UserSessionContext {
    if (!token) throw invalidSession();
    const row = this.db
      .select({ s: userSessions, u: users })
      .from(userSessions)
      .innerJoin(users, eq(users.id, userSessions.userId))
      .where(eq(userSessions.tokenHash, sha256(token)))
      .get();
    const now = this.clock.now();
    if (!row || row.s.endedAt !== null || row.s.endsAt <= now || !row.s.verified || row.u.disabled) throw invalidSession();
    if (row.u.validUntil !== null && row.u.validUntil <= now) throw invalidSession();
    return {
      sessionId: row.s.id,
      userId: row.u.id,
      userName: row.u.userName,
      name: row.u.name,
      authType: row.u.authType,
      endsAt: row.s.endsAt,
      ipAddress: row.s.ipAddress,
      validUntil: row.u.validUntil,
    };
  }

  /** Ends the session and revokes its grants (POST /logout). */
  logout(session: UserSessionContext, ip: string): void {
    const ops = this.db.transaction((tx) => {
      const now = this.clock.now();
      usersRepo.endSessions(tx, [session.sessionId], now, "logout");
      writeAudit(tx, { action: AuditAction.userLoggedOut, at: now, userName: session.userName, ipAddress: ip });
      return this.engine.revokeForSessions(tx, [session.sessionId]);
    });
    this.engine.dispatch(ops);
  }
}

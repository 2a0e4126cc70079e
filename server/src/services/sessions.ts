/**
 * Session invalidation by admins (docs/reference.md admin-console §2 "invalidate all sessions" / "invalidate all admin
 * sessions", §7 "Sessions": DELETE /admin/sessions, /admin/sessions/{id}, /admin/adminsessions,
 * /admin/adminsessions/{id}). Ending a user session revokes its grants exactly as logout does; the
 * bulk admin-session end includes the caller's own session.
 */
import { Errors } from "@postern/shared";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import type { AdminActor } from "./admins.ts";
import { AppError } from "../errors.ts";
import { endSessions } from "../repositories/users.ts";
import { holdingGrantsOfSessions } from "../repositories/grants.ts";
import { getUserSessionWithUser, liveUserSessions } from "../repositories/sessions.ts";
import { endAdminSessions, getAdmin, getAdminSession, liveAdminSessions } from "../repositories/admins.ts";
import type { Tx } from "../db/index.ts";
import type { Ops } from "./grants/engine.ts";
import { Service } from "./service.ts";

/** The end reason stored on user sessions an admin ends. */
export const INVALIDATED = "invalidated";

/** Ends user and admin sessions on an admin's request. */
export class SessionService extends Service {
  /** Ends user sessions and revokes their grants inside `tx`, in chunks; returns the agent ops. */
  private endUserSessions(tx: Tx, ids: readonly string[], now: number): Ops {
    const ops: Ops = new Map();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      this.engine.revokeInTx(tx, holdingGrantsOfSessions(tx, part), ops);
      endSessions(tx, part, now, INVALIDATED);
    }
    return ops;
  }

  /**
   * Ends every live user session and revokes all their grants (DELETE /admin/sessions). Writes one
   * audit entry sessionDeleted naming the count. Returns how many sessions ended.
   */
  endAllUserSessions(actor: Actor): number {
    let count = 0;
    const ops = this.db.transaction((tx) => {
      const now = this.clock.now();
      const ids = liveUserSessions(tx, now).map((s) => s.id);
      count = ids.length;
      const ops = this.endUserSessions(tx, ids, now);
      writeAudit(tx, {
        action: AuditAction.sessionDeleted,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `all user sessions (${count})`,
      });
      return ops;
    });
    this.engine.dispatch(ops);
    return count;
  }

  /**
   * Ends one live user session and revokes its grants (DELETE /admin/sessions/{id}). Throws 404
   * Not found when the session is unknown or already over. Audit sessionDeleted with the user.
   */
  endUserSession(id: string, actor: Actor): void {
    const ops = this.db.transaction((tx) => {
      const now = this.clock.now();
      const found = getUserSessionWithUser(tx, id);
      if (!found || found.session.endedAt !== null || found.session.endsAt <= now)
        throw new AppError(Errors.notFound, "session");
      const ops = this.endUserSessions(tx, [id], now);
      writeAudit(tx, {
        action: AuditAction.sessionDeleted,
        at: now,
        userName: found.userName,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: "user session",
      });
      return ops;
    });
    this.engine.dispatch(ops);
  }

  /**
   * Ends every live admin session, the caller's own included (DELETE /admin/adminsessions). One
   * audit entry sessionDeleted naming the count. Returns how many sessions ended.
   */
  endAllAdminSessions(actor: Actor): number {
    return this.db.transaction((tx) => {
      const now = this.clock.now();
      const ids = liveAdminSessions(tx, now).map((s) => s.id);
      endAdminSessions(tx, ids, now);
      writeAudit(tx, {
        action: AuditAction.sessionDeleted,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `all admin sessions (${ids.length})`,
      });
      return ids.length;
    });
  }

  /**
   * Ends one live admin session (DELETE /admin/adminsessions/{id}); the caller's own is allowed and
   * works as a logout. Throws 404 Not found when unknown or already over. Audit sessionDeleted.
   * Returns true when it was the caller's own session.
   */
  endAdminSession(id: string, actor: AdminActor): boolean {
    this.db.transaction((tx) => {
      const now = this.clock.now();
      const row = getAdminSession(tx, id);
      if (!row || row.endedAt !== null || row.endsAt <= now) throw new AppError(Errors.notFound, "session");
      endAdminSessions(tx, [id], now);
      const owner = getAdmin(tx, row.adminId);
      writeAudit(tx, {
        action: AuditAction.sessionDeleted,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `admin session of ${owner?.userName ?? ""}`,
      });
    });
    return id === actor.sessionId;
  }
}

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
  private async endUserSessions(tx: Tx, ids: readonly string[], now: number): Promise<Ops> {
    const ops: Ops = new Map();
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500);
      await this.engine.revokeInTx(tx, await holdingGrantsOfSessions(tx, part), ops);
      await endSessions(tx, part, now, INVALIDATED);
    }
    return ops;
  }

  /**
   * Ends every live user session and revokes all their grants (DELETE /admin/sessions). Writes one
   * audit entry sessionDeleted naming the count. Returns how many sessions ended.
   */
  async endAllUserSessions(actor: Actor): Promise<number> {
    let count = 0;
    const ops = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const ids = (await liveUserSessions(tx, now)).map((s) => s.id);
      count = ids.length;
      const ops = await this.endUserSessions(tx, ids, now);
      await writeAudit(tx, {
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
  async endUserSession(id: string, actor: Actor): Promise<void> {
    const ops = await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const found = await getUserSessionWithUser(tx, id);
      if (!found || found.session.endedAt !== null || found.session.endsAt <= now)
        throw new AppError(Errors.notFound, "session");
      const ops = await this.endUserSessions(tx, [id], now);
      await writeAudit(tx, {
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
  async endAllAdminSessions(actor: Actor): Promise<number> {
    return await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const ids = (await liveAdminSessions(tx, now)).map((s) => s.id);
      await endAdminSessions(tx, ids, now);
      await writeAudit(tx, {
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
  async endAdminSession(id: string, actor: AdminActor): Promise<boolean> {
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const row = await getAdminSession(tx, id);
      if (!row || row.endedAt !== null || row.endsAt <= now) throw new AppError(Errors.notFound, "session");
      await endAdminSessions(tx, [id], now);
      const owner = await getAdmin(tx, row.adminId);
      await writeAudit(tx, {
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

/**
 * Approval requests (issue #14 item 1; docs/decisions.md "Approval requests"). A Knoc with RequiresApproval
 * holds a user's grant: the engine asks `hold` inside its grant transaction, which records a pending request
 * (audit approvalRequested) and applies nothing. Approvers — every admin, and the members of the Knoc's
 * ApproverGroupIDs — approve (the grant is applied at once through the engine, optionally shortened to
 * `Minutes`) or deny it with a reason the user is shown. Nobody decides their own request (403). A request
 * not answered within the Knoc's ApprovalTimeout expires in the sweep; one whose session ended, or whose
 * Knoc no longer requires approval, is withdrawn. Every step writes its audit entry in its transaction, and
 * the audit entries raise the webhook events approval.requested / approval.decided.
 */
import { Errors, NONE_ID } from "@postern/shared";
import type { Approval } from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/approvals.ts";
import type { ApprovalRow, ApprovalWithAcl } from "../repositories/approvals.ts";
import type { GrantRow } from "../repositories/grants.ts";
import { getUserSession } from "../repositories/sessions.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import { newId } from "./auth/tokens.ts";
import type { ApprovalAcl, ApprovalHooks } from "./grants/engine.ts";
import { Service } from "./service.ts";

/** How many decided requests the approvers' list shows after the pending ones. */
export const RECENT_APPROVALS = 100;

/**
 * Who decides: an admin of the console (any request), or a signed-in user who is a member of one of the
 * request's Knoc's approver groups. `ip` is where the decision came from (audit).
 */
export type Approver =
  { kind: "admin"; name: string; ip: string } | { kind: "user"; userId: string; name: string; ip: string };

/** A request as approvers read it. */
function toWire(r: ApprovalWithAcl): Approval {
  return {
    ID: r.id,
    UserName: r.userName,
    ACLID: r.aclId,
    ACL: r.aclDescription,
    IPAddress: r.ipAddress,
    Reason: r.reason,
    State: r.state,
    Created: iso(r.createdAt) ?? "",
    Expires: iso(r.expiresAt) ?? "",
    DecidedAt: iso(r.decidedAt) ?? "",
    DecidedBy: r.decidedBy,
    DenyReason: r.decisionReason,
    GrantMinutes: r.grantMinutes,
  };
}

/** The audit fields naming the approver: adminName for an admin; a user approver is named in the description. */
function approverFields(a: Approver): { adminName?: string; by: string } {
  return a.kind === "admin" ? { adminName: a.name, by: `admin ${a.name}` } : { by: `user ${a.name} (approver group)` };
}

/** Approval requests: the engine's hooks, the approvers' list and decisions, and the expiry sweep. */
export class ApprovalService extends Service implements ApprovalHooks {
  /** See ApprovalHooks.hold: a pending request holds the grant (one per grant; asking again changes nothing). */
  async hold(
    tx: Tx,
    g: { grant: GrantRow; acl: ApprovalAcl; sessionId: string; userName: string; ip: string; reason: string },
  ): Promise<boolean> {
    if (!g.acl.requiresApproval) return false;
    if (await repo.pendingOfGrant(tx, g.grant.id)) return true;
    const now = this.clock.now();
    const id = newId();
    const userId = await this.userOfSession(tx, g.sessionId);
    await repo.insertApproval(tx, {
      id,
      grantId: g.grant.id,
      aclId: g.acl.id,
      sessionId: g.sessionId,
      userId,
      userName: g.userName,
      ipAddress: g.ip,
      reason: g.reason,
      state: "pending",
      createdAt: now,
      expiresAt: now + g.acl.approvalTimeoutSeconds * 1000,
    });
    await writeAudit(tx, {
      action: AuditAction.approvalRequested,
      at: now,
      userName: g.userName,
      ipAddress: g.ip,
      aclDescription: g.acl.description,
      description: g.reason ? `request ${id}: ${g.reason}` : `request ${id}`,
    });
    return true;
  }

  private async userOfSession(tx: Tx, sessionId: string): Promise<string> {
    return (await getUserSession(tx, sessionId))?.userId ?? NONE_ID;
  }

  /** See ApprovalHooks.withdraw: the user's own withdrawal of a pending request (audit approvalWithdrawn). */
  async withdraw(tx: Tx, grant: GrantRow, meta: { userName: string; ip: string }): Promise<boolean> {
    const pending = await repo.pendingOfGrant(tx, grant.id);
    if (!pending) return false;
    const now = this.clock.now();
    if (!(await repo.closeApproval(tx, pending.id, "withdrawn", { decidedAt: now }))) return false;
    const full = await repo.getApproval(tx, pending.id);
    await writeAudit(tx, {
      action: AuditAction.approvalWithdrawn,
      at: now,
      userName: meta.userName,
      ipAddress: meta.ip,
      aclDescription: full?.aclDescription ?? "",
      description: `request ${pending.id}: withdrawn by the user`,
    });
    return true;
  }

  /** GET /api/admin/approvals: every pending request (oldest first), then the latest RECENT_APPROVALS others. */
  async listForAdmin(): Promise<Approval[]> {
    return [...(await repo.pendingApprovals(this.db)), ...(await repo.recentApprovals(this.db, RECENT_APPROVALS))].map(
      toWire,
    );
  }

  /** GET /api/approvals: the pending requests a user may decide (their groups approve the Knoc; not their own). */
  async listForUser(userId: string): Promise<Approval[]> {
    const out: Approval[] = [];
    for (const r of await repo.pendingApprovals(this.db)) {
      if (r.userId === userId) continue;
      if ((await repo.memberGroups(this.db, userId, r.approverGroupIds)).length > 0) out.push(toWire(r));
    }
    return out;
  }

  /**
   * The request `id` if `approver` may decide it: 404 unknown (or, for a user, not one of their groups' Knocs),
   * 403 err.cannotApproveOwnRequest for their own, 409 err.approvalNotPending once decided, expired or withdrawn.
   */
  private async decidable(tx: Tx, id: string, approver: Approver): Promise<ApprovalWithAcl> {
    const r = await repo.getApproval(tx, id);
    if (!r) throw new AppError(Errors.notFound, "approval");
    if (approver.kind === "user" && (await repo.memberGroups(tx, approver.userId, r.approverGroupIds)).length === 0)
      throw new AppError(Errors.notFound, "approval");
    const own = approver.kind === "admin" ? approver.name === r.userName : approver.userId === r.userId;
    if (own) throw new AppError(Errors.cannotApproveOwnRequest);
    if (r.state !== "pending") throw new AppError(Errors.approvalNotPending, r.state);
    return r;
  }

  /**
   * Approves request `id` and applies its grant at once (the engine's grant, on the session's current
   * address); `minutes` (1–40320) shortens the grant to end that many MINUTES from now (it never lengthens
   * it past the Knoc's or the session's end). Errors as `decidable`; when the grant can no longer be applied
   * (the session ended, the Knoc was unassigned, the user lost their licence) the request is withdrawn and
   * the answer is 409 err.approvalNotPending.
   */
  async approve(id: string, minutes: number | null, approver: Approver): Promise<Approval> {
    const r = await this.db.transaction(async (tx) => await this.decidable(tx, id, approver));
    const who = approverFields(approver);
    const now = this.clock.now();
    try {
      await this.engine.grant(
        r.sessionId,
        r.aclId,
        {
          userName: r.userName,
          ip: r.ipAddress,
          click: true,
          approve: async (tx) => {
            const at = this.clock.now();
            if (
              !(await repo.closeApproval(tx, id, "approved", {
                decidedAt: at,
                decidedBy: approver.name,
                grantMinutes: minutes,
              }))
            )
              throw new AppError(Errors.approvalNotPending);
            await writeAudit(tx, {
              action: AuditAction.approvalApproved,
              at,
              userName: r.userName,
              ...(who.adminName ? { adminName: who.adminName } : {}),
              ipAddress: approver.ip,
              aclDescription: r.aclDescription,
              description: `request ${id} approved by ${who.by}${minutes !== null ? ` for ${minutes} min` : ""}`,
            });
          },
        },
        minutes !== null ? now + minutes * 60_000 : undefined,
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.err === Errors.approvalNotPending.err) throw err;
      await this.withdrawUnusable(id, `the grant can no longer be applied (${err.message})`);
      throw new AppError(Errors.approvalNotPending, "the grant can no longer be applied");
    }
    const after = await repo.getApproval(this.db, id);
    if (after?.state === "pending") {
      // The engine had nothing to apply (the grant already holds): the request is moot.
      await this.withdrawUnusable(id, "the grant already holds");
      throw new AppError(Errors.approvalNotPending, "the grant already holds");
    }
    return toWire(after!);
  }

  /** Withdraws a pending request that can no longer be applied (audit approvalWithdrawn with why). */
  private async withdrawUnusable(id: string, why: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const r = await repo.getApproval(tx, id);
      if (!r || !(await repo.closeApproval(tx, id, "withdrawn", { decidedAt: now }))) return;
      await writeAudit(tx, {
        action: AuditAction.approvalWithdrawn,
        at: now,
        userName: r.userName,
        aclDescription: r.aclDescription,
        description: `request ${id}: ${why}`,
      });
    });
  }

  /** Denies request `id` with `reason` (shown to the user). Errors as `decidable`. */
  async deny(id: string, reason: string, approver: Approver): Promise<Approval> {
    return await this.db.transaction(async (tx) => {
      const r = await this.decidable(tx, id, approver);
      const now = this.clock.now();
      if (
        !(await repo.closeApproval(tx, id, "denied", {
          decidedAt: now,
          decidedBy: approver.name,
          decisionReason: reason,
        }))
      )
        throw new AppError(Errors.approvalNotPending);
      const who = approverFields(approver);
      await writeAudit(tx, {
        action: AuditAction.approvalDenied,
        at: now,
        userName: r.userName,
        ...(who.adminName ? { adminName: who.adminName } : {}),
        ipAddress: approver.ip,
        aclDescription: r.aclDescription,
        description: `request ${id} denied by ${who.by}: ${reason}`,
      });
      return toWire((await repo.getApproval(tx, id))!);
    });
  }

  /**
   * The sweep (run with the engine's, a few times a second): pending requests past their time expire
   * (audit approvalExpired); those whose session ended or whose Knoc no longer requires approval are
   * withdrawn (audit approvalWithdrawn). Returns how many requests it closed.
   */
  async sweep(): Promise<number> {
    // Most ticks find nothing: read first, and open a write transaction only when there is work.
    if ((await repo.pendingToClose(this.db, this.clock.now())).length === 0) return 0;
    return await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      let n = 0;
      for (const r of await repo.pendingToClose(tx, now)) {
        const expired = r.expiresAt <= now && !r.sessionEnded && r.requiresApproval;
        if (!(await repo.closeApproval(tx, r.id, expired ? "expired" : "withdrawn", { decidedAt: now }))) continue;
        n++;
        await writeAudit(tx, {
          action: expired ? AuditAction.approvalExpired : AuditAction.approvalWithdrawn,
          at: now,
          userName: r.userName,
          aclDescription: r.aclDescription,
          description: expired
            ? `request ${r.id}: not answered in time`
            : `request ${r.id}: ${r.requiresApproval ? "the session ended" : "the Knoc no longer requires approval"}`,
        });
      }
      return n;
    });
  }

  /** The latest request of each of a session's status entries, by grant id (the status read). */
  async latestOfSession(sessionId: string): Promise<Map<string, ApprovalRow>> {
    const latest = new Map<string, ApprovalRow>();
    for (const r of await repo.approvalsOfSession(this.db, sessionId))
      if (!latest.has(r.grantId)) latest.set(r.grantId, r);
    return latest;
  }
}

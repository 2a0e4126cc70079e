/**
 * The session-user status (user-portal §3 "Session user", GET /status) and address tracking:
 * when the user's address changes, their grants move to the new address and keep their expiry
 * (design.md "Grants").
 */
import { eq, inArray } from "drizzle-orm";
import { NONE_ID, GrantTypeSchema, IpExclusionsSchema, normaliseIp } from "@postern/shared";
import type { SessionStatus, StatusAcl, PortIp } from "@postern/shared";
import { acls, userSessions } from "../db/schema.ts";
import { iso } from "../clock.ts";
import * as grantsRepo from "../repositories/grants.ts";
import * as usersRepo from "../repositories/users.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { UserSessionContext } from "./auth/user-sessions.ts";
import { newId } from "./auth/tokens.ts";
import { addressAllowed } from "./grants/addresses.ts";
import { getSetting } from "./settings.ts";
import { Service } from "./service.ts";

/** Builds GET /status and follows the user's address. */
export class StatusService extends Service {

  /**
   * Records the address a request came from. When it differs from the session's, the session moves
   * to it and each holding grant is revoked on the old address and granted on the new one with the
   * same expiry (audit: user IP changed).
   */
  followAddress(session: UserSessionContext, requestIp: string): void {
    const ip = normaliseIp(requestIp)?.ip;
    if (!ip || ip === session.ipAddress) return;
    const now = this.clock.now();
    const moved = this.db.transaction((tx) => {
      tx.update(userSessions).set({ ipAddress: ip }).where(eq(userSessions.id, session.sessionId)).run();
      writeAudit(tx, { action: AuditAction.userIpChanged, at: now, userName: session.userName, ipAddress: ip, description: `from ${session.ipAddress}` });
      const holding = grantsRepo.holdingGrantsOfSessions(tx, [session.sessionId]);
      const ops = new Map();
      this.engine.revokeInTx(tx, holding, ops);
      return { ops, holding };
    });
    this.engine.dispatch(moved.ops);
    session.ipAddress = ip;
    for (const g of moved.holding) {
      this.engine.regrant(g.id, g.expiresAt, { userName: session.userName, ip });
    }
  }

  /** Stores the addresses IP discovery reported (POST /log_ips); used for CGNATOpen ACLs. */
  logIps(session: UserSessionContext, ips: readonly PortIp[]): void {
    const clean = ips.flatMap((p) => {
      const n = normaliseIp(p.IP);
      return n ? [{ Port: p.Port, IP: n.ip }] : [];
    });
    this.db.update(userSessions).set({ discoveredIps: clean }).where(eq(userSessions.id, session.sessionId)).run();
  }

  /** The session user with one entry per assigned ACL (user-portal §3). */
  status(session: UserSessionContext): SessionStatus {
    const now = this.clock.now();
    const aclIds = usersRepo.assignedAclIds(this.db, session.userId);
    grantsRepo.ensureGrantRows(this.db, session.sessionId, aclIds, now, newId);
    const rows = aclIds.length ? this.db.select().from(acls).where(inArray(acls.id, aclIds)).all() : [];
    const bySessionAcl = new Map(grantsRepo.listSessionGrants(this.db, session.sessionId).map((g) => [g.aclId, g]));
    const entries: StatusAcl[] = [];
    for (const acl of rows) {
      const g = bySessionAcl.get(acl.id);
      if (!g) continue;
      const grantType = GrantTypeSchema.parse(acl.grantType);
      const exclusions = IpExclusionsSchema.parse(acl.ipExclusions);
      const config = acl.config as { UriToken?: string };
      entries.push({
        ID: g.id,
        ACLID: acl.id,
        ParentID: acl.parentId ?? NONE_ID,
        Description: acl.description,
        URL: acl.url,
        Icon: acl.icon,
        Category: acl.category,
        Status: g.status,
        Error: g.error,
        ExpiredAfter: g.expiresAt !== null && g.expiresAt > now ? (iso(g.expiresAt) ?? "") : "",
        ClickToGrant: acl.clickToGrant,
        CGNATOpen: acl.cgnatOpen,
        HideFromUsers: acl.hideFromUsers,
        DisableForUser: grantType.Type === "userIp" && !addressAllowed(session.ipAddress, exclusions),
        GrantTypeFixedIps: grantType.Type === "specifiedIps",
        AutoBrowseUsers: acl.autoBrowseUsers,
        Config: { UriToken: config.UriToken ?? "" },
      });
    }
    entries.sort((a, b) => a.Description.localeCompare(b.Description));
    const autoBrowse = entries.filter((e) => e.AutoBrowseUsers && /^https?:\/\//.test(e.URL));
    return {
      Name: session.name,
      CurrentAddress: session.ipAddress,
      Ends: iso(session.endsAt) ?? "",
      ValidUntil: iso(session.validUntil),
      Licensed: true,
      UserLicensed: true,
      NewUserDashboard: getSetting(this.db, "NewUserDashboard"),
      AuthType: session.authType,
      AutoBrowseToURI: autoBrowse.length === 1 ? (autoBrowse[0]?.URL ?? "") : "",
      ACLs: entries,
    };
  }
}

/**
 * The session-user status (docs/reference.md user-portal §3 "Session user", GET /status) and address tracking:
 * when the user's address changes, their grants move to the new address and keep their expiry
 * (docs/reference.md design "Grants").
 */
import { GrantStatus, NONE_ID, GrantTypeSchema, IpExclusionsSchema, normaliseIp, GrantErrorKey } from "@postern/shared";
import type { SessionStatus, StatusAcl, PortIp } from "@postern/shared";
import { setSessionAddress } from "../repositories/sessions.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as grantsRepo from "../repositories/grants.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { UserSessionContext } from "./auth/user-sessions.ts";
import { newId } from "./auth/tokens.ts";
import { addressAllowed } from "./grants/addresses.ts";
import { currentObserved, observedUntil, withObserved } from "./grants/observed.ts";
import { getSetting } from "./settings.ts";
import { Service } from "./service.ts";
import { userLicence } from "./licensing/gates.ts";

/** Builds GET /status and follows the user's address. */
export class StatusService extends Service {
  /**
   * Records the address a request came from. A different address of the session's family moves the
   * session: each holding grant is revoked on the old address and granted on the new one with the
   * same expiry (audit: user IP changed), and the addresses observed on the old network are
   * forgotten, so the new grants carry none of them (docs/decisions.md "Access ends with the
   * account"). An address of the other family (a dual-stack client) is only observed, so that
   * alternating IPv4 and IPv6 connections do not make access flap.
   */
  followAddress(session: UserSessionContext, requestIp: string): void {
    const n = normaliseIp(requestIp);
    if (!n || n.ip === session.ipAddress) return;
    const ip = n.ip;
    if (n.family !== normaliseIp(session.ipAddress)?.family) {
      this.observe(session, ip, 0);
      return;
    }
    const now = this.clock.now();
    const moved = this.db.transaction((tx) => {
      setSessionAddress(tx, session.sessionId, ip);
      grantsRepo.setObserved(tx, session.sessionId, [], null);
      writeAudit(tx, {
        action: AuditAction.userIpChanged,
        at: now,
        userName: session.userName,
        ipAddress: ip,
        description: `from ${session.ipAddress}`,
      });
      const holding = grantsRepo.holdingGrantsOfSessions(tx, [session.sessionId]);
      const ops = new Map();
      this.engine.revokeInTx(tx, holding, ops);
      return { ops, holding };
    });
    this.engine.dispatch(moved.ops);
    session.ipAddress = ip;
    for (const g of moved.holding) {
      try {
        this.engine.regrant(g.id, g.expiresAt, { userName: session.userName, ip });
      } catch (err) {
        // A refused grant (e.g. the user is no longer licensed) stays revoked; the request goes on.
        if (!(err instanceof AppError)) throw err;
      }
    }
  }

  /**
   * Records an address the server itself saw for this session other than its main one (IP
   * discovery on the extra ports, the other family of a dual-stack client), seen now. CGNATOpen ACLs
   * grant these too, until they age out (services/grants/observed.ts: OBSERVED_ADDRESS_TTL_MS after
   * they were last seen, at most MAX_OBSERVED kept, the newest).
   */
  observe(session: UserSessionContext, ip: string, port: number): void {
    const n = normaliseIp(ip);
    if (!n || n.ip === session.ipAddress) return;
    const now = this.clock.now();
    this.db.transaction((tx) => {
      const list = withObserved(grantsRepo.getObserved(tx, session.sessionId), n.ip, port, now);
      grantsRepo.setObserved(tx, session.sessionId, list, observedUntil(list));
    });
  }

  /**
   * POST /log_ips: what the browser's IP discovery reported. Postern trusts only addresses it
   * observed itself, so a reported address is kept only when the server saw it for this session
   * (and it has not aged out). Returns the reported addresses that were confirmed.
   */
  logIps(session: UserSessionContext, ips: readonly PortIp[]): string[] {
    const observed = currentObserved(grantsRepo.getObserved(this.db, session.sessionId), this.clock.now());
    const seen = new Set([session.ipAddress, ...observed.map((d) => d.IP)]);
    return ips.flatMap((p) => {
      const n = normaliseIp(p.IP);
      return n && seen.has(n.ip) ? [n.ip] : [];
    });
  }

  private sessionAclRows: ReturnType<typeof grantsRepo.prepareSessionAclRows> | undefined;

  /**
   * The session's ACLs with their status entries (one prepared statement). ACLs assigned since the
   * session began get their entry (status 4) here, and those that need no click are granted as at
   * sign-in.
   */
  private rowsOf(session: UserSessionContext, now: number): grantsRepo.SessionAclRow[] {
    const query = (this.sessionAclRows ??= grantsRepo.prepareSessionAclRows(this.db));
    const params = { sessionId: session.sessionId, userId: session.userId };
    const rows = query.all(params);
    const missing = rows.filter((r) => r.grant === null).map((r) => r.acl);
    if (missing.length === 0) return rows;
    grantsRepo.ensureGrantRows(
      this.db,
      session.sessionId,
      missing.map((a) => a.id),
      now,
      newId,
    );
    for (const acl of missing) {
      if (acl.clickToGrant) continue;
      try {
        this.engine.grant(session.sessionId, acl.id, {
          userName: session.userName,
          ip: session.ipAddress,
          click: false,
        });
      } catch {
        // shown as the entry's status
      }
    }
    return query.all(params);
  }

  /** The session user with one entry per assigned ACL (docs/reference.md user-portal §3). */
  status(session: UserSessionContext): SessionStatus {
    const now = this.clock.now();
    const entries: StatusAcl[] = [];
    for (const { acl, grant: g } of this.rowsOf(session, now)) {
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
        Error: userGrantError(g.status, g.error),
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
    const licence = userLicence(this.db, session.userId, now);
    return {
      Name: session.name,
      CurrentAddress: session.ipAddress,
      Ends: iso(session.endsAt) ?? "",
      ValidUntil: iso(session.validUntil),
      Licensed: licence.admitted,
      UserLicensed: licence.licensed,
      NewUserDashboard: getSetting(this.db, "NewUserDashboard"),
      AuthType: session.authType,
      AutoBrowseToURI: autoBrowse.length === 1 ? (autoBrowse[0]?.URL ?? "") : "",
      ACLs: entries,
    };
  }
}

/** The stored error of a grant whose addresses are all excluded (grants/engine.ts), the one error that is the user's own. */
const ADDRESS_EXCLUDED = "Your address is not allowed for this ACL";

/**
 * What the user is shown of a stored grant or revoke error (StatusAcl.Error): an `err.*` key the
 * portal translates into a plain sentence naming whom to ask — err.addressNotAllowed for an
 * excluded address, err.revokeFailed for a failed revoke, err.grantFailed for anything else — never
 * the stored text, which may hold a target's address, a command line or an exception (that text is
 * in the audit log's grantError / revokeError entries, for the admins). "" when there is none.
 */
export function userGrantError(status: number, stored: string): string {
  if (stored === "") return "";
  if (stored === ADDRESS_EXCLUDED) return GrantErrorKey.addressNotAllowed;
  return status === GrantStatus.RevokedWithError ? GrantErrorKey.revokeFailed : GrantErrorKey.grantFailed;
}

/**
 * The session-user status (docs/reference.md user-portal §3 "Session user", GET /status) and address tracking:
 * when the user's address changes, their grants move to the new address and keep their expiry
 * (docs/reference.md design "Grants").
 */
import { GrantStatus, NONE_ID, GrantTypeSchema, IpExclusionsSchema, normaliseIp, GrantErrorKey } from "@postern/shared";
import type { GrantType, IpExclusions, SessionStatus, PortIp } from "@postern/shared";
import { setSessionAddress } from "../repositories/sessions.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as grantsRepo from "../repositories/grants.ts";
import { getAcl } from "../repositories/acls.ts";
import { prepareStatusReads } from "../repositories/status.ts";
import { versionsKey } from "../repositories/status.ts";
import type { SessionGrantRow, StatusReads, StatusVersions } from "../repositories/status.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { UserSessionContext } from "./auth/user-sessions.ts";
import { newId } from "./auth/tokens.ts";
import { addressAllowed } from "./grants/addresses.ts";
import { currentObserved, observedUntil, withObserved } from "./grants/observed.ts";
import { getSetting } from "./settings.ts";
import { Service } from "./service.ts";
import type { ServiceDeps } from "./service.ts";
import type { ApprovalRow } from "../repositories/approvals.ts";
import { StatusCache } from "./status-cache.ts";
import { aclJson, pushEntry, statusHead, STATUS_END } from "./status-json.ts";
import type { AclFields, AclJson, EntryFields } from "./status-json.ts";

/** Where the status read finds the latest approval request of each status entry (services/approvals.ts). */
export interface ApprovalReads {
  latestOfSession(sessionId: string): Promise<Map<string, ApprovalRow>>;
}

/** Builds GET /status and follows the user's address. */
export class StatusService extends Service {
  private readonly approvalReads: ApprovalReads | undefined;

  /** `approvals` adds the approval fields to entries of Knocs that RequiresApproval (absent: none are added). */
  constructor(deps: ServiceDeps, approvals?: ApprovalReads) {
    super(deps);
    this.approvalReads = approvals;
  }

  /**
   * Records the address a request came from. A different address of the session's family moves the
   * session: each holding grant is revoked on the old address and granted on the new one with the
   * same expiry (audit: user IP changed), and the addresses observed on the old network are
   * forgotten, so the new grants carry none of them (docs/decisions.md "Access ends with the
   * account"). An address of the other family (a dual-stack client) is only observed, so that
   * alternating IPv4 and IPv6 connections do not make access flap.
   */
  async followAddress(session: UserSessionContext, requestIp: string): Promise<void> {
    const n = normaliseIp(requestIp);
    if (!n || n.ip === session.ipAddress) return;
    const ip = n.ip;
    if (n.family !== normaliseIp(session.ipAddress)?.family) {
      await this.observe(session, ip, 0);
      return;
    }
    const now = this.clock.now();
    const moved = await this.db.transaction(async (tx) => {
      await setSessionAddress(tx, session.sessionId, ip);
      await grantsRepo.setObserved(tx, session.sessionId, [], null);
      await writeAudit(tx, {
        action: AuditAction.userIpChanged,
        at: now,
        userName: session.userName,
        ipAddress: ip,
        description: `from ${session.ipAddress}`,
      });
      const holding = await grantsRepo.holdingGrantsOfSessions(tx, [session.sessionId]);
      const ops = new Map();
      await this.engine.revokeInTx(tx, holding, ops);
      return { ops, holding };
    });
    this.engine.dispatch(moved.ops);
    session.ipAddress = ip;
    for (const g of moved.holding) {
      try {
        await this.engine.regrant(g.id, g.expiresAt, { userName: session.userName, ip });
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
  async observe(session: UserSessionContext, ip: string, port: number): Promise<void> {
    const n = normaliseIp(ip);
    if (!n || n.ip === session.ipAddress) return;
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      const list = withObserved(await grantsRepo.getObserved(tx, session.sessionId), n.ip, port, now);
      await grantsRepo.setObserved(tx, session.sessionId, list, observedUntil(list));
    });
  }

  /**
   * POST /log_ips: what the browser's IP discovery reported. Postern trusts only addresses it
   * observed itself, so a reported address is kept only when the server saw it for this session
   * (and it has not aged out). Returns the reported addresses that were confirmed.
   */
  async logIps(session: UserSessionContext, ips: readonly PortIp[]): Promise<string[]> {
    const observed = currentObserved(await grantsRepo.getObserved(this.db, session.sessionId), this.clock.now());
    const seen = new Set([session.ipAddress, ...observed.map((d) => d.IP)]);
    return ips.flatMap((p) => {
      const n = normaliseIp(p.IP);
      return n && seen.has(n.ip) ? [n.ip] : [];
    });
  }

  private reads: StatusReads | undefined;
  /** The ACLs' unchanging status parts, kept while the `acls` change counter stays at `aclsVersion`. */
  private aclParts = new Map<string, AclPart>();
  private aclsVersion = -1;
  /** The NewUserDashboard setting, kept while the `status_settings` change counter stays at its `counter`. */
  private dashboard: { counter: number; value: boolean } | undefined;

  /** The unchanging part of an ACL's status entry (read and parsed once per change of any ACL). */
  private async partOf(aclId: string): Promise<AclPart | undefined> {
    let part = this.aclParts.get(aclId);
    if (part) return part;
    const acl = await getAcl(this.db, aclId);
    if (!acl) return undefined;
    const grantType = GrantTypeSchema.parse(acl.grantType).Type;
    const fields: AclFields = {
      ACLID: aclId,
      ParentID: acl.parentId ?? NONE_ID,
      Description: acl.description,
      URL: acl.url,
      Icon: acl.icon,
      Category: acl.category,
      ClickToGrant: acl.clickToGrant,
      CGNATOpen: acl.cgnatOpen,
      HideFromUsers: acl.hideFromUsers,
      GrantTypeFixedIps: grantType === "specifiedIps",
      AutoBrowseUsers: acl.autoBrowseUsers,
      Config: { UriToken: (acl.config as { UriToken?: string }).UriToken ?? "" },
    };
    part = {
      ...fields,
      grantType,
      requiresApproval: acl.requiresApproval,
      exclusions: IpExclusionsSchema.parse(acl.ipExclusions),
      json: aclJson(fields),
    };
    this.aclParts.set(aclId, part);
    return part;
  }

  /**
   * The session's ACLs with their status entries (one raw statement). ACLs assigned since the
   * session began get their entry (status 4) here, and those that need no click are granted as at
   * sign-in.
   */
  private async rowsOf(session: UserSessionContext, versions: StatusVersions, now: number): Promise<SessionGrantRow[]> {
    const reads = (this.reads ??= prepareStatusReads(this.db));
    if (versions.acls !== this.aclsVersion) {
      this.aclParts.clear();
      this.aclsVersion = versions.acls;
    }
    const rows = await reads.rows(session.sessionId, session.userId);
    const missing = rows.filter((r) => r[1] === null).map((r) => r[0]);
    if (missing.length === 0) return rows;
    await grantsRepo.ensureGrantRows(this.db, session.sessionId, missing, now, newId);
    for (const aclId of missing) {
      if ((await this.partOf(aclId))?.ClickToGrant !== false) continue;
      try {
        await this.engine.grant(session.sessionId, aclId, {
          userName: session.userName,
          ip: session.ipAddress,
          click: false,
        });
      } catch {
        // shown as the entry's status
      }
    }
    return reads.rows(session.sessionId, session.userId);
  }

  /**
   * The session user with one entry per assigned ACL (docs/reference.md user-portal §3), sorted by
   * Description: `statusJson` parsed.
   */
  async status(session: UserSessionContext): Promise<SessionStatus> {
    return JSON.parse(await this.statusJson(session)) as SessionStatus;
  }

  /**
   * `statusJson` after the request changed the session's status (POST /grant, a revoke): the versions the session
   * lookup read at the start of the request are out of date by then, so they are read again — with them, a status
   * kept from before the change would be answered.
   */
  async statusJsonAfterChange(session: UserSessionContext): Promise<string> {
    const { statusVersions: _before, ...rest } = session;
    return await this.statusJson(rest);
  }

  private readonly kept = new StatusCache();

  /** The NewUserDashboard setting, kept while the `status_settings` counter in `versions` is the same. */
  private async newUserDashboard(versions: StatusVersions): Promise<boolean> {
    if (versions !== NO_VERSIONS && this.dashboard?.counter === versions.statusSettings) return this.dashboard.value;
    const value = await getSetting(this.db, "NewUserDashboard");
    if (versions !== NO_VERSIONS) this.dashboard = { counter: versions.statusSettings, value };
    return value;
  }

  /**
   * GET /status as JSON text (issue #13 item 2): kept per session (status-cache.ts) while the
   * session's versions — database counters that triggers raise on every write the status shows — and
   * the session fields it shows stay the same, and until the first expiry it shows passes; made anew
   * otherwise. Costs one statement when kept.
   */
  async statusJson(session: UserSessionContext): Promise<string> {
    const now = this.clock.now();
    const reads = (this.reads ??= prepareStatusReads(this.db));
    // Read before anything the status is made of (StatusCache.set): with the session when it was resolved.
    const versions = session.statusVersions ?? (await reads.versions(session.sessionId));
    // A session that is gone: made from nothing kept (it shows no entries), and not kept.
    if (versions === undefined) return (await this.make(session, NO_VERSIONS, now)).pieces.join("");
    const key =
      `${versionsKey(versions)}\u0001${session.ipAddress}\u0001${session.endsAt}\u0001${session.validUntil}` +
      `\u0001${session.authType}\u0001${session.name}`;
    const kept = this.kept.get(session.sessionId, key, now);
    if (kept !== undefined) return kept;
    const made = await this.make(session, versions, now);
    this.kept.set(session.sessionId, key, made.until, session.endsAt, made.pieces, now);
    return made.pieces.join("");
  }

  /**
   * Makes the session's status: its JSON pieces and the time (epoch ms) from which they are out of
   * date. `versions` as read before anything else (the parts kept by them are used only when equal).
   */
  private async make(
    session: UserSessionContext,
    versions: StatusVersions,
    now: number,
  ): Promise<{ pieces: string[]; until: number }> {
    let until = Infinity;
    const entries: { acl: AclPart; fields: EntryFields }[] = [];
    let approvals: Map<string, ApprovalRow> | undefined;
    for (const [aclId, grantId, status, error, expiresAt] of await this.rowsOf(session, versions, now)) {
      const acl = grantId === null || status === null ? undefined : await this.partOf(aclId);
      if (!acl) continue;
      const running = expiresAt !== null && expiresAt > now;
      if (running) until = Math.min(until, expiresAt);
      const fields: EntryFields = {
        ID: grantId!,
        Status: status!,
        Error: userGrantError(status!, error ?? ""),
        ExpiredAfter: running ? (iso(expiresAt) ?? "") : "",
        DisableForUser: acl.grantType === "userIp" && !addressAllowed(session.ipAddress, acl.exclusions),
      };
      if (acl.requiresApproval && this.approvalReads) {
        approvals ??= await this.approvalReads.latestOfSession(session.sessionId);
        withApproval(fields, approvals.get(grantId!));
      }
      entries.push({ acl, fields });
    }
    entries.sort((a, b) => collator.compare(a.acl.Description, b.acl.Description));
    const autoBrowse = entries.filter((e) => e.acl.AutoBrowseUsers && /^https?:\/\//.test(e.acl.URL));
    const counters = versions === NO_VERSIONS ? undefined : versions;
    const licence = await this.engine.licences.userLicence(session.userId, now, counters);
    const licenceChanges = await this.engine.licences.changesAt(now, counters);
    if (licenceChanges !== null) until = Math.min(until, licenceChanges);
    const pieces = [
      statusHead({
        Name: session.name,
        CurrentAddress: session.ipAddress,
        Ends: iso(session.endsAt) ?? "",
        ValidUntil: iso(session.validUntil),
        Licensed: licence.admitted,
        UserLicensed: licence.licensed,
        NewUserDashboard: await this.newUserDashboard(versions),
        AuthType: session.authType,
        AutoBrowseToURI: autoBrowse.length === 1 ? (autoBrowse[0]?.acl.URL ?? "") : "",
      }),
    ];
    entries.forEach((e, i) => pushEntry(pieces, e.acl.json, e.fields, i === 0));
    pieces.push(STATUS_END);
    return { pieces, until };
  }
}

/**
 * Gives a status entry of a Knoc that RequiresApproval its latest request (docs/decisions.md "Approval
 * requests"): `ApprovalState` (null for none or a withdrawn one), a denial's `ApprovalReason`, and while
 * the request is pending Status 2 (nothing applied yet) with `ApprovalExpires`. Changes `fields`.
 */
function withApproval(fields: EntryFields, latest: ApprovalRow | undefined): void {
  const state = latest && latest.state !== "withdrawn" ? latest.state : null;
  fields.approval = {
    State: state,
    Reason: state === "denied" ? latest!.decisionReason : "",
    Expires: state === "pending" ? (iso(latest!.expiresAt) ?? "") : "",
  };
  if (state === "pending") Object.assign(fields, { Status: GrantStatus.Pending, Error: "", ExpiredAfter: "" });
}

/** The versions of a session that is gone: nothing is kept by them (every counter reads -2, never a real value). */
const NO_VERSIONS: StatusVersions = Object.freeze({
  session: -2,
  acls: -2,
  users: -2,
  assignments: -2,
  licenses: -2,
  statusSettings: -2,
});

/** Orders entries by Description as `localeCompare` did, with one collator instead of one per comparison. */
const collator = new Intl.Collator();

/** What a status entry takes from its ACL, parsed once per change of the ACLs. */
interface AclPart extends AclFields {
  /** The Knoc holds grants until an approver allows them (its entries carry the approval fields). */
  requiresApproval: boolean;
  grantType: GrantType["Type"];
  exclusions: IpExclusions;
  /** The entry's JSON pieces from these fields. */
  json: AclJson;
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

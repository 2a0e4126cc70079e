/**
 * The grant engine (docs/reference.md design "Grants", docs/reference.md user-portal §4): grants and revokes (user session, ACL)
 * pairs, reference-counts (ACL, address) entries over grants, drives agents through an
 * `AgentChannel`, turns agents' acknowledgements into the spec's status codes, and expires grants and
 * sessions on time.
 *
 * Database work happens in one synchronous transaction per operation; the resulting agent ops are
 * sent after commit. An entry leaves the firewall only when the last grant holding it ends.
 */
import { GrantStatus, IpExclusionsSchema, GrantTypeSchema, isAgentless, Errors } from "@postern/shared";
import type { EntryResult, Op, TargetState } from "@postern/shared";
import type { Db, Tx } from "../../db/index.ts";
import { getAcl } from "../../repositories/acls.ts";
import type { AclRow } from "../../repositories/acls.ts";
import type { Clock } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import * as repo from "../../repositories/grants.ts";
import { claimJob } from "../../repositories/jobs.ts";
import { listAgents } from "../../repositories/agents.ts";
import { writeAudit, AuditAction } from "../audit.ts";
import { endSessions } from "../../repositories/users.ts";
import { grantAddresses } from "./addresses.ts";
import { UserLicenceCache } from "../licensing/user-licence-cache.ts";
import { toTarget } from "./targets.ts";
import { currentObserved, observedUntil } from "./observed.ts";
import type { Logger } from "../../logger.ts";

/** How the engine reaches agents (implemented by the agent hub). */
export interface AgentChannel {
  /** True while the agent holds a live, authenticated connection. */
  isConnected(agentId: string): boolean;
  /** Sends incremental ops in order; returns false when the agent is not connected. */
  apply(agentId: string, ops: Op[]): boolean;
  /** Sends the agent its full desired state again, wherever it is connected (no-op when it is not). */
  resync?(agentId: string): Promise<void>;
  /** Closes the agent's live connection wherever it is held (the agent was deleted); no-op when it has none. */
  disconnect?(agentId: string): void | Promise<void>;
  /** Tells the agent's live connection, wherever it is held, the agent's new name (its log and audit entries). */
  renamed?(agentId: string, name: string): void | Promise<void>;
}

/**
 * How approval requests (services/approvals.ts; docs/decisions.md "Approval requests") take part in grants,
 * inside the engine's transactions. Attached by the composition root; absent, every grant applies at once.
 */
/** The ACL columns an approval hook reads. */
export type ApprovalAcl = Pick<AclRow, "id" | "description" | "requiresApproval" | "approvalTimeoutSeconds">;

export interface ApprovalHooks {
  /**
   * A grant with addresses is about to be applied: true holds it for approval (nothing is applied, no
   * ops; the hook records the request and its audit entry), false lets it apply.
   */
  hold(
    tx: Tx,
    g: { grant: repo.GrantRow; acl: ApprovalAcl; sessionId: string; userName: string; ip: string; reason: string },
  ): Promise<boolean>;
  /** The user withdrew a status entry: true when it ended a pending request (which then is all there was to revoke). */
  withdraw(tx: Tx, grant: repo.GrantRow, meta: { userName: string; ip: string }): Promise<boolean>;
}

/** Why a grant ends; decides the audit entry. */
export type RevokeReason = "click" | "logout" | "expired" | "sessionEnded" | "aclChanged" | "userChanged" | "admin";

/**
 * Which bound ended a due session, as the end reason stored and the audit description: a deleted
 * API key first, else the earliest passed of the key's expiry, the user's ValidUntil and the
 * session's own end (on a tie the more specific one: key, then account).
 */
function sessionEndCause(s: repo.DueSession, now: number): { reason: string; description: string } {
  if (s.apiKeyId !== null && !s.keyExists)
    return { reason: "apiKeyDeleted", description: "session ended: its API key was deleted" };
  const bounds = [
    { at: s.keyExpiredAfter, reason: "apiKeyExpired", description: "session ended: its API key expired" },
    { at: s.validUntil, reason: "accountExpired", description: "session ended: the account expired (ValidUntil)" },
    { at: s.endsAt, reason: "expired", description: "session ended: its time was up" },
  ];
  let first: (typeof bounds)[number] | undefined;
  for (const b of bounds) if (b.at !== null && b.at <= now && (first === undefined || b.at < first.at!)) first = b;
  const cause = first ?? bounds[2]!;
  return { reason: cause.reason, description: cause.description };
}

/** Agent ops collected in a transaction, by agent id, sent after commit. */
export type Ops = Map<string, Op[]>;

function pushOp(ops: Ops, agentId: string, op: Op): void {
  const list = ops.get(agentId) ?? [];
  list.push(op);
  ops.set(agentId, list);
}

/** The grant engine. Construct once per server; `channel` is attached by the agent hub. */
export class GrantEngine {
  private channel: AgentChannel = { isConnected: () => false, apply: () => false };
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: Logger;
  /**
   * Called with the SECONDS from a grant request to its target's acknowledgement, for each grant a
   * successful add makes Granted (not for grants that waited for an offline agent). Set by the metrics.
   */
  onGrantAcknowledged?: (seconds: number) => void;
  /** Approval requests' hooks (services/approvals.ts), attached by the composition root. */
  approvals?: ApprovalHooks;
  /** The users' licence facts of this database, kept by its change counters (the status read shares them). */
  readonly licences: UserLicenceCache;

  constructor(db: Db, clock: Clock, log: Logger) {
    this.db = db;
    this.clock = clock;
    this.log = log;
    this.licences = new UserLicenceCache(db);
  }

  /** Attaches the agent channel (the hub). */
  attach(channel: AgentChannel): void {
    this.channel = channel;
  }

  /** Sends collected ops to their agents after commit. */
  private send(ops: Ops): void {
    for (const [agentId, list] of ops) {
      if (list.length > 0 && !this.channel.apply(agentId, list)) {
        this.log.debug({ agentId, ops: list.length }, "agent offline; ops will be applied at its next sync");
      }
    }
  }

  /**
   * Grants an ACL to a session (POST /grant, and automatic grants at login). The addresses are the
   * session's address plus, for CGNATOpen ACLs, the other addresses the server itself observed for
   * this session and that have not aged out (never addresses the client merely claims). Idempotent for a grant that already
   * holds. Throws 403 when the ACL is not (or no longer) assigned to the session's user, 404 for an
   * unknown or ended session.
   *
   * A Knoc that RequiresApproval holds the grant instead (`approvals.hold`, with `meta.reason`, the user's
   * reason) — except a grant moved to a new address (`keepExpiresAt` given: `regrant`), which keeps its approval;
   * `meta.approve` marks the call that applies an approved request: it runs inside the transaction
   * (recording the decision, throwing to refuse) and the grant applies.
   */
  async grant(
    sessionId: string,
    aclId: string,
    meta: { userName: string; ip: string; click: boolean; reason?: string; approve?: (tx: Tx) => Promise<void> },
    keepExpiresAt?: number | null,
  ): Promise<void> {
    const ops: Ops = new Map();
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const found = await repo.grantRequestRead(tx, sessionId, aclId);
      if (!found) throw new AppError(Errors.unauthorised);
      const { grant: row, session } = found;
      if (session.endedAt !== null) throw new AppError(Errors.notFound, "session");
      if (!found.assigned) throw new AppError(Errors.unauthorised);
      // The grant gate: 403 err.unlicensedDescription unless the user is licensed (the rule of gates.ts userLicence)
      if (!(await this.licences.userLicence(session.userId, now, undefined, tx)).licensed)
        throw new AppError(Errors.unlicensedDescription);
      if ((repo.HOLDING_STATUSES as readonly number[]).includes(row.status)) return;
      if (row.status === GrantStatus.Revoking && keepExpiresAt === undefined) return;
      const { acl, source: src } = found;
      if (!acl) throw new AppError(Errors.notFound, "ACL");
      const target = src ? toTarget(src) : null;
      const ips = grantAddresses({
        sessionIp: session.ipAddress,
        extraIps: currentObserved(session.discoveredIps, now).map((d) => d.IP),
        cgnatOpen: acl.cgnatOpen,
        grantType: GrantTypeSchema.parse(acl.grantType),
        exclusions: IpExclusionsSchema.parse(acl.ipExclusions),
      });
      if (meta.approve) await meta.approve(tx);
      else if (
        keepExpiresAt === undefined && // a moved grant (regrant) keeps its approval
        ips.length > 0 &&
        this.approvals &&
        (await this.approvals.hold(tx, {
          grant: row,
          acl,
          sessionId,
          userName: meta.userName,
          ip: meta.ip,
          reason: meta.reason ?? "",
        }))
      )
        return;
      if (meta.click)
        await writeAudit(tx, {
          action: AuditAction.clickedToGrant,
          at: now,
          userName: meta.userName,
          ipAddress: meta.ip,
          aclDescription: acl.description,
        });
      const maxEnd = acl.maximumGrantDurationSeconds
        ? now + acl.maximumGrantDurationSeconds * 1000
        : Number.POSITIVE_INFINITY;
      const expiresAt = Math.min(session.endsAt, maxEnd, keepExpiresAt ?? Number.POSITIVE_INFINITY);
      if (src && isAgentless(src.backendType) && ips.length > 0) {
        // Passive allowlist: the address is published by the server itself (status 6).
        await repo.setGrantAddresses(tx, row.id, ips);
        await repo.setGrantStatus(tx, row.id, GrantStatus.Published, now, { grantedAt: now, expiresAt });
        return;
      }
      if (!target || !src?.agentId) {
        await repo.setGrantStatus(tx, row.id, GrantStatus.GrantError, now, {
          error: "This ACL has no agent to enforce it",
          expiresAt: null,
        });
        await writeAudit(tx, {
          action: AuditAction.grantError,
          at: now,
          userName: meta.userName,
          aclDescription: acl.description,
          errorMessage: "no agent",
        });
        return;
      }
      if (ips.length === 0) {
        await repo.setGrantStatus(tx, row.id, GrantStatus.GrantError, now, {
          error: "Your address is not allowed for this ACL",
          expiresAt: null,
        });
        await writeAudit(tx, {
          action: AuditAction.grantError,
          at: now,
          userName: meta.userName,
          ipAddress: session.ipAddress,
          aclDescription: acl.description,
          errorMessage: "address excluded",
        });
        return;
      }
      const online = this.channel.isConnected(src.agentId);
      await repo.setGrantAddresses(tx, row.id, ips);
      await repo.setGrantStatus(tx, row.id, online ? GrantStatus.Pending : GrantStatus.AgentOffline, now, {
        grantedAt: now,
        expiresAt,
      });
      for (const ip of ips) {
        const entryExpiresAt = (await repo.entryExpiry(tx, aclId, ip, now)) ?? expiresAt;
        pushOp(ops, src.agentId, { op: "add", target, ip, expiresAt: entryExpiresAt, user: meta.userName });
      }
    });
    this.send(ops);
  }

  /**
   * Grants a grant again on the session's current address, keeping `expiresAt` (epoch ms): used
   * when the user's address changed (docs/reference.md design: the grant moves and keeps its expiry).
   */
  async regrant(grantId: string, expiresAt: number | null, meta: { userName: string; ip: string }): Promise<void> {
    const row = await repo.getGrant(this.db, grantId);
    if (!row) return;
    await this.grant(row.sessionId, row.aclId, { ...meta, click: false }, expiresAt);
  }

  /**
   * Revokes one status entry of a session (DELETE /sessions/current/granted-acls/{id}). Throws 404
   * when the entry is not the session's.
   */
  async revokeEntry(sessionId: string, grantId: string, meta: { userName: string; ip: string }): Promise<void> {
    const ops: Ops = new Map();
    await this.db.transaction(async (tx) => {
      const row = await repo.getGrant(tx, grantId);
      if (!row || row.sessionId !== sessionId) throw new AppError(Errors.notFound, "grant");
      if (this.approvals && (await this.approvals.withdraw(tx, row, meta))) return;
      const acl = await getAcl(tx, row.aclId);
      await writeAudit(tx, {
        action: AuditAction.clickedToRevoke,
        at: this.clock.now(),
        userName: meta.userName,
        ipAddress: meta.ip,
        aclDescription: acl?.description ?? "",
      });
      await this.revokeInTx(tx, [row], ops);
    });
    this.send(ops);
  }

  /**
   * Marks grants revoked inside a transaction and collects the agent ops (see `removalOps`).
   * Holding grants become 8 Revoking until the agent acknowledges the delete; grants with nothing
   * left to remove, or whose agent is offline, become 9 Revoked at once (the agent's next sync
   * removes the entry). A grant in GrantError is revoked too: whatever the agent may have applied of
   * it is removed, and it becomes 9 at once.
   */
  async revokeInTx(tx: Tx, rows: readonly repo.GrantRow[], ops: Ops): Promise<void> {
    const now = this.clock.now();
    for (const row of rows) {
      const holding = (repo.HOLDING_STATUSES as readonly number[]).includes(row.status);
      if (!holding && row.status !== GrantStatus.GrantError) continue;
      if (holding) await repo.setGrantStatus(tx, row.id, GrantStatus.Revoking, now);
      const waiting = await this.removalOps(tx, row, ops);
      if (!holding || !waiting) await repo.setGrantStatus(tx, row.id, GrantStatus.Revoked, now, { expiresAt: null });
    }
  }

  /**
   * Collects the ops that take a grant's addresses (`ips`, default all of them) out of its target,
   * the grant itself no longer holding them: a `del` for every (ACL, address) no other grant holds,
   * or an `add` with the shorter remaining expiry when others still hold it. Returns true when a
   * `del` went to a connected agent (its acknowledgement decides 9 or 10).
   */
  private async removalOps(tx: Tx, row: repo.GrantRow, ops: Ops, given?: readonly string[]): Promise<boolean> {
    const ips = given ?? (await repo.getGrantAddresses(tx, row.id));
    const src = await repo.aclTargetSource(tx, row.aclId);
    const target = src ? toTarget(src) : null;
    if (!target || !src?.agentId) return false;
    const now = this.clock.now();
    const online = this.channel.isConnected(src.agentId);
    let waiting = false;
    for (const ip of ips) {
      const remaining = await repo.entryExpiry(tx, row.aclId, ip, now, row.id);
      if (remaining === null) {
        pushOp(ops, src.agentId, { op: "del", target, ip });
        waiting ||= online;
      } else if (row.expiresAt !== null && remaining < row.expiresAt) {
        pushOp(ops, src.agentId, { op: "add", target, ip, expiresAt: remaining });
      }
    }
    return waiting;
  }

  /**
   * Revokes every holding grant of the given sessions or ACLs (logout, session end, ACL deleted or
   * unassigned, user disabled or deleted). Call inside the caller's transaction; send the returned
   * ops with `dispatch` after commit.
   */
  async revokeForSessions(tx: Tx, sessionIds: readonly string[]): Promise<Ops> {
    const ops: Ops = new Map();
    await this.revokeInTx(tx, await repo.holdingGrantsOfSessions(tx, sessionIds), ops);
    return ops;
  }

  /** Revokes every holding grant on the given ACLs; see `revokeForSessions`. */
  async revokeForAcls(tx: Tx, aclIds: readonly string[]): Promise<Ops> {
    const ops: Ops = new Map();
    await this.revokeInTx(tx, await repo.holdingGrantsOfAcls(tx, aclIds), ops);
    return ops;
  }

  /** Sends ops collected by a `revokeFor*` call after its transaction committed. */
  dispatch(ops: Ops): void {
    this.send(ops);
  }

  /**
   * The expiry sweep, called by the scheduler a few times a second (docs/reference.md design: expiry = earliest of
   * session end and grant start + MaximumGrantDuration): revokes the grants past their own expiry
   * (audit grantExpired), ends the sessions whose effective end passed and revokes whatever they
   * still hold (`endDueSessions`), and takes aged-out observed addresses out of the grants
   * (`pruneObserved`). Returns how many grants expired on their own.
   */
  async sweep(): Promise<number> {
    // Most ticks find nothing: the same reads first, outside a transaction, so an idle server takes no write lock
    // (SQLite) and holds no predicate locks against grants (PostgreSQL) four times a second.
    if (!(await this.anythingDue(this.clock.now()))) return 0;
    const ops: Ops = new Map();
    let count = 0;
    await this.db.transaction(async (tx) => {
      // With replicas, one sweeps at a time; the others skip the round (repositories/jobs.ts).
      if (!(await claimJob(tx, "expiry-sweep"))) return;
      const now = this.clock.now();
      const due = await repo.dueGrants(tx, now);
      for (const g of due) {
        const acl = await getAcl(tx, g.aclId);
        await writeAudit(tx, {
          action: AuditAction.grantExpired,
          at: now,
          aclDescription: acl?.description ?? "",
          description: g.id,
        });
      }
      await this.revokeInTx(tx, due, ops);
      count = due.length;
      await this.endDueSessions(tx, ops);
      await this.pruneObserved(tx, now, ops);
    });
    this.send(ops);
    return count;
  }

  /** Whether the sweep has work at `now` (epoch ms): a grant past its expiry, a session past its end, or a stale observed address. */
  private async anythingDue(now: number): Promise<boolean> {
    return (
      (await repo.dueGrants(this.db, now)).length > 0 ||
      (await repo.dueSessions(this.db, now)).length > 0 ||
      (await repo.sessionsWithStaleObserved(this.db, now)).length > 0
    );
  }

  /**
   * Ends, inside `tx`, every live session whose effective end has passed — the earliest of its own
   * end, its user's ValidUntil and, for a session an API key signed in, the key's expiry, or at once
   * when that key was deleted (docs/decisions.md "Access ends with the account") — and revokes
   * their grants into `ops` (send them with `dispatch` after commit). Each ended session gets an
   * audit entry sessionExpired saying which bound ended it, and the end reason `expired`,
   * `accountExpired`, `apiKeyExpired` or `apiKeyDeleted`. The sweep calls it; so do the changes that
   * move such a bound (a user's ValidUntil, deleting a key) so that their sessions end in the same
   * transaction. Returns how many sessions ended.
   */
  async endDueSessions(tx: Tx, ops: Ops): Promise<number> {
    const now = this.clock.now();
    const due = await repo.dueSessions(tx, now);
    for (const s of due) {
      const end = sessionEndCause(s, now);
      await this.revokeInTx(tx, await repo.holdingGrantsOfSessions(tx, [s.id]), ops);
      await endSessions(tx, [s.id], now, end.reason);
      await writeAudit(tx, {
        action: AuditAction.sessionExpired,
        at: now,
        userName: s.userName,
        description: end.description,
      });
    }
    return due.length;
  }

  /**
   * Brings the end of the given live sessions forward to `end` (epoch ms) when they end later, inside
   * `tx`: the sessions' end, their holding grants' expiry, and the expiry of the (ACL, address)
   * entries on the agents (an `add` with the new, shorter expiry into `ops`, so agents expire them on
   * their own even without the server). Never lengthens anything. An `end` not after now changes
   * nothing here: `endDueSessions` ends those sessions.
   */
  async shortenSessions(tx: Tx, sessionIds: readonly string[], end: number, ops: Ops): Promise<void> {
    const now = this.clock.now();
    if (end <= now) return;
    for (const s of await repo.sessionsEndingAfter(tx, sessionIds, end)) {
      await repo.setSessionEnd(tx, s.id, end);
      for (const g of await repo.holdingGrantsOfSessions(tx, [s.id])) {
        if (g.expiresAt !== null && g.expiresAt <= end) continue;
        const ips = await repo.getGrantAddresses(tx, g.id);
        const before = new Map<string, number | null>();
        for (const ip of ips) before.set(ip, await repo.entryExpiry(tx, g.aclId, ip, now));
        await repo.setGrantExpiry(tx, g.id, end);
        const src = await repo.aclTargetSource(tx, g.aclId);
        const target = src ? toTarget(src) : null;
        if (!target || !src?.agentId) continue;
        for (const ip of ips) {
          const after = (await repo.entryExpiry(tx, g.aclId, ip, now)) ?? end;
          const was = before.get(ip) ?? null;
          if (was === null || after < was) pushOp(ops, src.agentId, { op: "add", target, ip, expiresAt: after });
        }
      }
    }
  }

  /**
   * Drops, inside `tx`, the observed addresses that aged out (services/grants/observed.ts) from the
   * live sessions holding them, and takes them out of those sessions' grants and the firewall
   * (`narrowGrants`).
   */
  private async pruneObserved(tx: Tx, now: number, ops: Ops): Promise<void> {
    for (const s of await repo.sessionsWithStaleObserved(tx, now)) {
      const kept = currentObserved(s.discoveredIps, now);
      await repo.setObserved(tx, s.id, kept, observedUntil(kept));
      await this.narrowGrants(
        tx,
        s.id,
        s.ipAddress,
        kept.map((d) => d.IP),
        ops,
      );
    }
  }

  /**
   * Takes out of a session's holding grants every address they may no longer carry, given the
   * session's main address and its current observed addresses (`grantAddresses`): the grant keeps
   * holding the rest, with its expiry; the removed addresses leave the target unless another grant
   * holds them (`removalOps`). A grant left with no address is revoked. Nothing is added.
   */
  private async narrowGrants(
    tx: Tx,
    sessionId: string,
    sessionIp: string,
    extraIps: readonly string[],
    ops: Ops,
  ): Promise<void> {
    for (const g of await repo.holdingGrantsOfSessions(tx, [sessionId])) {
      const acl = await getAcl(tx, g.aclId);
      if (!acl) continue;
      const allowed = new Set(
        grantAddresses({
          sessionIp,
          extraIps,
          cgnatOpen: acl.cgnatOpen,
          grantType: GrantTypeSchema.parse(acl.grantType),
          exclusions: IpExclusionsSchema.parse(acl.ipExclusions),
        }),
      );
      const have = await repo.getGrantAddresses(tx, g.id);
      const drop = have.filter((ip) => !allowed.has(ip));
      if (drop.length === 0) continue;
      if (drop.length === have.length) {
        await this.revokeInTx(tx, [g], ops);
        continue;
      }
      await repo.removeGrantAddresses(tx, g.id, drop);
      await this.removalOps(tx, g, ops, drop);
    }
  }

  /**
   * The full desired state of an agent: every target bound to it with every live entry (latest
   * expiry per address). Sent on every (re)connect.
   */
  async desiredState(agentId: string): Promise<TargetState[]> {
    const now = this.clock.now();
    const byAcl = new Map<string, TargetState>();
    for (const src of await repo.agentTargetSources(this.db, agentId)) {
      const target = toTarget(src);
      if (target) byAcl.set(src.aclId, { target, entries: [] });
    }
    for (const e of await repo.agentEntries(this.db, agentId, now)) {
      byAcl.get(e.aclId)?.entries.push({ ip: e.ip, expiresAt: e.expiresAt, ...(e.user ? { user: e.user } : {}) });
    }
    return [...byAcl.values()];
  }

  /**
   * The ops that bring the given (ACL, address) entries of an agent to what the database holds now:
   * an `add` with the latest expiry for each entry some grant holds, a `del` for each no grant holds.
   * The replica holding the agent's connection sends these when another replica changed the entries
   * (agent-hub/cluster.ts): read after that change committed, they are right whatever order the
   * replicas' notices arrive in. Entries of ACLs no longer bound to the agent are left out.
   */
  async currentOps(agentId: string, entries: readonly (readonly [aclId: string, ip: string])[]): Promise<Op[]> {
    if (entries.length === 0) return [];
    const now = this.clock.now();
    const aclIds = [...new Set(entries.map(([aclId]) => aclId))];
    const targets = new Map<string, NonNullable<ReturnType<typeof toTarget>>>();
    for (const src of await repo.agentTargetSources(this.db, agentId)) {
      const target = aclIds.includes(src.aclId) ? toTarget(src) : null;
      if (target) targets.set(src.aclId, target);
    }
    const live = new Map<string, { expiresAt: number; user: string | null }>();
    for (const e of await repo.agentEntries(this.db, agentId, now, aclIds))
      live.set(`${e.aclId}\u0000${e.ip}`, { expiresAt: e.expiresAt, user: e.user });
    const ops: Op[] = [];
    for (const [aclId, ip] of entries) {
      const target = targets.get(aclId);
      if (!target) continue;
      const entry = live.get(`${aclId}\u0000${ip}`);
      ops.push(
        entry
          ? { op: "add", target, ip, expiresAt: entry.expiresAt, ...(entry.user ? { user: entry.user } : {}) }
          : { op: "del", target, ip },
      );
    }
    return ops;
  }

  /** Sends the agent its full desired state again (a target's configuration changed); no-op when it is offline. */
  async resync(agentId: string): Promise<void> {
    await this.channel.resync?.(agentId);
  }

  /**
   * Closes the agent's live connection on this server or, with replicas, on whichever holds it (the
   * agent was deleted: it is refused when it dials again). No-op when it has none.
   */
  async disconnectAgent(agentId: string): Promise<void> {
    await this.channel.disconnect?.(agentId);
  }

  /** The agent was renamed: its live connection, wherever held, names it so from now on. */
  async agentRenamed(agentId: string, name: string): Promise<void> {
    await this.channel.renamed?.(agentId, name);
  }

  /** True while the agent holds a connection to this server or, with replicas, to any of them. */
  agentOnline(agentId: string): boolean {
    return this.channel.isConnected(agentId);
  }

  /** The agent connected: its offline grants wait for the sync's acknowledgement (3 → 2). */
  async agentConnected(agentId: string): Promise<void> {
    await this.db.transaction(
      async (tx) =>
        await repo.moveAgentGrants(tx, agentId, [GrantStatus.AgentOffline], GrantStatus.Pending, this.clock.now()),
    );
  }

  /** The agent went away: grants still waiting for it become AgentOffline (2, 5 → 3). */
  async agentDisconnected(agentId: string): Promise<void> {
    await this.db.transaction(
      async (tx) =>
        await repo.moveAgentGrants(
          tx,
          agentId,
          [GrantStatus.Pending, GrantStatus.Read],
          GrantStatus.AgentOffline,
          this.clock.now(),
        ),
    );
  }

  /**
   * After a server start no agent is connected yet: grants left waiting (2, 5) become AgentOffline
   * (3) until their agent's sync is acknowledged.
   */
  async recoverAfterRestart(): Promise<void> {
    await this.db.transaction(
      async (tx) =>
        await repo.moveAllGrants(
          tx,
          [GrantStatus.Pending, GrantStatus.Read],
          GrantStatus.AgentOffline,
          this.clock.now(),
        ),
    );
  }

  /**
   * `recoverAfterRestart` for a replica joining others: only the agents no replica holds now lose
   * their waiting grants to 3 AgentOffline (the others' acknowledgements are still coming).
   */
  async recoverAgentsNotHeld(): Promise<void> {
    const now = this.clock.now();
    for (const agent of await listAgents(this.db)) {
      if (this.channel.isConnected(agent.id)) continue;
      await this.db.transaction(
        async (tx) =>
          await repo.moveAgentGrants(
            tx,
            agent.id,
            [GrantStatus.Pending, GrantStatus.Read],
            GrantStatus.AgentOffline,
            now,
          ),
      );
    }
  }

  /**
   * Applies an agent's acknowledgement of an `apply`: a successful add makes waiting grants
   * (2, 3, 5) Granted; a failed one makes every grant holding that entry GrantError with the
   * target's message, and takes back what the agent may have applied of them; a successful del
   * makes Revoking grants Revoked, a failed one Revoked with error (10).
   */
  async handleResults(agentName: string, results: readonly EntryResult[]): Promise<void> {
    if (results.length === 0) return;
    const ops: Ops = new Map();
    await this.db.transaction(async (tx) => await this.applyResults(tx, agentName, results, ops));
    this.send(ops);
  }

  private async applyResults(tx: Tx, agentName: string, results: readonly EntryResult[], ops: Ops): Promise<void> {
    const now = this.clock.now();
    // Failures first, so that a grant with several addresses is an error whatever the order of results.
    const ordered = [...results.filter((r) => !r.ok), ...results.filter((r) => r.ok)];
    for (const r of ordered) {
      if (r.op === "add" && r.ok) {
        for (const g of await repo.grantsHolding(tx, r.key, r.ip, [
          GrantStatus.Pending,
          GrantStatus.AgentOffline,
          GrantStatus.Read,
        ])) {
          await repo.setGrantStatus(tx, g.id, GrantStatus.Granted, now);
          if (g.status !== GrantStatus.AgentOffline) this.onGrantAcknowledged?.((now - g.updatedAt) / 1000);
        }
      } else if (r.op === "add") {
        const failed = await repo.grantsHolding(tx, r.key, r.ip, repo.HOLDING_STATUSES);
        for (const g of failed) {
          await repo.setGrantStatus(tx, g.id, GrantStatus.GrantError, now, {
            error: r.error ?? "refused by the target",
            expiresAt: null,
          });
          await writeAudit(tx, {
            action: AuditAction.grantError,
            at: now,
            agentName,
            ipAddress: r.ip,
            errorMessage: r.error ?? "",
          });
        }
        for (const g of failed) await this.removalOps(tx, g, ops);
      } else {
        for (const g of await repo.grantsHolding(tx, r.key, r.ip, [GrantStatus.Revoking])) {
          if (r.ok) await repo.setGrantStatus(tx, g.id, GrantStatus.Revoked, now, { expiresAt: null });
          else {
            await repo.setGrantStatus(tx, g.id, GrantStatus.RevokedWithError, now, {
              error: r.error ?? "refused by the target",
              expiresAt: null,
            });
            await writeAudit(tx, {
              action: AuditAction.revokeError,
              at: now,
              agentName,
              ipAddress: r.ip,
              errorMessage: r.error ?? "",
            });
          }
        }
      }
    }
  }

  /**
   * Applies an agent's acknowledgement of a `sync` sent at `sentAt` (epoch ms). The target now holds
   * exactly the desired state, so — with one bulk update, whatever the number of entries — grants
   * waiting on this agent since before the sync (2, 3, 5) are Granted and grants already Revoking are
   * Revoked; the few results the agent reports as failed are applied first (GrantError, or Revoked
   * with error), so they are not swept up.
   */
  async handleSyncAck(
    agentId: string,
    agentName: string,
    sentAt: number,
    results: readonly EntryResult[],
  ): Promise<void> {
    const ops: Ops = new Map();
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      await this.applyResults(
        tx,
        agentName,
        results.filter((r) => !r.ok),
        ops,
      );
      await repo.moveAgentGrants(
        tx,
        agentId,
        [GrantStatus.Pending, GrantStatus.AgentOffline, GrantStatus.Read],
        GrantStatus.Granted,
        now,
        sentAt,
      );
      await repo.moveAgentGrants(tx, agentId, [GrantStatus.Revoking], GrantStatus.Revoked, now, sentAt);
    });
    this.send(ops);
  }
}

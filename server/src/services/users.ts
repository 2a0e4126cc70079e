/**
 * Users (docs/reference.md admin-console §3 "User", §5 "User", §7 /admin/users). Local users need a password of
 * 8–64 characters and a matching ConfirmPassword on create; UserName cannot change; LDAP users
 * need a DN, on create and update (`userWriteProblem`). SAML users cannot be edited (the IdP owns
 * them); created here they count against the licence like any user. Removing an ACL from a user, disabling or deleting the user ends the affected grants.
 */
import { userWriteProblem, Errors } from "@postern/shared";
import type { User, UserAcl, UserSession, UserWrite } from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { getAcl } from "../repositories/acls.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/users.ts";
import { holdingGrantsOfSessions } from "../repositories/grants.ts";
import { aclsViaGroups, aclSummaries } from "../repositories/groups.ts";
import { liveUserSessions } from "../repositories/sessions.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { hashPassword } from "./auth/passwords.ts";
import { newId } from "./auth/tokens.ts";
import type { Ops } from "./grants/engine.ts";
import { Service } from "./service.ts";
import { isUserLicensed, licensedSessionLimit, licensedUsers, requireUserSlot } from "./licensing/gates.ts";

/** Users: CRUD with assignments. */
export class UserService extends Service {
  private toWire(row: repo.UserRow, licensed: boolean): User {
    return {
      ID: row.id,
      Name: row.name,
      UserName: row.userName,
      Company: row.company,
      Duration: row.durationMinutes,
      SessionLimit: row.sessionLimit,
      AuthType: row.authType,
      TOTPEnabled: row.totpEnabled,
      ValidUntil: iso(row.validUntil),
      ThirdPartyAuth: { DN: row.dn },
      AclIds: repo.directAclIds(this.db, row.id),
      Licensed: licensed,
      ActiveSession: repo.liveSessionIds(this.db, row.id, this.clock.now()).length > 0,
      CreatedAt: iso(row.createdAt) ?? "",
      LastLogin: iso(row.lastLogin),
    };
  }

  /** Lists users. */
  list(): User[] {
    const licensed = licensedUsers(this.db, this.clock.now());
    return repo.listUsers(this.db).map((r) => this.toWire(r, licensed(r.id)));
  }

  /** Reads one user; 404 when unknown. */
  get(id: string): User {
    const row = repo.getUser(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "user");
    return this.toWire(row, isUserLicensed(this.db, row.id, this.clock.now()));
  }

  /** The cross-field rules of the shared `userWriteProblem`; its error and Extra. */
  private checkWrite(input: UserWrite, mode: "create" | "update"): void {
    const problem = userWriteProblem(input, mode);
    if (problem) throw new AppError(problem.error, problem.Extra);
  }

  private checkAcls(tx: Tx, aclIds: readonly string[]): void {
    for (const id of aclIds) {
      if (!getAcl(tx, id)) throw new AppError(Errors.badRequest, `AclIds: unknown ACL ${id}`);
    }
  }

  /**
   * Creates a user; returns its id. 409 when the user name exists; 403 err.userLimitReached at the
   * licence's UserLimit + overage (SAML users too: only the IdP's first sign-in may exceed it); SessionLimit capped by the licence (licensing/gates.ts).
   * `ApiKey` (create the key now, docs/reference.md admin-console §5) is for AuthType apikey only (400 "Bad request",
   * Extra `ApiKey: …`) and is created by `inTx`, which runs inside the creating transaction after the
   * user row and its audit entry: its failure rolls the user back (see auth/api-key-users.ts).
   */
  async create(input: UserWrite, actor: Actor, inTx?: (tx: Tx, userId: string) => void): Promise<string> {
    this.checkWrite(input, "create");
    if (input.ApiKey !== undefined && input.AuthType !== "apikey")
      throw new AppError(Errors.badRequest, "ApiKey: only API-key users (AuthType apikey) have a key");
    if (input.ApiKey !== undefined && inTx === undefined)
      throw new Error("UserService.create: a user's API key is created through ApiKeyUserService.createUser");
    const passwordHash =
      input.AuthType === "local" && input.PlainPassword ? await hashPassword(input.PlainPassword) : null;
    const id = newId();
    this.db.transaction((tx) => {
      if (repo.getUserByName(tx, input.UserName)) throw new AppError(Errors.userNameExists);
      requireUserSlot(tx, "admin");
      this.checkAcls(tx, input.AclIds);
      repo.insertUser(tx, {
        id,
        name: input.Name,
        userName: input.UserName,
        company: input.Company,
        durationMinutes: input.Duration,
        sessionLimit: licensedSessionLimit(tx, input.SessionLimit),
        authType: input.AuthType,
        passwordHash,
        totpEnabled: input.AuthType !== "SAML" && input.TOTPEnabled,
        validUntil: input.ValidUntil ? Date.parse(input.ValidUntil) : null,
        dn: input.ThirdPartyAuth.DN,
        createdAt: this.clock.now(),
      });
      repo.setDirectAclIds(tx, id, input.AclIds);
      writeAudit(tx, {
        action: AuditAction.userCreated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: input.UserName,
      });
      inTx?.(tx, id);
    });
    return id;
  }

  /**
   * Updates a user ("Cannot change username"; a SAML user: 400 "SAML users cannot be edited"). ACLs no longer reachable lose their grants; a new
   * password ends every session of the user. ValidUntil bounds the live sessions (docs/decisions.md
   * "Access ends with the account"): one in the past ends them now (audit sessionExpired), a
   * future one earlier than their end brings their end, their grants' expiry and the entries'
   * expiry on the agents forward to it; a later or cleared ValidUntil never lengthens a session
   * nor revives an ended one.
   */
  async update(id: string, input: UserWrite, actor: Actor): Promise<void> {
    this.checkWrite(input, "update");
    if (input.ApiKey !== undefined)
      throw new AppError(
        Errors.badRequest,
        "ApiKey: only on create; add a key later with POST /admin/api-keys and the scope user.auth:{id}",
      );
    const passwordHash =
      input.AuthType === "local" && input.PlainPassword ? await hashPassword(input.PlainPassword) : undefined;
    const ops = this.db.transaction((tx): Ops => {
      const row = repo.getUser(tx, id);
      if (!row) throw new AppError(Errors.notFound, "user");
      if (row.authType === "SAML") throw new AppError(Errors.samlUsersCannotBeEdited);
      if (row.userName !== input.UserName) throw new AppError(Errors.cannotChangeUsername);
      this.checkAcls(tx, input.AclIds);
      const before = new Set(repo.assignedAclIds(tx, id));
      repo.updateUser(tx, id, {
        name: input.Name,
        company: input.Company,
        durationMinutes: input.Duration,
        sessionLimit: licensedSessionLimit(tx, input.SessionLimit),
        authType: input.AuthType,
        validUntil: input.ValidUntil ? Date.parse(input.ValidUntil) : null,
        dn: input.ThirdPartyAuth.DN,
        ...(passwordHash ? { passwordHash } : {}),
        // OTP is for non-SAML users only (docs/reference.md admin-console §5); turning it off forgets the secret.
        totpEnabled: input.AuthType !== "SAML" && input.TOTPEnabled,
        ...(input.AuthType === "SAML" || !input.TOTPEnabled ? { totpSecretEnc: null, totpLastStep: null } : {}),
      });
      repo.setDirectAclIds(tx, id, input.AclIds);
      const after = new Set(repo.assignedAclIds(tx, id));
      const removed = [...before].filter((a) => !after.has(a));
      writeAudit(tx, {
        action: AuditAction.userUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: input.UserName,
      });
      const ops: Ops = new Map();
      const now = this.clock.now();
      const sessions = repo.liveSessionIds(tx, id, now);
      const validUntil = input.ValidUntil ? Date.parse(input.ValidUntil) : null;
      if (passwordHash) {
        // A new password: every session of the user ends now.
        this.engine.revokeInTx(tx, holdingGrantsOfSessions(tx, sessions), ops);
        repo.endSessions(tx, sessions, now, "passwordChanged");
      } else if (removed.length > 0) {
        const rows = holdingGrantsOfSessions(tx, sessions).filter((g) => removed.includes(g.aclId));
        this.engine.revokeInTx(tx, rows, ops);
      }
      // The account's end bounds its live sessions: a ValidUntil before a session's end brings that
      // end (and the entries on the agents) forward, a passed one ends them now; none lengthens them.
      if (validUntil !== null) this.engine.shortenSessions(tx, sessions, validUntil, ops);
      this.engine.endDueSessions(tx, ops);
      return ops;
    });
    this.engine.dispatch(ops);
  }

  /** Deletes a user after ending their sessions and grants. */
  delete(id: string, actor: Actor): void {
    const ops = this.db.transaction((tx) => {
      const row = repo.getUser(tx, id);
      if (!row) throw new AppError(Errors.notFound, "user");
      const now = this.clock.now();
      const sessions = repo.liveSessionIds(tx, id, now);
      const revokeOps = this.engine.revokeForSessions(tx, sessions);
      repo.endSessions(tx, sessions, now, "userDeleted");
      repo.deleteUser(tx, id);
      writeAudit(tx, {
        action: AuditAction.userDeleted,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: row.userName,
      });
      return revokeOps;
    });
    this.engine.dispatch(ops);
  }

  /** The user's live sessions, oldest first (GET /admin/users/{id}/sessions); 404 for an unknown user. */
  sessions(id: string): UserSession[] {
    if (!repo.getUser(this.db, id)) throw new AppError(Errors.notFound, "user");
    return liveUserSessions(this.db, this.clock.now(), id).map((s) => ({
      ID: s.id,
      Created: iso(s.createdAt) ?? "",
      Ends: iso(s.endsAt) ?? "",
    }));
  }

  /**
   * The ACLs the user reaches, by description, with how (GET /admin/users/{id}/acls): `Direct` when
   * assigned to the user, `Groups` the groups granting it. Passive+ hidden children are left out.
   * 404 for an unknown user.
   */
  acls(id: string): UserAcl[] {
    if (!repo.getUser(this.db, id)) throw new AppError(Errors.notFound, "user");
    const direct = new Set(repo.directAclIds(this.db, id));
    const via = new Map<string, { ID: string; Name: string }[]>();
    for (const r of aclsViaGroups(this.db, id)) {
      const list = via.get(r.aclId) ?? [];
      list.push({ ID: r.groupId, Name: r.groupName });
      via.set(r.aclId, list);
    }
    return aclSummaries(this.db, [...direct, ...via.keys()])
      .filter((a) => !a.hideFromAdmins)
      .map((a) => ({
        ID: a.id,
        Description: a.description,
        URL: a.url,
        Category: a.category,
        Icon: a.icon,
        Direct: direct.has(a.id),
        Groups: via.get(a.id) ?? [],
      }));
  }

  /**
   * Resets the user's 2FA (DELETE /admin/users/{id}/totpToken): clears the TOTP secret and last used
   * step; TOTPEnabled stays, so the user enrols again at the next sign-in. Sessions stay. 404 for an
   * unknown user. Audit totpReset.
   */
  resetTotp(id: string, actor: Actor): void {
    this.db.transaction((tx) => {
      const row = repo.getUser(tx, id);
      if (!row) throw new AppError(Errors.notFound, "user");
      repo.clearUserTotp(tx, id);
      writeAudit(tx, {
        action: AuditAction.totpReset,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: row.userName,
      });
    });
  }
}

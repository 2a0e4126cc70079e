/**
 * Users (docs/reference.md admin-console §3 "User", §5 "User", §7 /admin/users). Local users need a password of
 * 8–64 characters and a matching ConfirmPassword on create; UserName cannot change; LDAP users
 * need a DN, on create and update (`userWriteProblem`). SAML users cannot be edited (the IdP owns
 * them); created here they count against the licence like any user. Removing an ACL from a user, disabling or deleting the user ends the affected grants.
 */
import { countPasskeys, deleteAllPasskeys } from "../repositories/passkeys.ts";
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
  private async toWire(row: repo.UserRow, licensed: boolean): Promise<User> {
    return {
      ID: row.id,
      Name: row.name,
      UserName: row.userName,
      Company: row.company,
      Duration: row.durationMinutes,
      SessionLimit: row.sessionLimit,
      AuthType: row.authType,
      TOTPEnabled: row.totpEnabled,
      Passkeys: await countPasskeys(this.db, "user", row.id),
      ValidUntil: iso(row.validUntil),
      ThirdPartyAuth: { DN: row.dn },
      AclIds: await repo.directAclIds(this.db, row.id),
      Licensed: licensed,
      ActiveSession: (await repo.liveSessionIds(this.db, row.id, this.clock.now())).length > 0,
      CreatedAt: iso(row.createdAt) ?? "",
      LastLogin: iso(row.lastLogin),
    };
  }

  /** Lists users. */
  async list(): Promise<User[]> {
    const licensed = await licensedUsers(this.db, this.clock.now());
    return Promise.all((await repo.listUsers(this.db)).map((r) => this.toWire(r, licensed(r.id))));
  }

  /** Reads one user; 404 when unknown. */
  async get(id: string): Promise<User> {
    const row = await repo.getUser(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "user");
    return await this.toWire(row, await isUserLicensed(this.db, row.id, this.clock.now()));
  }

  /** The cross-field rules of the shared `userWriteProblem`; its error and Extra. */
  private checkWrite(input: UserWrite, mode: "create" | "update"): void {
    const problem = userWriteProblem(input, mode);
    if (problem) throw new AppError(problem.error, problem.Extra);
  }

  private async checkAcls(tx: Tx, aclIds: readonly string[]): Promise<void> {
    for (const id of aclIds) {
      if (!(await getAcl(tx, id))) throw new AppError(Errors.badRequest, `AclIds: unknown ACL ${id}`);
    }
  }

  /**
   * Creates a user; returns its id. 409 when the user name exists; 403 err.userLimitReached at the
   * licence's UserLimit + overage (SAML users too: only the IdP's first sign-in may exceed it); SessionLimit capped by the licence (licensing/gates.ts).
   * `ApiKey` (create the key now, docs/reference.md admin-console §5) is for AuthType apikey only (400 "Bad request",
   * Extra `ApiKey: …`) and is created by `inTx`, which runs inside the creating transaction after the
   * user row and its audit entry: its failure rolls the user back (see auth/api-key-users.ts).
   */
  async create(input: UserWrite, actor: Actor, inTx?: (tx: Tx, userId: string) => Promise<void>): Promise<string> {
    this.checkWrite(input, "create");
    if (input.ApiKey !== undefined && input.AuthType !== "apikey")
      throw new AppError(Errors.badRequest, "ApiKey: only API-key users (AuthType apikey) have a key");
    if (input.ApiKey !== undefined && inTx === undefined)
      throw new Error("UserService.create: a user's API key is created through ApiKeyUserService.createUser");
    const passwordHash =
      input.AuthType === "local" && input.PlainPassword ? await hashPassword(input.PlainPassword) : null;
    const id = newId();
    await this.db.transaction(async (tx) => {
      if (await repo.getUserByName(tx, input.UserName)) throw new AppError(Errors.userNameExists);
      await requireUserSlot(tx, "admin");
      await this.checkAcls(tx, input.AclIds);
      await repo.insertUser(tx, {
        id,
        name: input.Name,
        userName: input.UserName,
        company: input.Company,
        durationMinutes: input.Duration,
        sessionLimit: await licensedSessionLimit(tx, input.SessionLimit),
        authType: input.AuthType,
        passwordHash,
        totpEnabled: input.AuthType !== "SAML" && input.TOTPEnabled,
        validUntil: input.ValidUntil ? Date.parse(input.ValidUntil) : null,
        dn: input.ThirdPartyAuth.DN,
        createdAt: this.clock.now(),
      });
      await repo.setDirectAclIds(tx, id, input.AclIds);
      await writeAudit(tx, {
        action: AuditAction.userCreated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: input.UserName,
      });
      await inTx?.(tx, id);
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
    const ops = await this.db.transaction(async (tx): Promise<Ops> => {
      const row = await repo.getUser(tx, id);
      if (!row) throw new AppError(Errors.notFound, "user");
      if (row.authType === "SAML") throw new AppError(Errors.samlUsersCannotBeEdited);
      if (row.userName !== input.UserName) throw new AppError(Errors.cannotChangeUsername);
      await this.checkAcls(tx, input.AclIds);
      const before = new Set(await repo.assignedAclIds(tx, id));
      await repo.updateUser(tx, id, {
        name: input.Name,
        company: input.Company,
        durationMinutes: input.Duration,
        sessionLimit: await licensedSessionLimit(tx, input.SessionLimit),
        authType: input.AuthType,
        validUntil: input.ValidUntil ? Date.parse(input.ValidUntil) : null,
        dn: input.ThirdPartyAuth.DN,
        ...(passwordHash ? { passwordHash } : {}),
        // OTP is for non-SAML users only (docs/reference.md admin-console §5); turning it off forgets the secret.
        totpEnabled: input.AuthType !== "SAML" && input.TOTPEnabled,
        ...(input.AuthType === "SAML" || !input.TOTPEnabled ? { totpSecretEnc: null, totpLastStep: null } : {}),
      });
      await repo.setDirectAclIds(tx, id, input.AclIds);
      const after = new Set(await repo.assignedAclIds(tx, id));
      const removed = [...before].filter((a) => !after.has(a));
      await writeAudit(tx, {
        action: AuditAction.userUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: input.UserName,
      });
      const ops: Ops = new Map();
      const now = this.clock.now();
      const sessions = await repo.liveSessionIds(tx, id, now);
      const validUntil = input.ValidUntil ? Date.parse(input.ValidUntil) : null;
      if (passwordHash) {
        // A new password: every session of the user ends now.
        await this.engine.revokeInTx(tx, await holdingGrantsOfSessions(tx, sessions), ops);
        await repo.endSessions(tx, sessions, now, "passwordChanged");
      } else if (removed.length > 0) {
        const rows = (await holdingGrantsOfSessions(tx, sessions)).filter((g) => removed.includes(g.aclId));
        await this.engine.revokeInTx(tx, rows, ops);
      }
      // The account's end bounds its live sessions: a ValidUntil before a session's end brings that
      // end (and the entries on the agents) forward, a passed one ends them now; none lengthens them.
      if (validUntil !== null) await this.engine.shortenSessions(tx, sessions, validUntil, ops);
      await this.engine.endDueSessions(tx, ops);
      return ops;
    });
    this.engine.dispatch(ops);
  }

  /** Deletes a user after ending their sessions and grants. */
  async delete(id: string, actor: Actor): Promise<void> {
    const ops = await this.db.transaction(async (tx) => {
      const row = await repo.getUser(tx, id);
      if (!row) throw new AppError(Errors.notFound, "user");
      const now = this.clock.now();
      const sessions = await repo.liveSessionIds(tx, id, now);
      const revokeOps = await this.engine.revokeForSessions(tx, sessions);
      await repo.endSessions(tx, sessions, now, "userDeleted");
      await repo.deleteUser(tx, id);
      await writeAudit(tx, {
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
  async sessions(id: string): Promise<UserSession[]> {
    if (!(await repo.getUser(this.db, id))) throw new AppError(Errors.notFound, "user");
    return (await liveUserSessions(this.db, this.clock.now(), id)).map((s) => ({
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
  async acls(id: string): Promise<UserAcl[]> {
    if (!(await repo.getUser(this.db, id))) throw new AppError(Errors.notFound, "user");
    const direct = new Set(await repo.directAclIds(this.db, id));
    const via = new Map<string, { ID: string; Name: string }[]>();
    for (const r of await aclsViaGroups(this.db, id)) {
      const list = via.get(r.aclId) ?? [];
      list.push({ ID: r.groupId, Name: r.groupName });
      via.set(r.aclId, list);
    }
    return (await aclSummaries(this.db, [...direct, ...via.keys()]))
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
   * step and every passkey; TOTPEnabled stays, so the user enrols again at the next sign-in. Sessions stay. 404 for an
   * unknown user. Audit totpReset.
   */
  async resetTotp(id: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await repo.getUser(tx, id);
      if (!row) throw new AppError(Errors.notFound, "user");
      await repo.clearUserTotp(tx, id);
      await deleteAllPasskeys(tx, "user", id);
      await writeAudit(tx, {
        action: AuditAction.totpReset,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        userName: row.userName,
      });
    });
  }
}

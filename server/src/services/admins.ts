/**
 * Admin accounts (docs/reference.md admin-console §2 "Admins", §3 "Admin", §5 "Admin", §6, §7 /admin/admins).
 * Name and UserName are required and UserName cannot change; a local admin needs a password of
 * 8–64 characters with an equal ConfirmPassword on create; user names are unique. The acting admin
 * cannot delete their own account, turn off their own LoginEnabled, disable their own 2FA, or reset
 * their own 2FA. Turning LoginEnabled off or deleting an admin ends their admin sessions. Reads
 * never carry password hashes or TOTP secrets.
 */
import { countPasskeys, deleteAllPasskeys } from "../repositories/passkeys.ts";
import { Errors } from "@postern/shared";
import type { Admin, AdminSession, AdminWrite } from "@postern/shared";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/admins.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { hashPassword } from "./auth/passwords.ts";
import { newId } from "./auth/tokens.ts";
import { Service } from "./service.ts";

/** The acting admin: audit fields plus their account id and the id of the session they act from. */
export interface AdminActor extends Actor {
  adminId: string;
  sessionId: string;
}

/** The password rule message of docs/reference.md admin-console §5, as Extra of 400 "Bad request". */
const PASSWORD_REQUIRED = "PlainPassword: Must be between 8 and 64 characters";

/** Admins: CRUD, 2FA reset and their sessions. */
export class AdminService extends Service {
  private async toWire(row: repo.AdminRow): Promise<Admin> {
    return {
      ID: row.id,
      Name: row.name,
      UserName: row.userName,
      AuthType: row.authType,
      TOTPEnabled: row.totpEnabled,
      Passkeys: await countPasskeys(this.db, "admin", row.id),
      LoginEnabled: row.loginEnabled,
      ThirdPartyAuth: { DN: row.dn },
      CreatedAt: iso(row.createdAt) ?? "",
      LastLogin: iso(row.lastLogin),
    };
  }

  /** Lists every admin by user name (GET /admin/admins). */
  async list(): Promise<Admin[]> {
    return await Promise.all((await repo.listAdmins(this.db)).map((r) => this.toWire(r)));
  }

  /** Reads one admin (GET /admin/admins/{id}); 404 Not found when unknown. */
  async get(id: string): Promise<Admin> {
    const row = await repo.getAdmin(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "admin");
    return await this.toWire(row);
  }

  /** The admin's live sessions, oldest first (GET /admin/admins/{id}/sessions); 404 when unknown. */
  async sessions(id: string): Promise<AdminSession[]> {
    if (!(await repo.getAdmin(this.db, id))) throw new AppError(Errors.notFound, "admin");
    return (await repo.liveAdminSessions(this.db, this.clock.now(), id)).map((s) => ({
      ID: s.id,
      Created: iso(s.createdAt) ?? "",
      IPAddress: s.ipAddress,
    }));
  }

  /** 400 err.passwordsDontMatch unless a given password comes with an equal ConfirmPassword. */
  private checkConfirm(input: AdminWrite): void {
    if (
      input.AuthType === "local" &&
      input.PlainPassword !== undefined &&
      input.ConfirmPassword !== input.PlainPassword
    ) {
      throw new AppError(Errors.passwordsDontMatch);
    }
  }

  /**
   * Creates an admin; returns its id (POST /admin/admins). Throws 400 "Bad request"
   * ("PlainPassword: Must be between 8 and 64 characters") when a local admin has no password, 400
   * err.passwordsDontMatch when ConfirmPassword is missing or differs, 409 "An admin with that
   * username already exists". TOTPEnabled is stored off for SAML admins. Audit adminCreated.
   */
  async create(input: AdminWrite, actor: Actor): Promise<string> {
    if (input.AuthType === "local" && input.PlainPassword === undefined)
      throw new AppError(Errors.badRequest, PASSWORD_REQUIRED);
    this.checkConfirm(input);
    if (await repo.getAdminByName(this.db, input.UserName)) throw new AppError(Errors.adminNameExists);
    const passwordHash =
      input.AuthType === "local" && input.PlainPassword !== undefined ? await hashPassword(input.PlainPassword) : null;
    const id = newId();
    await this.db.transaction(async (tx) => {
      if (await repo.getAdminByName(tx, input.UserName)) throw new AppError(Errors.adminNameExists);
      const now = this.clock.now();
      await repo.insertAdmin(tx, {
        id,
        name: input.Name,
        userName: input.UserName,
        authType: input.AuthType,
        passwordHash,
        totpEnabled: input.AuthType !== "SAML" && input.TOTPEnabled,
        loginEnabled: input.LoginEnabled,
        dn: input.ThirdPartyAuth.DN,
        createdAt: now,
      });
      await writeAudit(tx, {
        action: AuditAction.adminCreated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: input.UserName,
      });
    });
    return id;
  }

  /**
   * Updates an admin (PUT /admin/admins/{id}). Throws 404 when unknown, 400 "Cannot change
   * username", 400 err.passwordsDontMatch, 400 "Bad request" when a local admin would have no
   * password, 403 "You cannot disable your own login" and 403 cannotDisableOwn2fa for the acting
   * admin. Turning TOTP off clears the stored secret. LoginEnabled off ends every session of the
   * admin; a new password ends their sessions except the one the actor acts from. Audit adminUpdated.
   */
  async update(id: string, input: AdminWrite, actor: AdminActor): Promise<void> {
    this.checkConfirm(input);
    const passwordHash =
      input.AuthType === "local" && input.PlainPassword !== undefined
        ? await hashPassword(input.PlainPassword)
        : undefined;
    await this.db.transaction(async (tx) => {
      const row = await repo.getAdmin(tx, id);
      if (!row) throw new AppError(Errors.notFound, "admin");
      if (row.userName !== input.UserName) throw new AppError(Errors.cannotChangeUsername);
      const self = id === actor.adminId;
      const totpEnabled = input.AuthType !== "SAML" && input.TOTPEnabled;
      if (self && !input.LoginEnabled) throw new AppError(Errors.cannotDisableOwnLogin);
      if (self && row.totpEnabled && !totpEnabled) throw new AppError(Errors.cannotDisableOwn2fa);
      if (input.AuthType === "local" && passwordHash === undefined && (row.authType !== "local" || !row.passwordHash)) {
        throw new AppError(Errors.badRequest, PASSWORD_REQUIRED);
      }
      const now = this.clock.now();
      await repo.updateAdmin(tx, id, {
        name: input.Name,
        authType: input.AuthType,
        loginEnabled: input.LoginEnabled,
        totpEnabled,
        dn: input.ThirdPartyAuth.DN,
        // Only local admins keep a password; a new one replaces the old.
        ...(input.AuthType !== "local" ? { passwordHash: null } : passwordHash !== undefined ? { passwordHash } : {}),
        // Turning TOTP off forgets the secret: turning it on again means enrolling again.
        ...(!totpEnabled ? { totpSecretEnc: null, totpLastStep: null } : {}),
      });
      const live = await repo.liveAdminSessions(tx, now, id);
      if (!input.LoginEnabled)
        await repo.endAdminSessions(
          tx,
          live.map((s) => s.id),
          now,
        );
      else if (passwordHash !== undefined)
        await repo.endAdminSessions(
          tx,
          live.filter((s) => s.id !== actor.sessionId).map((s) => s.id),
          now,
        );
      await writeAudit(tx, {
        action: AuditAction.adminUpdated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: row.userName,
      });
    });
  }

  /**
   * Deletes an admin and ends their sessions (DELETE /admin/admins/{id}). Throws 403 "You cannot
   * delete your own account" for the acting admin, 404 when unknown. Audit adminDeleted.
   */
  async delete(id: string, actor: AdminActor): Promise<void> {
    if (id === actor.adminId) throw new AppError(Errors.cannotDeleteOwnAccount);
    await this.db.transaction(async (tx) => {
      const row = await repo.getAdmin(tx, id);
      if (!row) throw new AppError(Errors.notFound, "admin");
      const now = this.clock.now();
      await repo.endAdminSessions(
        tx,
        (await repo.liveAdminSessions(tx, now, id)).map((s) => s.id),
        now,
      );
      await repo.deleteAdmin(tx, id);
      await writeAudit(tx, {
        action: AuditAction.adminDeleted,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: row.userName,
      });
    });
  }

  /**
   * Resets an admin's 2FA (DELETE /admin/admins/{id}/totpToken): clears the TOTP secret, the last
   * used step and every passkey; TOTPEnabled stays, so the admin enrols again at the next sign-in. Sessions stay.
   * Throws 403 cannotResetOwn2fa for the acting admin, 404 when unknown. Audit totpReset.
   */
  async resetTotp(id: string, actor: AdminActor): Promise<void> {
    if (id === actor.adminId) throw new AppError(Errors.cannotResetOwn2fa);
    await this.db.transaction(async (tx) => {
      const row = await repo.getAdmin(tx, id);
      if (!row) throw new AppError(Errors.notFound, "admin");
      await repo.clearAdminTotp(tx, id);
      await deleteAllPasskeys(tx, "admin", id);
      await writeAudit(tx, {
        action: AuditAction.totpReset,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `admin ${row.userName}`,
      });
    });
  }
}

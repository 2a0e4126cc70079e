/**
 * Accounts behind a verified SAML assertion (docs/reference.md user-portal §5 "SAML users cannot be edited and are
 * created automatically at first login"; docs/reference.md admin-console §3 Group type saml, §9 "SAML-created users
 * may exceed the hard limit but still count").
 *
 * Users: the NameID is the UserName. A user is created at the first sign-in with AuthType SAML
 * (through the licence gate that never refuses SAML users); its Name follows the assertion's
 * displayName / cn attribute at every sign-in. Membership in groups of type saml is replaced at every
 * sign-in by the groups the `groups` attribute names (existing saml groups only, by exact name);
 * live grants on ACLs lost that way are revoked. An existing account of another AuthType is never
 * taken over. Admins (the admin IdP's assertions): an existing admin with AuthType SAML and that
 * UserName, created at the first sign-in (audit adminAutoCreated; docs/reference.md admin-console §3 audit kinds);
 * an admin of another AuthType is never taken over.
 */
import { Limits } from "@postern/shared";
import * as usersRepo from "../../repositories/users.ts";
import type { UserRow } from "../../repositories/users.ts";
import { getAdmin, getAdminByName, insertAdmin } from "../../repositories/admins.ts";
import type { AdminRow } from "../../repositories/admins.ts";
import * as samlRepo from "../../repositories/saml.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import { newId } from "../auth/tokens.ts";
import type { Ops } from "../grants/engine.ts";
import { reachOf, revokeLostAccess } from "../groups.ts";
import { licensedSessionLimit, requireUserSlot } from "../licensing/gates.ts";
import { Service } from "../service.ts";
import { refused } from "./errors.ts";

/** Attribute names read for the user's Name, first present wins (displayName, cn, and their OIDs). */
export const NAME_ATTRIBUTES = ["displayName", "urn:oid:2.16.840.1.113730.3.1.241", "cn", "urn:oid:2.5.4.3"] as const;
/** Attribute naming the user's groups (values: names of groups of type saml). */
export const GROUPS_ATTRIBUTE = "groups";
/** Attribute giving the session length in minutes. */
export const SESSION_DURATION_ATTRIBUTE = "sessionDuration";
/** Bounds of the sessionDuration attribute, in minutes (outside them the user's Duration applies). */
export const SESSION_DURATION_MIN_MINUTES = 1;
/** Upper bound of the sessionDuration attribute, in minutes (24 hours). */
export const SESSION_DURATION_MAX_MINUTES = 1440;
/** Longest Name taken from an attribute, in characters (longer ones are cut). */
export const MAX_NAME_LENGTH = 256;
/** Most group names read from the `groups` attribute. */
export const MAX_GROUP_VALUES = 1000;

/** The Name an assertion gives (first non-empty NAME_ATTRIBUTES value, cut to MAX_NAME_LENGTH), or null. */
export function nameFrom(attributes: Record<string, string[]>): string | null {
  for (const key of NAME_ATTRIBUTES) {
    const value = attributes[key]?.find((v) => v.trim() !== "")?.trim();
    if (value) return value.slice(0, MAX_NAME_LENGTH);
  }
  return null;
}

/** The distinct, non-empty group names of the `groups` attribute (at most MAX_GROUP_VALUES). */
export function groupsFrom(attributes: Record<string, string[]>): string[] {
  return [...new Set((attributes[GROUPS_ATTRIBUTE] ?? []).map((g) => g.trim()).filter((g) => g !== ""))].slice(
    0,
    MAX_GROUP_VALUES,
  );
}

/**
 * The session length the `sessionDuration` attribute asks for, in minutes: one integer value within
 * 1–1440; null (the user's Duration applies) when absent, repeated, not an integer or out of bounds.
 */
export function sessionMinutesFrom(attributes: Record<string, string[]>): number | null {
  const values = attributes[SESSION_DURATION_ATTRIBUTE] ?? [];
  if (values.length !== 1 || !/^\d{1,5}$/.test(values[0] ?? "")) return null;
  const minutes = Number(values[0]);
  return minutes >= SESSION_DURATION_MIN_MINUTES && minutes <= SESSION_DURATION_MAX_MINUTES ? minutes : null;
}

/** Finds or creates the accounts of verified assertions. */
export class SamlProvisioning extends Service {
  /**
   * The user of a verified assertion, created at the first sign-in (audit userCreated), its Name and
   * saml-group membership brought in line (audit userUpdated when either changed; grants on ACLs
   * no longer reached are revoked). `ip` is the caller's address for the audit. Throws SamlError
   * "Authentication failed" when the UserName belongs to an account that is not a SAML account.
   */
  async provisionUser(input: {
    userName: string;
    name: string | null;
    groups: readonly string[];
    ip: string;
  }): Promise<UserRow> {
    const now = this.clock.now();
    const { user, ops } = await this.db.transaction(async (tx) => {
      const ops: Ops = new Map();
      let row = await usersRepo.getUserByName(tx, input.userName);
      if (row && row.authType !== "SAML") throw refused("the account is not a SAML account", input.userName);
      const changes: string[] = [];
      if (!row) {
        await requireUserSlot(tx, "idp");
        const id = newId();
        await usersRepo.insertUser(tx, {
          id,
          name: input.name ?? input.userName,
          userName: input.userName,
          durationMinutes: Limits.defaultUserDurationMinutes,
          sessionLimit: await licensedSessionLimit(tx, null),
          authType: "SAML",
          totpEnabled: false,
          createdAt: now,
        });
        await writeAudit(tx, {
          action: AuditAction.userCreated,
          at: now,
          userName: input.userName,
          ipAddress: input.ip,
          description: "created at the first SAML sign-in",
        });
        row = (await usersRepo.getUser(tx, id))!;
      } else if (input.name !== null && input.name !== row.name) {
        await usersRepo.updateUser(tx, row.id, { name: input.name });
        changes.push("name from the IdP");
      }
      const wanted = await samlRepo.samlGroupsByNames(tx, input.groups);
      const current = new Set(await samlRepo.samlGroupIdsOfUser(tx, row.id));
      if (wanted.length !== current.size || wanted.some((g) => !current.has(g.id))) {
        const before = await reachOf(tx, [row.id]);
        await samlRepo.setSamlGroupIdsOfUser(
          tx,
          row.id,
          wanted.map((g) => g.id),
        );
        await revokeLostAccess(tx, this.engine, now, before, ops);
        changes.push(
          `SAML groups: ${
            wanted
              .map((g) => g.name)
              .sort()
              .join(", ") || "none"
          }`,
        );
      }
      if (changes.length > 0)
        await writeAudit(tx, {
          action: AuditAction.userUpdated,
          at: now,
          userName: input.userName,
          ipAddress: input.ip,
          description: changes.join("; "),
        });
      return { user: (await usersRepo.getUser(tx, row.id))!, ops };
    });
    this.engine.dispatch(ops);
    return user;
  }

  /**
   * The admin of a verified admin-IdP assertion: an existing admin with AuthType SAML and that
   * UserName, or — at the first sign-in of that name — a new SAML admin (Name from the assertion,
   * else the UserName; no TOTP; audit adminAutoCreated). The admin IdP has its own settings, so only
   * the admin IdP's people get here. Throws SamlError "Authentication failed" when the UserName
   * belongs to an admin that is not a SAML admin (never taken over).
   */
  async provisionAdmin(input: { userName: string; name: string | null; ip: string }): Promise<AdminRow> {
    return await this.db.transaction(async (tx) => {
      const admin = await getAdminByName(tx, input.userName);
      if (admin) {
        if (admin.authType !== "SAML") throw refused("the admin is not a SAML admin", input.userName);
        return admin;
      }
      const id = newId();
      const now = this.clock.now();
      await insertAdmin(tx, {
        id,
        name: input.name ?? input.userName,
        userName: input.userName,
        authType: "SAML",
        totpEnabled: false,
        loginEnabled: true,
        createdAt: now,
      });
      await writeAudit(tx, {
        action: AuditAction.adminAutoCreated,
        at: now,
        adminName: input.userName,
        ipAddress: input.ip,
        description: "created at the first sign-in through the admin IdP",
      });
      return (await getAdmin(tx, id))!;
    });
  }
}

/**
 * Admins, admin and user sessions, and the user extras of the admin API (docs/reference.md admin-console §3 "Admin",
 * "User session", "Admin session"; §5 "Admin"; §6; §7 /admin/admins, /admin/users/{id}/sessions,
 * /groups, /acls, /admin/sessions, /admin/adminsessions).
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { PasswordSchema } from "./admin.ts";

/** Admin AuthType values (docs/reference.md admin-console §9 "Admin auth types local, SAML, LDAP"). */
export const AdminAuthTypeSchema = z.enum(["local", "SAML", "LDAP"]);

/** An empty string counts as absent (a form leaves the password fields blank on edit). */
const blankAsAbsent = (v: unknown) => (v === "" || v === null ? undefined : v);

/**
 * POST/PUT /api/admin/admins body (docs/reference.md admin-console §7 "Admin"). UserName cannot change on edit.
 * A local admin needs PlainPassword (8–64) and an equal ConfirmPassword on create; on edit both are
 * optional, but a given PlainPassword needs an equal ConfirmPassword. The password is ignored for
 * SAML and LDAP admins. TOTPEnabled is forced off for SAML admins. ThirdPartyAuth.DN is the LDAP
 * DN (optional).
 */
export const AdminWriteSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().min(1).max(255),
  UserName: z.string().trim().min(1, "You must specify a username").max(255),
  AuthType: AdminAuthTypeSchema.default("local"),
  PlainPassword: z.preprocess(blankAsAbsent, PasswordSchema.optional()),
  ConfirmPassword: z.preprocess(blankAsAbsent, z.string().max(1024).optional()),
  TOTPEnabled: z.boolean().default(false),
  LoginEnabled: z.boolean().default(true),
  ThirdPartyAuth: z.object({ DN: z.string().max(1024).default("") }).default({ DN: "" }),
});
/** POST/PUT /api/admin/admins body. */
export type AdminWrite = z.infer<typeof AdminWriteSchema>;

/** An admin as admins read it; never carries a password hash or a TOTP secret. Times ISO 8601 UTC. */
export const AdminSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  UserName: z.string(),
  AuthType: AdminAuthTypeSchema,
  TOTPEnabled: z.boolean(),
  /** How many passkeys the admin has enrolled (Reset 2FA clears them with the TOTP secret). */
  Passkeys: z.number().int(),
  LoginEnabled: z.boolean(),
  ThirdPartyAuth: z.object({ DN: z.string() }),
  CreatedAt: z.string(),
  LastLogin: z.string().nullable(),
});
/** An admin as admins read it. */
export type Admin = z.infer<typeof AdminSchema>;

/** A live user session (GET /api/admin/users/{id}/sessions): ISO 8601 UTC times. */
export const UserSessionSchema = z.object({ ID: IdSchema, Created: z.string(), Ends: z.string() });
/** A live user session. */
export type UserSession = z.infer<typeof UserSessionSchema>;

/** A live admin session (GET /api/admin/admins/{id}/sessions): Created ISO 8601 UTC. */
export const AdminSessionSchema = z.object({ ID: IdSchema, Created: z.string(), IPAddress: z.string() });
/** A live admin session. */
export type AdminSession = z.infer<typeof AdminSessionSchema>;

/**
 * An ACL a user reaches (GET /api/admin/users/{id}/acls), with how: `Direct` when assigned to the
 * user (User.AclIds), and `Groups` the groups that grant it. Passive+ hidden children are left out.
 */
export const UserAclSchema = z.object({
  ID: IdSchema,
  Description: z.string(),
  URL: z.string(),
  Category: z.string(),
  Icon: z.string(),
  Direct: z.boolean(),
  Groups: z.array(z.object({ ID: IdSchema, Name: z.string() })),
});
/** An ACL a user reaches, with how. */
export type UserAcl = z.infer<typeof UserAclSchema>;

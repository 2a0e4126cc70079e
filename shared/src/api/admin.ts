/**
 * Admin sign-in and users (docs/reference.md admin-console §3 "User", §5 "User", §7 "User" payload).
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { Limits } from "../limits.ts";
import { Errors } from "../errors.ts";
import type { ConfigProblem } from "./backend.ts";
import { UserApiKeySchema } from "./api-key-user.ts";

/** POST /api/admin/login body. */
export const AdminLoginRequestSchema = z.object({ UserName: z.string().min(1), Password: z.string().min(1) });
/** POST /api/admin/login body. */
export type AdminLoginRequest = z.infer<typeof AdminLoginRequestSchema>;

/** A password of 8–64 characters ('Must be between 8 and 64 characters'). */
export const PasswordSchema = z
  .string()
  .min(Limits.passwordMinLength, "Must be between 8 and 64 characters")
  .max(Limits.passwordMaxLength, "Must be between 8 and 64 characters");

/** User AuthType values (docs/reference.md admin-console §3). */
export const UserAuthTypeSchema = z.enum(["local", "SAML", "LDAP", "apikey"]);

/**
 * POST/PUT /api/admin/users body. Duration is in minutes (min 1, default 480); SessionLimit null is
 * unlimited; AclIds are the ACLs assigned directly.
 */
export const UserWriteSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().min(1),
  UserName: z.string().trim().min(1, "You must specify a username"),
  Company: z.string().default(""),
  Duration: z.number().int().min(1).max(Limits.maxUserDurationMinutes).default(Limits.defaultUserDurationMinutes),
  SessionLimit: z.number().int().min(1).nullable().default(null),
  AuthType: UserAuthTypeSchema.default("local"),
  PlainPassword: PasswordSchema.optional(),
  ConfirmPassword: z.string().optional(),
  TOTPEnabled: z.boolean().default(false),
  /** ISO 8601 time after which the account cannot sign in; null for no end. */
  ValidUntil: z.iso.datetime({ offset: true }).nullable().default(null),
  ThirdPartyAuth: z.object({ DN: z.string().default("") }).default({ DN: "" }),
  AclIds: z.array(IdSchema).default([]),
  /** POST only, AuthType apikey only: create the user's API key now (api-key-user.ts). */
  ApiKey: UserApiKeySchema.optional(),
});
/** POST/PUT /api/admin/users body. */
export type UserWrite = z.infer<typeof UserWriteSchema>;

/**
 * The first broken cross-field rule of a user write (docs/reference.md admin-console §5 "User"), or null; pure, for the
 * server and the browser alike:
 * - LDAP: ThirdPartyAuth.DN required, on create and update ("Bad request", Extra
 *   `ThirdPartyAuth.DN: required`);
 * - local, on create: PlainPassword required (Extra `PlainPassword: Must be between 8 and 64
 *   characters`) and ConfirmPassword required (Extra `ConfirmPassword: required`);
 * - local: a ConfirmPassword given must equal PlainPassword (err.passwordsDontMatch).
 */
export function userWriteProblem(u: UserWrite, mode: "create" | "update"): ConfigProblem | null {
  if (u.AuthType === "LDAP" && u.ThirdPartyAuth.DN.trim() === "")
    return { error: Errors.badRequest, Extra: "ThirdPartyAuth.DN: required" };
  if (u.AuthType !== "local") return null;
  if (mode === "create" && !u.PlainPassword)
    return { error: Errors.badRequest, Extra: "PlainPassword: Must be between 8 and 64 characters" };
  if (mode === "create" && u.ConfirmPassword === undefined)
    return { error: Errors.badRequest, Extra: "ConfirmPassword: required" };
  if (u.PlainPassword !== undefined && u.ConfirmPassword !== undefined && u.ConfirmPassword !== u.PlainPassword)
    return { error: Errors.passwordsDontMatch };
  return null;
}

/** A user as admins read it (docs/reference.md admin-console §3 "User"); never carries a password. Duration in minutes. */
export const UserSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  UserName: z.string(),
  Company: z.string(),
  Duration: z.number().int(),
  SessionLimit: z.number().int().nullable(),
  AuthType: UserAuthTypeSchema,
  TOTPEnabled: z.boolean(),
  /** How many passkeys the user has enrolled (Reset 2FA clears them with the TOTP secret). */
  Passkeys: z.number().int(),
  ValidUntil: z.string().nullable(),
  ThirdPartyAuth: z.object({ DN: z.string() }),
  AclIds: z.array(IdSchema),
  Licensed: z.boolean(),
  ActiveSession: z.boolean(),
  CreatedAt: z.string(),
  LastLogin: z.string().nullable(),
});
/** A user as admins read it. */
export type User = z.infer<typeof UserSchema>;

/**
 * Licensing (docs/reference.md admin-console §2 "Global alert banner", §3 "License status" / "Licensing", §4 license
 * banner states, §5 user limit, §6, §9; docs/reference.md user-portal §3 Licensed / UserLicensed, §4 license states,
 * §9). A licence key is `base64url(JSON payload) "." base64url(Ed25519 signature over the payload
 * bytes)` (docs/reference.md design "Contract decisions"); the literal key `free` is the free single-user licence.
 */
import { Errors } from "../errors.ts";
import { z } from "zod";
import { IsoTimeSchema } from "../common.ts";

/** The literal key of the free single-user licence (no signature). */
export const FREE_LICENSE_KEY = "free";

/** Longest licence key the server reads, in characters (a real key is a few hundred). */
export const MAX_LICENSE_KEY_LENGTH = 4096;

/**
 * The signed payload of a licence key. UserLimit counts users (admins are never counted);
 * UserLimitOverage is a percentage of UserLimit (e.g. 30) that may still be created beyond it;
 * SessionLimit is the most sessions one user may hold; MaxMachines the agents the licence covers;
 * Expires an ISO 8601 UTC time, or null / absent for never. Unknown fields are ignored (newer issuers).
 */
export const LicensePayloadSchema = z.object({
  ID: z.string().trim().min(1).max(200),
  UserLimit: z.number().int().min(1).max(10_000_000),
  UserLimitOverage: z.number().int().min(0).max(1000),
  SessionLimit: z.number().int().min(1).max(1_000_000),
  MaxMachines: z.number().int().min(0).max(1_000_000),
  Expires: IsoTimeSchema.nullable()
    .optional()
    .transform((v) => (v ? new Date(v).toISOString() : null)),
});
/** The signed payload of a licence key (Expires is null for never). */
export type LicensePayload = z.infer<typeof LicensePayloadSchema>;

/** What the free single-user licence grants (docs/reference.md admin-console §9 "Free single-user license exists"). */
export const FREE_LICENSE: LicensePayload = Object.freeze({
  ID: "free",
  UserLimit: 1,
  UserLimitOverage: 0,
  SessionLimit: 1,
  MaxMachines: 1,
  Expires: null,
});

/**
 * License states (docs/reference.md user-portal §4): unlicensed (no licence installed), expired (Expires passed),
 * overLimit (more counted users than UserLimit), expiringSoon (Expires within 60 days), active.
 * When several hold, the first in that order wins.
 */
export const LicenseStateSchema = z.enum(["active", "expiringSoon", "expired", "unlicensed", "overLimit"]);
/** One license state. */
export type LicenseState = z.infer<typeof LicenseStateSchema>;

/** POST /api/admin/settings/license body: the key to install (or `free`). */
export const InstallLicenseRequestSchema = z.object({
  License: z
    .string()
    .trim()
    .min(1, Errors.invalidLicenseKey.err)
    .max(MAX_LICENSE_KEY_LENGTH, Errors.invalidLicenseKey.err),
});
/** POST /api/admin/settings/license body. */
export type InstallLicenseRequest = z.infer<typeof InstallLicenseRequestSchema>;

/**
 * GET and POST /api/admin/settings/license response (docs/reference.md admin-console §3 "License status").
 * Licensed: a licence is installed and not expired. ID, limits and Expires are the installed
 * licence's ("" / 0 / null when none); MachineCount is the number of agents; Expires ISO 8601 UTC or
 * null for never.
 */
export const LicenseStatusSchema = z.object({
  Licensed: z.boolean(),
  ID: z.string(),
  UserLimit: z.number().int(),
  SessionLimit: z.number().int(),
  MaxMachines: z.number().int(),
  MachineCount: z.number().int(),
  Expires: z.string().nullable(),
  State: LicenseStateSchema,
});
/** GET /api/admin/settings/license response. */
export type LicenseStatus = z.infer<typeof LicenseStatusSchema>;

/**
 * `Licensing` of the admin status (docs/reference.md admin-console §3): UserLimit; UserLimitOverage, the number of
 * users that may be created beyond UserLimit (floor(UserLimit × percentage / 100));
 * UserLimitOveragePercentage, the licence's percentage; SessionLimit; Expires (ISO 8601 UTC, null
 * for never). The admin status carries null instead when no readable licence is installed.
 */
export const LicensingSchema = z.object({
  UserLimit: z.number().int(),
  UserLimitOverage: z.number().int(),
  UserLimitOveragePercentage: z.number().int(),
  SessionLimit: z.number().int(),
  Expires: z.string().nullable(),
});
/** `Licensing` of the admin status. */
export type Licensing = z.infer<typeof LicensingSchema>;

/** How many users may be created beyond UserLimit: floor(UserLimit × UserLimitOverage / 100). */
export function overageCount(p: Pick<LicensePayload, "UserLimit" | "UserLimitOverage">): number {
  return Math.floor((p.UserLimit * p.UserLimitOverage) / 100);
}

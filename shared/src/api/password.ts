/**
 * Changing one's own password (docs/reference.md user-portal §2 "change password", §5 "Change password", §7 PUT and
 * POST /password; docs/reference.md admin-console §7 POST /password).
 */
import { z } from "zod";
import { PasswordSchema } from "./admin.ts";

/** Longest current or confirmation password read (the rule 8–64 applies to the new one only). */
const MAX_PASSWORD_INPUT = 1024;

/**
 * PUT /api/password body (the portal's change-password dialog): the signed-in user's current
 * password, the new one (8–64, 'Must be between 8 and 64 characters') and its confirmation
 * (err.passwordsDontMatch when missing or different).
 */
export const ChangePasswordRequestSchema = z.object({
  CurrentPassword: z.string().min(1).max(MAX_PASSWORD_INPUT),
  NewPassword: PasswordSchema,
  ConfirmPassword: z.string().max(MAX_PASSWORD_INPUT).optional(),
});
/** PUT /api/password body. */
export type ChangePasswordRequest = z.infer<typeof ChangePasswordRequestSchema>;

/**
 * POST /api/password body (the older shape, used by the admin console): the current password and
 * the new one (8–64); no confirmation.
 */
export const ChangePasswordLegacyRequestSchema = z.object({
  ExistingPassword: z.string().min(1).max(MAX_PASSWORD_INPUT),
  NewPassword: PasswordSchema,
});
/** POST /api/password body. */
export type ChangePasswordLegacyRequest = z.infer<typeof ChangePasswordLegacyRequestSchema>;

/** Lowest strength score (zxcvbn, 0 very weak … 4 very strong) a new password must reach: 2, "Acceptable". */
export const MIN_PASSWORD_SCORE = 2;

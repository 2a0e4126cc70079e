/**
 * Two-factor codes (TOTP) for users and admins: enrolment and verification after the password
 * (user-portal §4 "Login outcomes", §7 GET /otp/generate and POST /otp/verify; admin-console §7
 * GET /admin/otp/generate and POST /admin/otp/verify with {Code} or {deferEnrolment}).
 */
import { z } from "zod";

/**
 * Err values of the 2FA routes. The first three are the spec's messages (user-portal §8); the
 * deferral refusal is a decision where the spec is silent.
 */
export const OtpErr = {
  /** 409: the session already completed its sign-in (its 2FA is done, or it never owed a code). */
  alreadyVerified2fa: "Already verified 2FA",
  /** 409: the account already has an enrolled secret (generate, or an admin's deferral, refused). */
  userAlreadyVerified: "User already verified",
  /** 401: the code is wrong, malformed, outside ±1 time step, or its time step was used before. */
  invalidCode: "Invalid code",
  /** 403: the server does not allow admins to defer their 2FA enrolment (setting AllowAdminTotpDeferral). */
  deferralNotAllowed: "2FA enrolment cannot be deferred",
} as const;

/** Longest `Code` the server reads; codes are 6 digits (spaces between digits are ignored). */
export const OTP_CODE_MAX_LENGTH = 16;

/** GET /api/otp/generate and GET /api/admin/otp/generate response: the base32 secret and its otpauth:// URL. */
export const OtpGenerateResponseSchema = z.object({
  /** The base32 secret (RFC 4648, no padding), 160 bits. */
  Secret: z.string(),
  /** `otpauth://totp/Postern:<UserName>?secret=…&issuer=Postern`, for a QR code. */
  URL: z.string(),
});
/** GET /api/otp/generate response. */
export type OtpGenerateResponse = z.infer<typeof OtpGenerateResponseSchema>;

/** POST /api/otp/verify body: the 6-digit code from the authenticator. */
export const OtpVerifyRequestSchema = z.object({ Code: z.string().max(OTP_CODE_MAX_LENGTH) });
/** POST /api/otp/verify body. */
export type OtpVerifyRequest = z.infer<typeof OtpVerifyRequestSchema>;

/** POST /api/otp/verify response: like a successful POST /api/login, the session end (ISO 8601 UTC). */
export const OtpVerifyResponseSchema = z.object({ Ends: z.string() });
/** POST /api/otp/verify response. */
export type OtpVerifyResponse = z.infer<typeof OtpVerifyResponseSchema>;

/**
 * POST /api/admin/otp/verify body: either `{Code}` or `{deferEnrolment: true}` (enrolment put off
 * for this sign-in, only when the server allows it). Both, or neither, is 400 "Bad request".
 */
export const AdminOtpVerifyRequestSchema = z
  .object({
    Code: z.string().max(OTP_CODE_MAX_LENGTH).optional(),
    deferEnrolment: z.boolean().optional(),
  })
  .refine((b) => (b.deferEnrolment === true) !== (b.Code !== undefined), {
    message: "give either Code or deferEnrolment: true",
    path: ["Code"],
  });
/** POST /api/admin/otp/verify body. */
export type AdminOtpVerifyRequest = z.infer<typeof AdminOtpVerifyRequestSchema>;

/**
 * Two-factor codes (TOTP) for users and admins: enrolment and verification after the password
 * (docs/reference.md user-portal §4 "Login outcomes", §7 GET /otp/generate and POST /otp/verify; docs/reference.md admin-console §7
 * GET /admin/otp/generate and POST /admin/otp/verify with {Code} or {deferEnrolment}).
 */
import { z } from "zod";

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

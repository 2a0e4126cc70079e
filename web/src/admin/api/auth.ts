/**
 * Admin sign-in calls (docs/reference.md admin-console §7): POST /admin/login, POST /admin/logout, GET
 * /admin/otp/generate, POST /admin/otp/verify with {Code} or {deferEnrolment: true}. Login
 * outcomes arrive as ApiError: 401 err.totpVerificationRequired / err.totpEnrolmentRequired.
 */
import type { AdminLoginRequest, AdminOtpVerifyRequest, OtpGenerateResponse } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";

/** POST /api/admin/login. */
export async function adminLogin(request: AdminLoginRequest): Promise<void> {
  await apiRequest("POST", "/admin/login", { body: request, redirectOnInvalidSession: false });
}

/** POST /api/admin/logout. */
export async function adminLogout(): Promise<void> {
  await apiRequest("POST", "/admin/logout", { redirectOnInvalidSession: false });
}

/** GET /api/admin/otp/generate: the secret to enrol and its otpauth:// URL. */
export async function generateAdminOtp(): Promise<OtpGenerateResponse> {
  return await apiRequest<OtpGenerateResponse>("GET", "/admin/otp/generate", { redirectOnInvalidSession: false });
}

/** POST /api/admin/otp/verify: completes a sign-in that owes its code (or defers the enrolment). */
export async function verifyAdminOtp(request: AdminOtpVerifyRequest): Promise<void> {
  await apiRequest("POST", "/admin/otp/verify", { body: request, redirectOnInvalidSession: false });
}

/**
 * The user-side calls (docs/reference.md user-portal §7). Bodies use the spec's PascalCase fields.
 * Responses are checked for their shape by hand: zod would add ~90 KB gzip to the bundle.
 */
import type {
  ChangePasswordRequest,
  GrantRequest,
  LoginRequest,
  OtpGenerateResponse,
  PortIp,
  SessionStatus,
} from "@postern/shared";
import { parseDiscoveryAnswer } from "../lib/ip-discovery.ts";
import { ApiError, apiRequest, API_BASE } from "../../ui/api/client.ts";

/** POST /api/login `{UserName, Password, KioskMode}`. Login outcomes arrive as ApiError (see login-outcome.ts). */
export async function login(request: LoginRequest): Promise<void> {
  await apiRequest("POST", "/login", { body: request, redirectOnInvalidSession: false });
}

/** POST /api/logout. */
export async function logout(): Promise<void> {
  await apiRequest("POST", "/logout", { redirectOnInvalidSession: false });
}

/** Minimal shape check of GET /api/status; throws on a body that is not a session status. */
function asSessionStatus(value: unknown): SessionStatus {
  const v = value as Partial<SessionStatus> | undefined;
  if (typeof v !== "object" || v === null || typeof v.Ends !== "string" || !Array.isArray(v.ACLs)) {
    throw new TypeError("Unexpected response from /api/status");
  }
  return v as SessionStatus;
}

/** GET /api/status: the session user with its ACL entries (docs/reference.md user-portal §3). */
export async function getStatus(
  options: { signal?: AbortSignal; redirectOnInvalidSession?: boolean } = {},
): Promise<SessionStatus> {
  return asSessionStatus(await apiRequest("GET", "/status", options));
}

/** POST /api/grant `{ACLID, IPs}`: asks for the current IP (the discovered IPs are hints) to be granted. */
export async function grant(request: GrantRequest): Promise<void> {
  await apiRequest("POST", "/grant", { body: request });
}

/** DELETE /api/sessions/current/granted-acls/{id}, `id` being the status entry's `ID`. */
export async function revoke(statusEntryId: string): Promise<void> {
  await apiRequest("DELETE", `/sessions/current/granted-acls/${encodeURIComponent(statusEntryId)}`);
}

/** POST /api/log_ips `{IPs}`: the discovered addresses; resolves with those the server confirmed. */
export async function logIps(IPs: PortIp[]): Promise<string[]> {
  const body = await apiRequest<{ Confirmed?: unknown } | undefined>("POST", "/log_ips", { body: { IPs } });
  return Array.isArray(body?.Confirmed) ? body.Confirmed.filter((ip): ip is string => typeof ip === "string") : [];
}

/** POST /api/otp/verify `{Code}`: completes a sign-in that owes its two-factor code. */
export async function verifyOtp(code: string): Promise<void> {
  await apiRequest("POST", "/otp/verify", { body: { Code: code }, redirectOnInvalidSession: false });
}

/** GET /api/otp/generate `{Secret, URL}`: the secret to enrol (base32) and its otpauth:// URL. */
export async function generateOtp(): Promise<OtpGenerateResponse> {
  const body = await apiRequest<Partial<OtpGenerateResponse> | undefined>("GET", "/otp/generate", {
    redirectOnInvalidSession: false,
  });
  if (typeof body?.Secret !== "string" || typeof body.URL !== "string")
    throw new TypeError("Unexpected response from /api/otp/generate");
  return { Secret: body.Secret, URL: body.URL };
}

/** PUT /api/password `{CurrentPassword, NewPassword, ConfirmPassword}` (204). */
export async function changePassword(request: Required<ChangePasswordRequest>): Promise<void> {
  await apiRequest("PUT", "/password", { body: request });
}

/** GET /api/saml/metadata: true when SAML sign-in is configured (200), false on 404 or any failure. */
export async function isSamlAvailable(): Promise<boolean> {
  try {
    await apiRequest("GET", "/saml/metadata", {
      redirectOnInvalidSession: false,
      accept: "application/samlmetadata+xml, application/json",
    });
    return true;
  } catch (error) {
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/** The URL of the SSO sign-in redirect (docs/reference.md user-portal §7: api/login/saml with a kioskMode query parameter). */
export function samlLoginUrl(kioskMode: boolean): string {
  return `${API_BASE}/login/saml?kioskMode=${kioskMode ? "true" : "false"}`;
}

/**
 * Asks one IP-discovery URL (docs/reference.md user-portal §7) for the caller's address; `credentials` sends the
 * session cookie (own host only). Rejects on a failure, a timeout (`timeoutMs`) or an answer without
 * an address.
 */
export async function discoverIp(url: string, credentials: boolean, timeoutMs: number): Promise<string> {
  const response = await fetch(url, {
    credentials: credentials ? "include" : "omit",
    cache: "no-store",
    signal: AbortSignal.timeout(timeoutMs),
    headers: { Accept: "application/json" },
  });
  if (!response.ok) throw new Error(`IP discovery: HTTP ${response.status}`);
  const ip = parseDiscoveryAnswer(await response.text());
  if (ip === undefined) throw new Error("IP discovery: no address in the answer");
  return ip;
}

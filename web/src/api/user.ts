/**
 * The user-side calls (user-portal §7). Bodies use the spec's PascalCase fields.
 * Responses are checked for their shape by hand: zod would add ~90 KB gzip to the bundle.
 */
import type { GrantRequest, LoginRequest, SessionStatus, SystemStatus, Theme } from "@postern/shared";
import { apiRequest } from "./client.ts";

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

/** GET /api/status: the session user with its ACL entries (user-portal §3). */
export async function getStatus(options: { signal?: AbortSignal; redirectOnInvalidSession?: boolean } = {}): Promise<SessionStatus> {
  return asSessionStatus(await apiRequest("GET", "/status", options));
}

/** POST /api/grant `{ACLID, IPs}`: asks for the current IP (plus IPs) to be granted. */
export async function grant(request: GrantRequest): Promise<void> {
  await apiRequest("POST", "/grant", { body: request });
}

/** DELETE /api/sessions/current/granted-acls/{id}, `id` being the status entry's `ID`. */
export async function revoke(statusEntryId: string): Promise<void> {
  await apiRequest("DELETE", `/sessions/current/granted-acls/${encodeURIComponent(statusEntryId)}`);
}

/** GET /api/theme `{Accent, HighAccessibility}`. */
export async function getTheme(): Promise<Theme> {
  return await apiRequest<Theme>("GET", "/theme", { redirectOnInvalidSession: false });
}

/** GET /api/system_status `{IPApi, JsBundleHash}`. */
export async function getSystemStatus(): Promise<SystemStatus> {
  return await apiRequest<SystemStatus>("GET", "/system_status", { redirectOnInvalidSession: false });
}

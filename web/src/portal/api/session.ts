/**
 * The signed-in user's status as the route guards see it (docs/reference.md user-portal §2 "Navigation guards"),
 * cached for the auth-data lifetime of docs/reference.md user-portal §9 (180 s). The dashboard refreshes it itself.
 */
import type { SessionStatus } from "@postern/shared";
import { CacheTtlMs } from "../../ui/lib/cache.ts";
import { ApiError } from "../../ui/api/client.ts";
import { getStatus } from "./user.ts";

/** Cache lifetime of auth data in milliseconds (docs/reference.md user-portal §9: 180 s). */
export const AUTH_CACHE_MS = CacheTtlMs.auth;

let cached: { status: SessionStatus; at: number } | undefined;

/** Stores a freshly fetched status (called by the dashboard after each refresh). */
export function rememberSession(status: SessionStatus): void {
  cached = { status, at: Date.now() };
}

/** Milliseconds since the cached status was fetched (Infinity when nothing is cached). */
export function sessionAgeMs(): number {
  return cached === undefined ? Number.POSITIVE_INFINITY : Date.now() - cached.at;
}

/** Forgets the cached status (after login, logout, or an invalid session). */
export function forgetSession(): void {
  cached = undefined;
}

/**
 * The current session's status, or null when there is none (401). Uses the cached value when it is
 * younger than `maxAgeMs`. Other failures (server unreachable, 500) reject with ApiError.
 */
export async function loadSession(maxAgeMs: number = AUTH_CACHE_MS): Promise<SessionStatus | null> {
  if (cached !== undefined && Date.now() - cached.at < maxAgeMs) return cached.status;
  try {
    const status = await getStatus({ redirectOnInvalidSession: false });
    rememberSession(status);
    return status;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      forgetSession();
      return null;
    }
    throw error;
  }
}

/** Where a signed-in user lands (docs/reference.md user-portal §2): /home/new when NewUserDashboard is set, else /home. */
export function homePathFor(status: Pick<SessionStatus, "NewUserDashboard">): "/home/new" | "/home" {
  return status.NewUserDashboard ? "/home/new" : "/home";
}

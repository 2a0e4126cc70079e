/**
 * GET /api/admin/status (docs/reference.md admin-console §3 "Admin status"): the header (banner, guards) reads it
 * every 180 s, the admin home every 30 s. The route guards use it to tell whether an admin is
 * signed in.
 */
import { queryOptions } from "@tanstack/react-query";
import type { QueryClient } from "@tanstack/react-query";
import type { AdminStatus } from "@postern/shared";
import { ApiError, apiRequest } from "../../ui/api/client.ts";
import { RefetchMs, StaleMs } from "./policy.ts";

/** GET /api/admin/status. `redirect` false for the guards (a 401 there is an answer, not an event). */
export async function getAdminStatus(redirect = true): Promise<AdminStatus> {
  return await apiRequest<AdminStatus>("GET", "/admin/status", { redirectOnInvalidSession: redirect });
}

/** Query options of the admin status. */
export const statusQueries = {
  all: ["admin", "status"] as const,
  /** The header's read: every 180 s. */
  header: () =>
    queryOptions({
      queryKey: statusQueries.all,
      queryFn: () => getAdminStatus(),
      staleTime: StaleMs.headerStatus,
      refetchInterval: RefetchMs.headerStatus,
    }),
  /** The admin home's read: every 30 s, even in the background. */
  home: () =>
    queryOptions({
      queryKey: statusQueries.all,
      queryFn: () => getAdminStatus(),
      staleTime: 0,
      refetchInterval: RefetchMs.homeStatus,
      refetchIntervalInBackground: true,
    }),
};

/**
 * The admin status when an admin is signed in, null when not (401/403); a cached answer younger
 * than 180 s is reused. Other failures (server unreachable) reject.
 */
export async function loadAdminSession(client: QueryClient): Promise<AdminStatus | null> {
  try {
    return await client.fetchQuery({
      queryKey: statusQueries.all,
      queryFn: () => getAdminStatus(false),
      staleTime: StaleMs.headerStatus,
    });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
}

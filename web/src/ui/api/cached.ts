/**
 * Server data read through the page's time-to-live cache (portal and admin console) (docs/reference.md user-portal §9: auth 180 s, theme
 * 600 s, default 300 s). The route guards' session status has its own cache in session.ts.
 */
import type { SystemStatus, Theme } from "@postern/shared";
import { CacheTtlMs, TtlCache } from "../lib/cache.ts";
import { getSystemStatus, getTheme, isLogoAvailable } from "./public.ts";

/** The one cache of the page. */
export const serverCache = new TtlCache();

/** GET /api/theme, cached for 600 s. */
export function cachedTheme(): Promise<Theme> {
  return serverCache.get("theme", CacheTtlMs.theme, getTheme);
}

/** Whether a logo is set for the mode, cached for 600 s (it is part of the theme). */
export function cachedLogoAvailable(mode: "dark" | "light"): Promise<boolean> {
  return serverCache.get(`logo.${mode}`, CacheTtlMs.theme, () => isLogoAvailable(mode));
}

/**
 * GET /api/system_status. `fresh` always asks the server (the bundle check after a navigation)
 * and stores the answer; otherwise an answer younger than 300 s is reused (IP discovery).
 */
export async function cachedSystemStatus(fresh: boolean): Promise<SystemStatus> {
  if (!fresh) return serverCache.get("system_status", CacheTtlMs.default, getSystemStatus);
  const status = await getSystemStatus();
  serverCache.set("system_status", status);
  return status;
}

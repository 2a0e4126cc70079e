/**
 * The public calls both apps make before or without a sign-in (docs/reference.md user-portal §7, docs/reference.md admin-console §7):
 * the theme, the system status (bundle hash, IP discovery) and the branding logo. Responses are
 * shape-checked by hand (no zod in the portal's bundle).
 */
import type { SystemStatus, Theme } from "@postern/shared";
import { apiRequest, API_BASE } from "./client.ts";

/** GET /api/theme `{Accent, HighAccessibility}`. */
export async function getTheme(): Promise<Theme> {
  return await apiRequest<Theme>("GET", "/theme", { redirectOnInvalidSession: false });
}

/** GET /api/system_status `{IPApi, IPApiPorts, JsBundleHash}`; an older server without IPApiPorts gives []. */
export async function getSystemStatus(): Promise<SystemStatus> {
  const body = await apiRequest<Partial<SystemStatus> | undefined>("GET", "/system_status", {
    redirectOnInvalidSession: false,
  });
  return {
    IPApi: typeof body?.IPApi === "string" ? body.IPApi : "",
    IPApiPorts: Array.isArray(body?.IPApiPorts) ? body.IPApiPorts.filter((p) => typeof p === "number") : [],
    JsBundleHash: typeof body?.JsBundleHash === "string" ? body.JsBundleHash : "",
  };
}

/** The URL of the branding logo for a colour mode (GET /api/logo?mode=dark|light). */
export function logoUrl(mode: "dark" | "light"): string {
  return `${API_BASE}/logo?mode=${mode}`;
}

/** HEAD /api/logo?mode=…: whether a logo is set for the mode (false on 404 or any failure). */
export async function isLogoAvailable(mode: "dark" | "light"): Promise<boolean> {
  try {
    const response = await fetch(logoUrl(mode), { method: "HEAD", credentials: "include" });
    return response.ok;
  } catch {
    return false;
  }
}

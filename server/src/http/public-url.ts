/**
 * The URL agents and browsers reach this server at: the PublicURL setting when set, otherwise the
 * origin of the current request.
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { getSetting } from "../services/settings.ts";

/** The server's public base URL without a trailing slash. */
export function publicUrl(c: Context<AppEnv>): string {
  const configured = getSetting(c.var.services.db, "PublicURL");
  return (configured || new URL(c.req.url).origin).replace(/\/+$/, "");
}

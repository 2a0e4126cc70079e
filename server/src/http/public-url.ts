/**
 * The URL agents and browsers reach this server at: the PublicURL setting when set, otherwise the
 * request's host with https when it came over TLS (directly or per a trusted proxy), else http.
 */
import type { Context } from "hono";
import type { AppEnv } from "./context.ts";
import { getSetting } from "../services/settings.ts";

/** The server's public base URL without a trailing slash. */
export async function publicUrl(c: Context<AppEnv>): Promise<string> {
  const configured = await getSetting(c.get("services").db, "PublicURL");
  const origin = `${c.get("tls") ? "https" : "http"}://${new URL(c.req.url).host}`;
  return (configured || origin).replace(/\/+$/, "");
}

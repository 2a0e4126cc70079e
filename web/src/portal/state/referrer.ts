/**
 * The pending "back to the protected page" referrer (issue #14 item 3), kept in this tab's
 * sessionStorage from the Login page through the login form, the SAML round trip and the two-factor
 * pages to the dashboard. sessionStorage never leaves the browser (no third party sees it) and dies
 * with the tab; an entry older than REFERRER_TTL_MS is dropped. Unavailable storage (private modes,
 * blocked cookies) means no referrer: the dashboard shows as usual.
 */
import { readJson, writeJson } from "../../ui/lib/storage.ts";
import { MAX_REFERRER_LENGTH } from "../lib/referrer.ts";

/** The sessionStorage key of the pending referrer: `{url: string, at: epoch ms}`. */
export const REFERRER_KEY = "postern.referrer";

/** How long a stored referrer stays usable, in milliseconds (30 minutes: time to sign in and enrol 2FA). */
export const REFERRER_TTL_MS = 30 * 60_000;

function tabStorage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Stores `url` (raw text, validated only when used; over-long text is not stored) as the pending referrer, stamped `nowMs`. */
export function stashReferrer(url: string, nowMs = Date.now()): void {
  if (url === "" || url.length > MAX_REFERRER_LENGTH) return;
  writeJson(tabStorage(), REFERRER_KEY, { url, at: nowMs });
}

/** The pending referrer's raw text, or undefined when none is stored, it is damaged or older than REFERRER_TTL_MS. */
export function pendingReferrer(nowMs = Date.now()): string | undefined {
  const value = readJson(tabStorage(), REFERRER_KEY);
  if (typeof value !== "object" || value === null) return undefined;
  const { url, at } = value as { url?: unknown; at?: unknown };
  if (typeof url !== "string" || typeof at !== "number") return undefined;
  if (nowMs - at > REFERRER_TTL_MS || at > nowMs + 60_000) return undefined;
  return url;
}

/** Forgets the pending referrer (once followed or ignored, and at logout). */
export function clearReferrer(): void {
  try {
    tabStorage()?.removeItem(REFERRER_KEY);
  } catch {
    // nothing stored then
  }
}

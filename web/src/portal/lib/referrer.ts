/**
 * "Back to the protected page" (issue #14 item 3, docs/decisions.md "Back to the protected page"): the
 * portal opened as `/?referrer=<url>` sends the browser back to that URL once the grant of a Knoc at
 * the same origin is Granted. Pure rules only: parsing the referrer, matching it to the user's Knocs
 * by origin (scheme + host + port, never a prefix or host alone: no open redirect), and deciding
 * between follow, wait and ignore for a session status.
 */
import { GrantStatus } from "@postern/shared";
import type { StatusAcl } from "@postern/shared";

/** Longest referrer kept, in characters (longer ones are ignored; browsers cut URLs near there). */
export const MAX_REFERRER_LENGTH = 4096;

/**
 * The referrer as an absolute http(s) URL, or undefined when it is not one: other schemes
 * (javascript:, data:, ftp:, …), relative or malformed text, URLs with a user name or password, or
 * text longer than MAX_REFERRER_LENGTH.
 */
export function parseReferrer(raw: string): URL | undefined {
  if (raw === "" || raw.length > MAX_REFERRER_LENGTH) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.username !== "" || url.password !== "" || url.hostname === "") return undefined;
  return url;
}

/** The origin (scheme://host:port, default ports left out) of an http(s) URL, or undefined. */
function httpOrigin(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The status entries whose Knoc URL has the referrer's origin (scheme, host and port all equal;
 * `http://h` and `http://h:80` are the same origin). Entries disabled for this user are left out:
 * they cannot be granted.
 */
export function matchingAcls(referrer: URL, acls: readonly StatusAcl[]): StatusAcl[] {
  return acls.filter((acl) => !acl.DisableForUser && httpOrigin(acl.URL) === referrer.origin);
}

/** Why a referrer is not followed: not an http(s) URL of one of the user's Knocs, or the grant failed. */
export type IgnoreReason = "noMatch" | "failed";

/**
 * What to do with a referrer for the current status:
 * - `follow`: a matching Knoc is Granted (0); go to `url` (the referrer as written, path included).
 * - `wait`: a grant of `acl` is on its way (Pending, Read, Published, AgentOffline, Revoking): keep
 *   polling; `needsClick` when nothing is on its way and the user has to press Grant (ready states
 *   4 and 9: click-to-grant Knocs, or one the user revoked; never a Knoc hidden from users).
 * - `ignore`: no matching Knoc (or only hidden ones waiting for a click), or every matching grant
 *   ended in an error (1 or 10): `reason` "failed" with the failed entry as `acl`.
 */
export type ReferrerDecision =
  | { kind: "follow"; url: string }
  | { kind: "wait"; acl: StatusAcl; needsClick: boolean }
  | { kind: "ignore"; reason: IgnoreReason; acl?: StatusAcl };

const ERRORS: readonly number[] = [GrantStatus.GrantError, GrantStatus.RevokedWithError];
const READY: readonly number[] = [GrantStatus.Created, GrantStatus.Revoked];

/**
 * Decides for the raw referrer text and the session's ACL entries (GET /api/status). With several
 * matching Knocs, one Granted is enough; otherwise one on its way wins over one waiting for a click,
 * which wins over failed ones.
 */
export function referrerDecision(raw: string, acls: readonly StatusAcl[]): ReferrerDecision {
  const referrer = parseReferrer(raw);
  if (referrer === undefined) return { kind: "ignore", reason: "noMatch" };
  const matches = matchingAcls(referrer, acls);
  if (matches.length === 0) return { kind: "ignore", reason: "noMatch" };
  if (matches.some((acl) => acl.Status === GrantStatus.Granted)) return { kind: "follow", url: referrer.href };
  const onItsWay = matches.find((acl) => !ERRORS.includes(acl.Status) && !READY.includes(acl.Status));
  if (onItsWay !== undefined) return { kind: "wait", acl: onItsWay, needsClick: false };
  const ready = matches.find((acl) => READY.includes(acl.Status) && !acl.HideFromUsers);
  if (ready !== undefined) return { kind: "wait", acl: ready, needsClick: true };
  const failed = matches.find((acl) => ERRORS.includes(acl.Status));
  return failed === undefined
    ? { kind: "ignore", reason: "noMatch" }
    : { kind: "ignore", reason: "failed", acl: failed };
}

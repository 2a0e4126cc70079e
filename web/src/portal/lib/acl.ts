/**
 * Pure rules for the ACL cards of the dashboard (docs/reference.md user-portal §2 "New dashboard", §4 "Grant status codes").
 */
import { GrantStatus, isIssued, isReady, POLL_STOP_STATUSES } from "@postern/shared";
import type { StatusAcl } from "@postern/shared";

/**
 * What the card's button does: revoke, grant, nothing yet (pending), or withdraw a request still waiting for an
 * approver (docs/decisions.md "Approval requests").
 */
export type AclAction = "revoke" | "grant" | "pending" | "withdraw";

/**
 * The button of an ACL (docs/reference.md user-portal §4): "Revoke Access" when a grant is issued (0, 5, 6, 8) or its
 * expiry lies in the future; "Grant Access" when ready (4, 9); "Pending" while pending (2).
 * Decisions where the spec is silent: AgentOffline (3) keeps a queued grant, so it offers revoke to
 * withdraw it; the error states (1, 10) offer grant to try again. An entry waiting for an approver (Status 2 with
 * ApprovalState "pending") offers to withdraw the request.
 */
export function aclAction(
  acl: Pick<StatusAcl, "Status" | "ExpiredAfter"> & Partial<Pick<StatusAcl, "ApprovalState">>,
  nowMs: number,
): AclAction {
  if (isIssued(acl.Status) || expiresInFuture(acl.ExpiredAfter, nowMs)) return "revoke";
  if (acl.Status === GrantStatus.Pending) return acl.ApprovalState === "pending" ? "withdraw" : "pending";
  if (acl.Status === GrantStatus.AgentOffline) return "revoke";
  return "grant";
}

function expiresInFuture(iso: string, nowMs: number): boolean {
  if (iso === "") return false;
  const t = Date.parse(iso);
  return !Number.isNaN(t) && t > nowMs;
}

/** The badge shown for a status code; `data-status` carries the code itself. */
export type BadgeKind =
  | "granted"
  | "error"
  | "pending"
  | "offline"
  | "ready"
  | "applying"
  | "published"
  | "revoking"
  | "revokeError"
  | "unknown";

/** Maps a grant status code (docs/reference.md user-portal §4) to its badge. Ready covers 4 and 9. */
export function badgeKind(status: number): BadgeKind {
  switch (status) {
    case GrantStatus.Granted:
      return "granted";
    case GrantStatus.GrantError:
      return "error";
    case GrantStatus.Pending:
      return "pending";
    case GrantStatus.AgentOffline:
      return "offline";
    case GrantStatus.Read:
      return "applying";
    case GrantStatus.Published:
      return "published";
    case GrantStatus.Revoking:
      return "revoking";
    case GrantStatus.RevokedWithError:
      return "revokeError";
    default:
      return isReady(status) ? "ready" : "unknown";
  }
}

/** ACLs the user sees: those with HideFromUsers are left out (docs/reference.md user-portal §4). */
export function visibleAcls(acls: readonly StatusAcl[]): StatusAcl[] {
  return acls.filter((acl) => !acl.HideFromUsers);
}

/** The category name the server uses for uncategorised ACLs; shown as "Other" and sorted last. */
export const DEFAULT_CATEGORY = "Default";

/** One category section of the card view. `isDefault` marks the "Other" section. */
export interface AclGroup {
  category: string;
  isDefault: boolean;
  acls: StatusAcl[];
}

/**
 * Groups ACLs by Category (docs/reference.md user-portal §2 card view): categories sorted by name with the Default
 * (or empty) category last, ACLs within a category sorted by Description. `collator` decides the
 * order of names (pass the UI locale's Intl.Collator).
 */
export function groupByCategory(acls: readonly StatusAcl[], collator: Intl.Collator): AclGroup[] {
  const groups = new Map<string, StatusAcl[]>();
  for (const acl of acls) {
    const key = acl.Category.trim() === "" ? DEFAULT_CATEGORY : acl.Category;
    const list = groups.get(key);
    if (list) list.push(acl);
    else groups.set(key, [acl]);
  }
  return [...groups.entries()]
    .map(([category, list]) => ({
      category,
      isDefault: category === DEFAULT_CATEGORY,
      acls: list.sort((a, b) => collator.compare(a.Description, b.Description)),
    }))
    .sort((a, b) => Number(a.isDefault) - Number(b.isDefault) || collator.compare(a.category, b.category));
}

/** Case-insensitive match of the search box against Description, Category and URL. */
export function matchesSearch(acl: StatusAcl, query: string): boolean {
  const q = query.trim().toLocaleLowerCase();
  if (q === "") return true;
  return [acl.Description, acl.Category, acl.URL].some((field) => field.toLocaleLowerCase().includes(q));
}

/** True for absolute http(s) URLs, the only ones the portal links to or browses to. */
export function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * The URL to browse to automatically (docs/reference.md user-portal §2): set only when exactly one visible ACL has
 * AutoBrowseUsers and an http(s) URL.
 */
export function autoBrowseTarget(acls: readonly StatusAcl[]): string | undefined {
  const candidates = acls.filter((acl) => acl.AutoBrowseUsers && !acl.HideFromUsers && isHttpUrl(acl.URL));
  return candidates.length === 1 ? candidates[0]?.URL : undefined;
}

/**
 * What is being polled for: the outcome of a grant or revoke, or ("referrer") a grant the portal
 * waits for to send the browser back to the protected page (lib/referrer.ts).
 */
export type WatchedAction = "grant" | "revoke" | "referrer";

/** Where a grant the referrer waits for has settled: Granted, an error, or ready (not granted). */
const REFERRER_SETTLED: readonly number[] = [
  GrantStatus.Granted,
  GrantStatus.GrantError,
  GrantStatus.Created,
  GrantStatus.Revoked,
  GrantStatus.RevokedWithError,
];

/**
 * Whether polling after a grant or revoke may stop for this status (docs/reference.md user-portal §4: stop at 1, 3,
 * 4, 6). It also stops at the goal: Granted (0) after a grant, Revoked (9) after a revoke; a 0 seen
 * right after a revoke (or a 9 right after a grant) is the state before the change, so it keeps going.
 * A "referrer" watch goes on through Published (6) and AgentOffline (3) until the grant settles
 * (0, 1, 4, 9, 10): the browser leaves the page at Granted, which Published only precedes.
 */
export function pollDone(status: number, action: WatchedAction): boolean {
  if (action === "referrer") return REFERRER_SETTLED.includes(status);
  if ((POLL_STOP_STATUSES as readonly number[]).includes(status)) return true;
  return action === "grant" ? status === GrantStatus.Granted : status === GrantStatus.Revoked;
}

/** Delay before poll number `attempt` (0-based) after a grant or revoke: 1, 2, 4, 8, 8, … seconds. */
export function pollDelayMs(attempt: number, capMs = 8000): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt), capMs);
}

/** Polls after one grant or revoke stop after this many attempts (~2 minutes at the 8 s cap). */
export const MAX_POLL_ATTEMPTS = 18;

const UNSAFE_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "blob:", "file:"]);

/**
 * True when an ACL's URL may be shown as a link: an absolute URL whose scheme is not script- or
 * data-like (http(s), ssh, rdp, … are fine).
 */
export function isLinkableUrl(url: string): boolean {
  try {
    return !UNSAFE_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** Short text for a link: host (and port) for URLs with one, else the URL itself. */
export function linkLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.host !== "" ? parsed.host : url;
  } catch {
    return url;
  }
}

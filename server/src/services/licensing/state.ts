/**
 * Licence state (docs/reference.md user-portal §4 "License states"; docs/reference.md admin-console §2 banner, §4 license banner
 * states, §9 "License expiry warning: 60 days"). Pure functions of the licence, the counted users
 * and the time; times are epoch milliseconds.
 */
import { Limits, overageCount } from "@postern/shared";
import type { LicensePayload, LicenseState } from "@postern/shared";

/** How long before Expires a licence is "expiring soon", in milliseconds (60 days). */
export const EXPIRY_WARNING_MS = Limits.licenseExpiryWarningDays * 24 * 60 * 60 * 1000;

/** Users a licence admits: UserLimit plus the overage count (docs/reference.md admin-console §5, §9). */
export function allowedUsers(p: LicensePayload): number {
  return p.UserLimit + overageCount(p);
}

/** Expires as epoch milliseconds; null for never. */
export function expiresAt(p: LicensePayload): number | null {
  return p.Expires === null ? null : Date.parse(p.Expires);
}

/** True from the instant Expires is reached. A licence without Expires never expires. */
export function isExpired(p: LicensePayload, now: number): boolean {
  const end = expiresAt(p);
  return end !== null && now >= end;
}

/**
 * The state of an installed licence with `userCount` counted users at `now`: expired when Expires
 * has passed; otherwise overLimit when more users than UserLimit are counted (the overage is a
 * grace, still over the limit); otherwise expiringSoon when Expires is at most 60 days away;
 * otherwise active. (No licence at all is "unlicensed", decided by the caller.)
 */
export function licenceState(p: LicensePayload, userCount: number, now: number): Exclude<LicenseState, "unlicensed"> {
  const end = expiresAt(p);
  if (end !== null && now >= end) return "expired";
  if (userCount > p.UserLimit) return "overLimit";
  if (end !== null && end - now <= EXPIRY_WARNING_MS) return "expiringSoon";
  return "active";
}

/**
 * Business constants and limits of the spec (docs/reference.md user-portal §9, docs/reference.md admin-console §9). Units are in the names.
 */
export const Limits = {
  passwordMinLength: 8,
  passwordMaxLength: 64,
  /** MaximumGrantDuration is edited in minutes (5–40320) and stored/sent in seconds. */
  maximumGrantDurationMinMinutes: 5,
  maximumGrantDurationMaxMinutes: 40320,
  kioskSessionDurationMinMinutes: 5,
  kioskSessionDurationMaxMinutes: 120,
  defaultUserDurationMinutes: 480,
  /** Upper bound of a user's session Duration in minutes (one year); the spec gives only min 1. */
  maxUserDurationMinutes: 525_600,
  ipRevalidationSeconds: 30,
  statusRefreshSeconds: 30,
  expiringSoonSeconds: 900,
  searchAboveAclCount: 10,
  topAboveAclCount: 20,
  topCount: 5,
  licenseExpiryWarningDays: 60,
  auditLogPageSize: 25,
} as const;

/** The all-zero UUID that means "none" (docs/reference.md admin-console §3). */
export const NONE_ID = "00000000-0000-0000-0000-000000000000";

/**
 * Pure time formatting for the session countdown and grant badges (docs/reference.md user-portal §2, §4, §9).
 * No i18n here: the unit letters are the international abbreviations (d, h, m, s).
 */

/** Whole seconds from `nowMs` until the ISO time `iso`; negative when past, NaN when unparsable. */
export function secondsUntil(iso: string, nowMs: number): number {
  const end = Date.parse(iso);
  if (Number.isNaN(end)) return Number.NaN;
  return Math.floor((end - nowMs) / 1000);
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/**
 * Session countdown text `hh:mm:ss` (docs/reference.md user-portal §2 "session countdown in hh:mm:ss").
 * Negative or NaN seconds show `00:00:00`; hours grow past 99 (`120:00:00`) rather than wrap.
 */
export function formatHms(totalSeconds: number): string {
  const s = Number.isFinite(totalSeconds) ? Math.max(0, Math.floor(totalSeconds)) : 0;
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  return `${pad2(hours)}:${pad2(minutes)}:${pad2(s % 60)}`;
}

/**
 * Compact time left for a grant badge, two units at most: `2d 3h`, `1h 05m`, `14m 59s`, `45s`.
 * Returns an empty string for non-positive or NaN seconds (nothing left to show).
 */
export function formatTimeLeft(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds) || totalSeconds <= 0) return "";
  const s = Math.floor(totalSeconds);
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${pad2(minutes)}m`;
  if (minutes > 0) return `${minutes}m ${pad2(seconds)}s`;
  return `${seconds}s`;
}

/** True when a positive time left is below the expiring-soon threshold (docs/reference.md user-portal §9: 900 s). */
export function isExpiringSoon(totalSeconds: number, thresholdSeconds: number): boolean {
  return Number.isFinite(totalSeconds) && totalSeconds > 0 && totalSeconds < thresholdSeconds;
}

/** Whole days from `nowMs` until the ISO time `iso` (rounded up), or undefined when not a time. */
export function daysUntil(iso: string | null, nowMs: number): number | undefined {
  if (iso === null || iso === "") return undefined;
  const end = Date.parse(iso);
  if (Number.isNaN(end)) return undefined;
  return Math.ceil((end - nowMs) / 86_400_000);
}

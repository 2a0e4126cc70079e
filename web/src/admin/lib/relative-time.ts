/** Relative dates of the admin console ("3 minutes ago"), in the page's locale (docs/reference.md admin-console §2 "relative date"). */

const STEPS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];

/** "5 minutes ago" / "in 2 days" for an ISO time relative to `nowMs`; "" for an unreadable time. */
export function relativeTime(iso: string, nowMs: number, locales: string | readonly string[]): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  let value = (at - nowMs) / 1000;
  const format = new Intl.RelativeTimeFormat(locales as string[], { numeric: "auto" });
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return format.format(Math.round(value), unit);
    value /= size;
  }
  return "";
}

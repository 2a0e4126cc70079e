/**
 * Server clock offset: the session countdown and grant expiries are absolute server times, so a
 * browser whose clock is off would count wrongly. Each API answer's `Date` header (1 s resolution)
 * gives the offset; offsets within ±2 s are treated as none to avoid jitter.
 */

let offsetMs = 0;

/** Ignore offsets smaller than this (the Date header is truncated to whole seconds). */
const TOLERANCE_MS = 2000;

/** Records the server time of one response (the HTTP `Date` header value); ignored when unparsable. */
export function noteServerDate(dateHeader: string | null, receivedAtMs: number = Date.now()): void {
  if (dateHeader === null) return;
  const server = Date.parse(dateHeader);
  if (Number.isNaN(server)) return;
  const offset = server + 500 - receivedAtMs;
  offsetMs = Math.abs(offset) < TOLERANCE_MS ? 0 : offset;
}

/** The current time on the server's clock, in ms since the epoch. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}

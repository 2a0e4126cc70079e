/**
 * Time source of the server. Every rule that depends on time (grant expiry, session end) reads
 * `clock.now()` so tests can move time forward instead of sleeping.
 */

/** A source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock for tests: real time plus an offset that `advance` moves forward. */
export class TestClock implements Clock {
  private offsetMs = 0;
  /** Current time in epoch milliseconds (real time + offset). */
  now(): number {
    return Date.now() + this.offsetMs;
  }
  /** Moves time forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** Formats epoch milliseconds as ISO 8601 UTC; null stays null. */
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/**
 * Each session's GET /status kept ready (issue #13 item 2; docs/decisions.md "The status kept per session"):
 * the pieces of its JSON text (status-json.ts) under a key made of the session's versions
 * (repositories/status.ts `versions`: counters that triggers in the database raise on every write the
 * status shows, so a write by any path or any replica on the same database changes the key) and the
 * session's own fields that the status shows. A kept status also has a time after which it is not
 * served (the first grant expiry or licence expiry it shows). Bounded: entries of ended sessions are
 * swept once a minute, and at most MAX_KEPT are kept (the oldest go first).
 */

/** At most this many sessions' statuses are kept. */
export const MAX_KEPT = 100_000;
/** How often (ms) entries of ended sessions are swept. */
const SWEEP_EVERY_MS = 60_000;

interface Kept {
  key: string;
  /** Epoch ms from which the entry is no longer served. */
  until: number;
  /** Epoch ms the session ends: the entry is swept from then. */
  endsAt: number;
  pieces: readonly string[];
}

/** The kept statuses of one database. */
export class StatusCache {
  readonly #kept = new Map<string, Kept>();
  #nextSweep = 0;

  /** The kept JSON text of `sessionId` when it was kept under `key` and `now` (epoch ms) is before its `until`. */
  get(sessionId: string, key: string, now: number): string | undefined {
    const e = this.#kept.get(sessionId);
    if (e === undefined || e.key !== key || now >= e.until) return undefined;
    return e.pieces.join("");
  }

  /**
   * Keeps `pieces` for `sessionId` under `key` until `until` (epoch ms; the session ends at `endsAt`).
   * The key must have been read BEFORE what the pieces were made of, so that a write in between only
   * makes the entry look older than it is.
   */
  set(sessionId: string, key: string, until: number, endsAt: number, pieces: readonly string[], now: number): void {
    if (now >= this.#nextSweep) this.sweep(now);
    this.#kept.delete(sessionId);
    if (this.#kept.size >= MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(sessionId, { key, until, endsAt, pieces });
  }

  /** Forgets every kept status (e.g. when the database is closed). */
  clear(): void {
    this.#kept.clear();
  }

  /** How many statuses are kept. */
  get size(): number {
    return this.#kept.size;
  }

  /** Drops the entries of sessions that ended by `now` (epoch ms) and those past their time. */
  private sweep(now: number): void {
    this.#nextSweep = now + SWEEP_EVERY_MS;
    for (const [id, e] of this.#kept) if (e.endsAt <= now || e.until <= now) this.#kept.delete(id);
  }
}

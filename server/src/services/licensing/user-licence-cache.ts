/**
 * `userLicence` for the hottest paths (GET /status, POST /grant; issue #13 items 1 and 2) without
 * reading the licence and counting users on every call. A user is licensed when its place in
 * creation order is below the licence's user limit, i.e. when its (CreatedAt, ID) is at most the
 * limit-th user's. Kept, by the change counters that triggers raise in the database (so a write by any
 * path or replica is seen):
 * - the installed licence, while the `licenses` counter stays the same;
 * - the limit-th user's rank key (the cut-off), while the `users` counter and the limit stay the same;
 * - each user's answer, while both counters stay the same.
 * Only reads on the cache's own database handle outside a transaction fill it: a counter value read
 * inside a transaction that is later rolled back can come back with other contents after it. Reads in
 * a transaction (the grant's) use what is kept and read the rest themselves. Gives the same answer as
 * gates.ts `userLicence` (a test compares them).
 */
import type { Db, Queryable } from "../../db/index.ts";
import * as repo from "../../repositories/licenses.ts";
import type { RankKey } from "../../repositories/licenses.ts";
import { readInstalledLicence, type InstalledLicence } from "./store.ts";
import { allowedUsers, expiresAt, isExpired } from "./state.ts";

/** The change counters a user's licence depends on (repositories/licenses.ts `licenceCounters`). */
export interface LicenceCounters {
  readonly licenses: number;
  readonly users: number;
}

/** At most this many users' answers are kept (then they are forgotten and read again). */
const MAX_ANSWERS = 100_000;

/** Keeps the licence facts of one database (one per server: the grant engine's). */
export class UserLicenceCache {
  readonly #db: Db;
  #licence: { counter: number; value: InstalledLicence } | undefined;
  #cutoff: { users: number; allowed: number; key: RankKey | undefined } | undefined;
  /** Each user's `licensed`, valid while the counters are `#answersOf`. */
  #answers = new Map<string, boolean>();
  #answersOf = "";

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * As gates.ts `userLicence`: `admitted` (the licence lets users in at all) and `licensed` (this user
   * is within the limit). `now` in epoch ms. `counters` as read with what the caller read before
   * (the status versions), or read here (one statement) when not given. `q` the handle to read the
   * rest on: the caller's transaction, or the cache's database (the default), which alone fills the cache.
   */
  async userLicence(
    userId: string,
    now: number,
    counters?: LicenceCounters,
    q: Queryable = this.#db,
  ): Promise<{ admitted: boolean; licensed: boolean }> {
    const c = counters ?? (await repo.licenceCounters(q));
    const fill = q === this.#db;
    const l = await this.#installed(c, q, fill);
    if (l.kind === "none") return { admitted: true, licensed: true };
    if (l.kind === "broken" || isExpired(l.payload, now)) return { admitted: false, licensed: false };
    const of = `${c.licenses}\u0001${c.users}`;
    const known = this.#answersOf === of ? this.#answers.get(userId) : undefined;
    if (known !== undefined) return { admitted: true, licensed: known };
    const licensed = await this.#rankWithin(userId, allowedUsers(l.payload), c.users, q, fill);
    if (fill) {
      if (this.#answersOf !== of || this.#answers.size >= MAX_ANSWERS) this.#answers = new Map();
      this.#answersOf = of;
      this.#answers.set(userId, licensed);
    }
    return { admitted: true, licensed };
  }

  /**
   * When (epoch ms) `userLicence` may answer otherwise by time alone — the installed licence's expiry
   * when it is still ahead of `now` — or null when only a change to the data would (what a status kept
   * per session needs: services/status-cache.ts). `counters` as for `userLicence`.
   */
  async changesAt(now: number, counters?: LicenceCounters): Promise<number | null> {
    const l = await this.#installed(counters ?? (await repo.licenceCounters(this.#db)), this.#db, true);
    if (l.kind !== "installed") return null;
    const end = expiresAt(l.payload);
    return end !== null && end > now ? end : null;
  }

  /** The installed licence: kept while the `licenses` counter is the same, else read on `q`. */
  async #installed(c: LicenceCounters, q: Queryable, fill: boolean): Promise<InstalledLicence> {
    if (this.#licence?.counter === c.licenses) return this.#licence.value;
    const value = await readInstalledLicence(q);
    if (fill) this.#licence = { counter: c.licenses, value };
    return value;
  }

  /** Whether the user is among the first `allowed` in creation order (false for an unknown user). */
  async #rankWithin(userId: string, allowed: number, users: number, q: Queryable, fill: boolean): Promise<boolean> {
    const key = await repo.userRankKey(q, userId);
    if (!key || allowed <= 0) return false;
    let cutoff: RankKey | undefined;
    if (this.#cutoff?.users === users && this.#cutoff.allowed === allowed) cutoff = this.#cutoff.key;
    else {
      cutoff = await repo.rankKeyAt(q, allowed - 1);
      if (fill) this.#cutoff = { users, allowed, key: cutoff };
    }
    return cutoff === undefined || key[0] < cutoff[0] || (key[0] === cutoff[0] && key[1] <= cutoff[1]);
  }
}

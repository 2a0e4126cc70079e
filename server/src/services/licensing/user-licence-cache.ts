/**
 * `userLicence` for the hottest read (GET /status; issue #13 item 2) without counting the users
 * created before this one on every call: a user is licensed when its place in creation order is
 * below the licence's user limit, i.e. when its (CreatedAt, ID) is at most the limit-th user's. That
 * cut-off is read once and kept while the `users` change counter (raised by triggers when a user is
 * added, removed, or its rank key changes; migration 0008) and the limit stay the same. Gives the
 * same answer as gates.ts `userLicence` (a test compares them).
 */
import type { Db } from "../../db/index.ts";
import * as repo from "../../repositories/licenses.ts";
import type { RankKey } from "../../repositories/licenses.ts";
import { readInstalledLicence } from "./store.ts";
import { allowedUsers, expiresAt, isExpired } from "./state.ts";

/** Keeps the licence cut-off of one database. */
export class UserLicenceCache {
  readonly #db: Db;
  #version = -1;
  #allowed = -1;
  /** The last licensed user's rank key; undefined when fewer users than the limit exist. */
  #cutoff: RankKey | undefined;

  constructor(db: Db) {
    this.#db = db;
  }

  /** As gates.ts `userLicence`: `admitted` (the licence lets users in at all) and `licensed` (this user is within the limit). `now` in epoch ms. */
  async userLicence(userId: string, now: number): Promise<{ admitted: boolean; licensed: boolean }> {
    const l = await readInstalledLicence(this.#db);
    if (l.kind === "none") return { admitted: true, licensed: true };
    if (l.kind === "broken" || isExpired(l.payload, now)) return { admitted: false, licensed: false };
    const allowed = allowedUsers(l.payload);
    const key = await repo.userRankKey(this.#db, userId);
    if (!key || allowed <= 0) return { admitted: true, licensed: false };
    const version = await repo.usersVersion(this.#db);
    if (version !== this.#version || allowed !== this.#allowed) {
      this.#cutoff = await repo.rankKeyAt(this.#db, allowed - 1);
      this.#version = version;
      this.#allowed = allowed;
    }
    const cutoff = this.#cutoff;
    const licensed = cutoff === undefined || key[0] < cutoff[0] || (key[0] === cutoff[0] && key[1] <= cutoff[1]);
    return { admitted: true, licensed };
  }

  /**
   * When (epoch ms) `userLicence` may answer otherwise by time alone — the installed licence's expiry
   * when it is still ahead of `now` — or null when only a change to the data would (what a status kept
   * per session needs: services/status-cache.ts).
   */
  async changesAt(now: number): Promise<number | null> {
    const l = await readInstalledLicence(this.#db);
    if (l.kind !== "installed") return null;
    const end = expiresAt(l.payload);
    return end !== null && end > now ? end : null;
  }
}

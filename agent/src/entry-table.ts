/**
 * The desired entries of one ACL key as the enforcer keeps them (docs/reference.md design "Agent
 * protocol": an entry is an address with an absolute expiry, and the user name of a grant holding it
 * when the server gave one).
 *
 * Compact on purpose (issue #13 item 4: an agent holds 100,000 entries in ≤ 80 MB): one Map of
 * normalised address → expiry number, no object per entry, and the user names in a second Map that
 * exists only once a user name was given (HAProxy and ipset grants usually carry one; scripts and
 * webhooks use it). Replaces the enforcer's earlier process-wide `key\0ip → user` map, which built a
 * key string per lookup (ten per entry and reconcile) and never forgot a user name.
 */
export class EntryTable {
  /** Normalised address → absolute expiry (epoch MILLISECONDS). */
  readonly #expiry = new Map<string, number>();
  /** Normalised address → user name; created on the first user name. */
  #users: Map<string, string> | undefined;

  /** Number of addresses held. */
  get size(): number {
    return this.#expiry.size;
  }

  /**
   * Holds `ip` (already normalised) until `expiresAt` (epoch milliseconds), replacing its earlier
   * expiry. `user` replaces the user name; when undefined, an earlier user name of `ip` is kept.
   */
  set(ip: string, expiresAt: number, user?: string): void {
    this.#expiry.set(ip, expiresAt);
    if (user !== undefined) (this.#users ??= new Map()).set(ip, user);
  }

  /** The expiry of `ip` (epoch milliseconds), or undefined when it is not held. */
  get(ip: string): number | undefined {
    return this.#expiry.get(ip);
  }

  /** True when `ip` is held. */
  has(ip: string): boolean {
    return this.#expiry.has(ip);
  }

  /** The user name given with `ip`, or undefined (none given, or `ip` not held). */
  user(ip: string): string | undefined {
    return this.#expiry.has(ip) ? this.#users?.get(ip) : undefined;
  }

  /** Forgets `ip` and its user name. Returns true when it was held. */
  delete(ip: string): boolean {
    this.#users?.delete(ip);
    return this.#expiry.delete(ip);
  }

  /**
   * Forgets every address whose expiry is at or before `now` (epoch milliseconds) and returns them.
   */
  dropExpired(now: number): string[] {
    const dropped: string[] = [];
    for (const [ip, exp] of this.#expiry) if (exp <= now) dropped.push(ip);
    for (const ip of dropped) this.delete(ip);
    return dropped;
  }

  /** (address, expiry) pairs in insertion order. */
  entries(): MapIterator<[string, number]> {
    return this.#expiry.entries();
  }

  /** Addresses in insertion order. */
  keys(): MapIterator<string> {
    return this.#expiry.keys();
  }

  /** Expiries (epoch milliseconds) in insertion order. */
  values(): MapIterator<number> {
    return this.#expiry.values();
  }

  /** Same as {@link entries}. */
  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.#expiry.entries();
  }
}

/** What a target should hold: normalised address → expiry (epoch milliseconds), read-only. A `Map` is one. */
export interface WantedEntries {
  get(ip: string): number | undefined;
  has(ip: string): boolean;
  keys(): Iterable<string>;
  [Symbol.iterator](): Iterator<[string, number]>;
}

/**
 * The entries of `table` whose expiry is after `now` (epoch milliseconds), as a view, not a copy: a
 * drift check every 5 s of 10 targets × 10,000 entries copied 100,000 entries each time. Later
 * changes to `table` show in the view.
 */
export function liveEntries(table: EntryTable, now: number): WantedEntries {
  const get = (ip: string): number | undefined => {
    const exp = table.get(ip);
    return exp !== undefined && exp > now ? exp : undefined;
  };
  return {
    get,
    has: (ip) => get(ip) !== undefined,
    *keys() {
      for (const [ip, exp] of table) if (exp > now) yield ip;
    },
    *[Symbol.iterator]() {
      for (const entry of table) if (entry[1] > now) yield entry;
    },
  };
}

/**
 * One copy of each equal string (addresses, user names) for the entry tables filled from one message:
 * JSON.parse makes a new string for every occurrence, and a user with ten ACLs has the same address
 * and name under ten keys (bench/memory.ts: ~200,000 strings, ~7 MB, for 100,000 entries before).
 * Meant to live as long as one message is handled.
 */
export class StringPool {
  readonly #pool = new Map<string, string>();

  /** Number of distinct strings held. */
  get size(): number {
    return this.#pool.size;
  }

  /** The pooled string equal to `s` (`s` itself the first time). */
  intern(s: string): string {
    const had = this.#pool.get(s);
    if (had !== undefined) return had;
    this.#pool.set(s, s);
    return s;
  }
}

/**
 * The desired entries of one ACL key as the enforcer keeps them (docs/reference.md design "Agent
 * protocol": an entry is an address with an absolute expiry, and the user name of a grant holding it
 * when the server gave one).
 *
 * Compact on purpose (issue #13 item 4: an agent holds 100,000 entries in ≤ 80 MB): one Map of
 * normalised address → slot number (a small integer, stored in the Map itself), the expiries in a
 * Float64Array by slot and the user names in an array by slot that exists only once a user name was
 * given. No object per entry: an expiry kept in a Map was a heap number of its own (16 bytes), and a
 * second Map for the user names doubled the hash table (~460 kB per 10,000 addresses;
 * bench/README.md "Memory", 2026-11-26). Slots freed by `delete` are reused; the arrays shrink when
 * three quarters of them are free. Insertion order is the Map's, as before.
 */
export class EntryTable {
  /** Normalised address → slot in `#expiry` and `#users`. */
  readonly #slots = new Map<string, number>();
  /** Slot → absolute expiry (epoch MILLISECONDS); its length is the capacity. */
  #expiry = new Float64Array(0);
  /** Slot → user name; created on the first user name. */
  #users: (string | undefined)[] | undefined;
  /** Slots freed by `delete`, reused first. */
  #free: number[] = [];
  /** Slots below this were handed out once. */
  #used = 0;

  /** Number of addresses held. */
  get size(): number {
    return this.#slots.size;
  }

  /**
   * Holds `ip` (already normalised) until `expiresAt` (epoch milliseconds), replacing its earlier
   * expiry. `user` replaces the user name; when undefined, an earlier user name of `ip` is kept.
   */
  set(ip: string, expiresAt: number, user?: string): void {
    let slot = this.#slots.get(ip);
    if (slot === undefined) {
      slot = this.#free.pop() ?? this.#take();
      this.#slots.set(ip, slot);
    }
    this.#expiry[slot] = expiresAt;
    if (user !== undefined) (this.#users ??= new Array<string | undefined>(this.#expiry.length))[slot] = user;
  }

  /** The expiry of `ip` (epoch milliseconds), or undefined when it is not held. */
  get(ip: string): number | undefined {
    const slot = this.#slots.get(ip);
    return slot === undefined ? undefined : this.#expiry[slot];
  }

  /**
   * The slot of `ip` (0 ≤ slot < {@link capacity}), or -1 when it is not held. Slots stay put until the
   * table changes (a `delete` may renumber them all).
   */
  slotOf(ip: string): number {
    return this.#slots.get(ip) ?? -1;
  }

  /** One more than the highest slot a held address can have now (for arrays indexed by slot). */
  get capacity(): number {
    return this.#expiry.length;
  }

  /** True when `ip` is held. */
  has(ip: string): boolean {
    return this.#slots.has(ip);
  }

  /** The user name given with `ip`, or undefined (none given, or `ip` not held). */
  user(ip: string): string | undefined {
    const slot = this.#slots.get(ip);
    return slot === undefined ? undefined : this.#users?.[slot];
  }

  /** Forgets `ip` and its user name. Returns true when it was held. */
  delete(ip: string): boolean {
    const slot = this.#slots.get(ip);
    if (slot === undefined) return false;
    this.#slots.delete(ip);
    if (this.#users && slot < this.#users.length) this.#users[slot] = undefined;
    this.#free.push(slot);
    if (this.#used > 64 && this.#slots.size * 4 < this.#used) this.#compact();
    return true;
  }

  /**
   * Forgets every address whose expiry is at or before `now` (epoch milliseconds) and returns them.
   */
  dropExpired(now: number): string[] {
    const dropped: string[] = [];
    for (const [ip, slot] of this.#slots) if ((this.#expiry[slot] as number) <= now) dropped.push(ip);
    for (const ip of dropped) this.delete(ip);
    return dropped;
  }

  /** (address, expiry) pairs in insertion order. */
  *entries(): Generator<[string, number], undefined, undefined> {
    for (const [ip, slot] of this.#slots) yield [ip, this.#expiry[slot] as number];
  }

  /** Addresses in insertion order. */
  keys(): MapIterator<string> {
    return this.#slots.keys();
  }

  /** Expiries (epoch milliseconds) in insertion order. */
  *values(): Generator<number, undefined, undefined> {
    for (const slot of this.#slots.values()) yield this.#expiry[slot] as number;
  }

  /**
   * Calls `fn(expiresAt, ip)` for every address in insertion order (a Map's `forEach` order of
   * arguments). Allocates nothing per entry, unlike the generators: a drift check of 100,000 entries
   * every 5 s made two objects per entry (issue #13 item 4).
   */
  forEach(fn: (expiresAt: number, ip: string) => void): void {
    const expiry = this.#expiry;
    this.#slots.forEach((slot, ip) => fn(expiry[slot] as number, ip));
  }

  /** Same as {@link entries}. */
  [Symbol.iterator](): Generator<[string, number], undefined, undefined> {
    return this.entries();
  }

  /** A never used slot, growing the expiry array (doubling) when it is full. */
  #take(): number {
    if (this.#used === this.#expiry.length) {
      const grown = new Float64Array(Math.max(16, this.#used * 2));
      grown.set(this.#expiry);
      this.#expiry = grown;
    }
    return this.#used++;
  }

  /** Renumbers the slots in insertion order and shrinks the arrays to twice what is held. */
  #compact(): void {
    const expiry = new Float64Array(Math.max(16, this.#slots.size * 2));
    const users: (string | undefined)[] | undefined = this.#users ? [] : undefined;
    let next = 0;
    for (const [ip, slot] of this.#slots) {
      expiry[next] = this.#expiry[slot] as number;
      if (users) users[next] = this.#users?.[slot];
      this.#slots.set(ip, next++);
    }
    this.#expiry = expiry;
    this.#users = users;
    this.#free = [];
    this.#used = next;
  }
}

/** What a target should hold: normalised address → expiry (epoch milliseconds), read-only. A `Map` is one. */
export interface WantedEntries {
  get(ip: string): number | undefined;
  has(ip: string): boolean;
  keys(): Iterable<string>;
  /** Calls `fn(expiresAt, ip)` per entry (a Map's `forEach`), without an object per entry. */
  forEach(fn: (expiresAt: number, ip: string) => void): void;
  [Symbol.iterator](): Iterator<[string, number]>;
  /**
   * Present on a view of one {@link EntryTable}: a small index per wanted address (-1 when `ip` is not
   * wanted), below `slots()`, valid until the table changes. Lets a caller mark addresses in a byte
   * array instead of building a Set of them.
   */
  readonly slotOf?: (ip: string) => number;
  readonly slots?: () => number;
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
    slotOf: (ip) => {
      const slot = table.slotOf(ip);
      return slot >= 0 && (table.get(ip) as number) > now ? slot : -1;
    },
    slots: () => table.capacity,
    forEach(fn) {
      table.forEach((exp, ip) => {
        if (exp > now) fn(exp, ip);
      });
    },
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

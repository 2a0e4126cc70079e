/**
 * A small time-to-live cache for server data (docs/reference.md user-portal §4 "Cached data is re-fetched after its
 * time-to-live", §9 "Cache lifetimes: auth data 180 s, theme 600 s, default 300 s"). Concurrent
 * reads of one key share one request; a failed request is not cached.
 */

/** Cache lifetimes in milliseconds (docs/reference.md user-portal §9). */
export const CacheTtlMs = {
  /** Auth data (the session status the route guards read): 180 s. */
  auth: 180_000,
  /** Theme (accent, high accessibility, logos): 600 s. */
  theme: 600_000,
  /** Everything else (SAML availability, system status for IP discovery): 300 s. */
  default: 300_000,
} as const;

interface Entry {
  value?: unknown;
  at: number;
  pending?: Promise<unknown>;
}

/** Keyed values with their fetch time. `now` is injectable for tests (ms since the epoch). */
export class TtlCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * The value of `key` when it was fetched less than `ttlMs` ago, else the result of `fetcher`
   * (stored on success). A request already running for `key` is shared.
   */
  async get<T>(key: string, ttlMs: number, fetcher: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && "value" in entry && this.now() - entry.at < ttlMs) return entry.value as T;
    if (entry?.pending) return (await entry.pending) as T;
    const pending = fetcher();
    this.entries.set(key, { ...entry, at: entry?.at ?? 0, pending });
    try {
      const value = await pending;
      this.entries.set(key, { value, at: this.now() });
      return value;
    } catch (error) {
      const kept = this.entries.get(key);
      if (kept?.pending === pending) {
        if (kept && "value" in kept) this.entries.set(key, { value: kept.value, at: kept.at });
        else this.entries.delete(key);
      }
      throw error;
    }
  }

  /** Stores a value fetched elsewhere (e.g. a fresh answer of the same call). */
  set(key: string, value: unknown): void {
    this.entries.set(key, { value, at: this.now() });
  }

  /** The cached value of `key` regardless of age, or undefined. */
  peek<T>(key: string): T | undefined {
    return this.entries.get(key)?.value as T | undefined;
  }

  /** Forgets `key` (or everything). */
  invalidate(key?: string): void {
    if (key === undefined) this.entries.clear();
    else this.entries.delete(key);
  }
}

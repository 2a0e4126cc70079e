import { describe, expect, it } from "vitest";
import { CacheTtlMs, TtlCache } from "./cache.ts";

describe("TtlCache (user-portal §9 cache lifetimes)", () => {
  it("has the spec's lifetimes", () => {
    expect(CacheTtlMs).toEqual({ auth: 180_000, theme: 600_000, default: 300_000 });
  });

  it("serves a value until its time-to-live passes, then fetches again", async () => {
    let now = 1_000_000;
    const cache = new TtlCache(() => now);
    let calls = 0;
    const fetcher = async () => ++calls;
    expect(await cache.get("theme", CacheTtlMs.theme, fetcher)).toBe(1);
    now += CacheTtlMs.theme - 1;
    expect(await cache.get("theme", CacheTtlMs.theme, fetcher)).toBe(1);
    now += 1;
    expect(await cache.get("theme", CacheTtlMs.theme, fetcher)).toBe(2);
    expect(calls).toBe(2);
  });

  it("shares a running request and does not keep failures", async () => {
    const cache = new TtlCache(() => 0);
    let calls = 0;
    let release: (v: number) => void = () => undefined;
    const slow = () => {
      calls += 1;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const a = cache.get("k", 1000, slow);
    const b = cache.get("k", 1000, slow);
    release(7);
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    expect(calls).toBe(1);
    await expect(cache.get("x", 1000, () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("x", 1000, async () => 3)).toBe(3);
  });

  it("keeps the old value when a refresh fails, and can be set, peeked and invalidated", async () => {
    let now = 0;
    const cache = new TtlCache(() => now);
    await cache.get("k", 10, async () => "old");
    now = 20;
    await expect(cache.get("k", 10, () => Promise.reject(new Error("down")))).rejects.toThrow();
    expect(cache.peek("k")).toBe("old");
    cache.set("k", "new");
    expect(await cache.get("k", 10, async () => "fetched")).toBe("new");
    cache.invalidate("k");
    expect(cache.peek("k")).toBeUndefined();
    cache.set("a", 1);
    cache.invalidate();
    expect(cache.peek("a")).toBeUndefined();
  });
});

/** StatusCache's own rules: the key and the time decide a hit; ended sessions are swept; at most MAX_KEPT. */
import { describe, expect, it } from "vitest";
import { MAX_KEPT, StatusCache } from "./status-cache.ts";

describe("StatusCache", () => {
  it("answers only under the same key and before the entry's time", () => {
    const c = new StatusCache();
    c.set("s1", "k1", 1_000, 5_000, ["{", "}"], 0);
    expect(c.get("s1", "k1", 999)).toBe("{}");
    expect(c.get("s1", "k2", 999)).toBeUndefined();
    expect(c.get("s1", "k1", 1_000)).toBeUndefined();
    expect(c.get("s2", "k1", 0)).toBeUndefined();
  });

  it("sweeps the entries of ended sessions once a minute", () => {
    const c = new StatusCache();
    c.set("ends-soon", "k", Infinity, 10_000, ["a"], 0);
    c.set("lives", "k", Infinity, 1_000_000, ["b"], 0);
    expect(c.size).toBe(2);
    c.set("other", "k", Infinity, 1_000_000, ["c"], 30_000); // within the minute: no sweep yet
    expect(c.size).toBe(3);
    c.set("other", "k", Infinity, 1_000_000, ["c"], 60_000);
    expect(c.size).toBe(2);
    expect(c.get("ends-soon", "k", 60_000)).toBeUndefined();
  });

  it("keeps at most MAX_KEPT, dropping the oldest", () => {
    const c = new StatusCache();
    for (let i = 0; i <= MAX_KEPT; i++) c.set(`s${i}`, "k", Infinity, Infinity, ["x"], 0);
    expect(c.size).toBe(MAX_KEPT);
    expect(c.get("s0", "k", 0)).toBeUndefined();
    expect(c.get(`s${MAX_KEPT}`, "k", 0)).toBe("x");
  });
});

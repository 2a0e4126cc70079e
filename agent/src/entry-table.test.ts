import { describe, expect, it } from "vitest";
import { EntryTable, liveEntries, StringPool } from "./entry-table.ts";

describe("EntryTable", () => {
  it("holds an expiry per address, replaces it on set, forgets on delete", () => {
    const t = new EntryTable();
    t.set("192.0.2.1", 1_000);
    t.set("192.0.2.2", 2_000);
    t.set("192.0.2.1", 3_000);
    expect(t.size).toBe(2);
    expect(t.get("192.0.2.1")).toBe(3_000);
    expect(t.has("192.0.2.2")).toBe(true);
    expect([...t]).toEqual([
      ["192.0.2.1", 3_000],
      ["192.0.2.2", 2_000],
    ]);
    expect([...t.keys()]).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect([...t.values()]).toEqual([3_000, 2_000]);
    expect(t.delete("192.0.2.1")).toBe(true);
    expect(t.delete("192.0.2.1")).toBe(false);
    expect(t.get("192.0.2.1")).toBeUndefined();
    expect(t.size).toBe(1);
  });

  it("keeps the user name given with an address until a new one is given or the address is deleted", () => {
    const t = new EntryTable();
    t.set("192.0.2.1", 1_000);
    expect(t.user("192.0.2.1")).toBeUndefined();
    t.set("192.0.2.1", 1_000, "alice");
    t.set("192.0.2.1", 2_000); // no user name: alice stays
    expect(t.user("192.0.2.1")).toBe("alice");
    t.set("192.0.2.1", 2_000, "bob");
    expect(t.user("192.0.2.1")).toBe("bob");
    t.delete("192.0.2.1");
    expect(t.user("192.0.2.1")).toBeUndefined();
    t.set("192.0.2.1", 3_000); // held again, without a user name: the deleted one is not revived
    expect(t.user("192.0.2.1")).toBeUndefined();
    expect(t.user("198.51.100.9")).toBeUndefined();
  });

  it("drops exactly the addresses whose expiry is at or before now, with their user names", () => {
    const t = new EntryTable();
    t.set("192.0.2.1", 999, "a");
    t.set("192.0.2.2", 1_000, "b");
    t.set("192.0.2.3", 1_001, "c");
    expect(t.dropExpired(1_000)).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect([...t.keys()]).toEqual(["192.0.2.3"]);
    expect(t.user("192.0.2.3")).toBe("c");
    t.set("192.0.2.1", 5_000);
    expect(t.user("192.0.2.1")).toBeUndefined();
    expect(t.dropExpired(1_000)).toEqual([]);
  });

  it("reuses freed slots and shrinks after most addresses left, keeping order, expiries and user names", () => {
    const t = new EntryTable();
    for (let i = 0; i < 1_000; i++) t.set(`10.0.${i >> 8}.${i & 255}`, 10_000 + i, i % 2 ? `u${i}` : undefined);
    for (let i = 0; i < 990; i++) t.delete(`10.0.${i >> 8}.${i & 255}`); // compacts on the way
    expect(t.size).toBe(10);
    expect([...t]).toEqual(Array.from({ length: 10 }, (_, k) => [`10.0.3.${222 + k}`, 10_990 + k]));
    expect(t.user("10.0.3.222")).toBeUndefined();
    expect(t.user("10.0.3.223")).toBe("u991");
    t.set("192.0.2.1", 1, "new"); // a reused or fresh slot: no user name of a deleted address
    t.set("192.0.2.2", 2);
    expect(t.user("192.0.2.2")).toBeUndefined();
    expect(t.user("192.0.2.1")).toBe("new");
    expect([...t.keys()].slice(-2)).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect([...t.values()].slice(-2)).toEqual([1, 2]);
    expect(t.dropExpired(2)).toEqual(["192.0.2.1", "192.0.2.2"]);
    expect(t.size).toBe(10);
  });

  it("liveEntries shows the entries expiring after now, and later changes, without a copy", () => {
    const t = new EntryTable();
    t.set("192.0.2.1", 1_000);
    t.set("192.0.2.2", 2_000);
    const view = liveEntries(t, 1_000);
    expect([...view]).toEqual([["192.0.2.2", 2_000]]);
    expect([...view.keys()]).toEqual(["192.0.2.2"]);
    expect(view.get("192.0.2.1")).toBeUndefined();
    expect(view.has("192.0.2.1")).toBe(false);
    expect(view.get("192.0.2.2")).toBe(2_000);
    t.set("192.0.2.3", 1_500);
    t.delete("192.0.2.2");
    expect([...view]).toEqual([["192.0.2.3", 1_500]]);
    expect(view.has("192.0.2.2")).toBe(false);
  });

  it("forEach visits (expiry, address) in insertion order; slotOf gives a slot below capacity, -1 when absent", () => {
    const t = new EntryTable();
    t.set("192.0.2.2", 2_000);
    t.set("192.0.2.1", 1_000);
    const seen: [number, string][] = [];
    t.forEach((exp, ip) => seen.push([exp, ip]));
    expect(seen).toEqual([
      [2_000, "192.0.2.2"],
      [1_000, "192.0.2.1"],
    ]);
    expect(t.slotOf("192.0.2.1")).toBeGreaterThanOrEqual(0);
    expect(t.slotOf("192.0.2.1")).toBeLessThan(t.capacity);
    expect(t.slotOf("192.0.2.1")).not.toBe(t.slotOf("192.0.2.2"));
    expect(t.slotOf("192.0.2.9")).toBe(-1);
  });

  it("liveEntries' forEach and slotOf leave out expired entries", () => {
    const t = new EntryTable();
    t.set("192.0.2.1", 1_000);
    t.set("192.0.2.2", 3_000);
    const live = liveEntries(t, 2_000);
    const seen: string[] = [];
    live.forEach((_exp, ip) => seen.push(ip));
    expect(seen).toEqual(["192.0.2.2"]);
    expect(live.slotOf?.("192.0.2.1")).toBe(-1);
    expect(live.slotOf?.("192.0.2.2")).toBe(t.slotOf("192.0.2.2"));
    expect(live.slots?.()).toBe(t.capacity);
  });

  it("StringPool keeps one string per distinct text", () => {
    const pool = new StringPool();
    for (let i = 0; i < 1_000; i++) {
      expect(pool.intern(["192.0.2.", String(i % 10)].join(""))).toBe(`192.0.2.${i % 10}`);
      expect(pool.intern(`user${i % 3}`)).toBe(`user${i % 3}`);
    }
    expect(pool.size).toBe(13);
  });
});

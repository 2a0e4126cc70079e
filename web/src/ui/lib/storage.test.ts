import { describe, expect, it } from "vitest";
import {
  MAX_FAVOURITES,
  MAX_USE_COUNTS,
  parseFavourites,
  parseUseCounts,
  parseView,
  readJson,
  recordUse,
  toggleFavourite,
  writeJson,
} from "./storage.ts";

/** A Storage over a Map (node has no localStorage); `failing` makes every call throw. */
function memoryStorage(failing = false): Storage {
  const map = new Map<string, string>();
  const guard = () => {
    if (failing) throw new DOMException("denied", "SecurityError");
  };
  return {
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    getItem: (k) => (guard(), map.get(k) ?? null),
    key: (i) => [...map.keys()][i] ?? null,
    removeItem: (k) => void map.delete(k),
    setItem: (k, v) => (guard(), void map.set(k, v)),
  };
}

describe("stored state (user-portal §2 local storage)", () => {
  it("round-trips JSON and falls back on missing, broken or inaccessible storage", () => {
    const s = memoryStorage();
    writeJson(s, "view", "list");
    expect(readJson(s, "view")).toBe("list");
    s.setItem("favouriteAclIds", "{not json");
    expect(readJson(s, "favouriteAclIds")).toBeUndefined();
    expect(readJson(s, "missing")).toBeUndefined();
    expect(readJson(undefined, "view")).toBeUndefined();
    const denied = memoryStorage(true);
    expect(() => writeJson(denied, "view", "card")).not.toThrow();
    expect(readJson(denied, "view")).toBeUndefined();
  });

  it("reads the view as card unless list is stored", () => {
    expect(parseView("list")).toBe("list");
    expect(parseView("card")).toBe("card");
    expect(parseView(undefined)).toBe("card");
    expect(parseView("grid")).toBe("card");
  });

  it("keeps favourites as unique non-empty strings, bounded", () => {
    expect(parseFavourites(["a", "b", "a", 3, "", null])).toEqual(["a", "b"]);
    expect(parseFavourites("a")).toEqual([]);
    expect(parseFavourites(Array.from({ length: MAX_FAVOURITES + 10 }, (_, i) => `id${i}`))).toHaveLength(
      MAX_FAVOURITES,
    );
    expect(toggleFavourite(["a", "b"], "c")).toEqual(["a", "b", "c"]);
    expect(toggleFavourite(["a", "b"], "a")).toEqual(["b"]);
  });

  it("keeps use counts as positive integers and counts uses", () => {
    expect(parseUseCounts({ a: 2, b: 0, c: -1, d: 1.5, e: "3", f: 7 })).toEqual({ a: 2, f: 7 });
    expect(parseUseCounts([1, 2])).toEqual({});
    expect(parseUseCounts(null)).toEqual({});
    expect(recordUse({ a: 2 }, "a")).toEqual({ a: 3 });
    expect(recordUse({ a: 2 }, "b")).toEqual({ a: 2, b: 1 });
  });

  it("drops the least used counts beyond the bound but keeps the one just used", () => {
    const many = Object.fromEntries(Array.from({ length: MAX_USE_COUNTS }, (_, i) => [`id${i}`, 5]));
    const next = recordUse(many, "new");
    expect(Object.keys(next)).toHaveLength(MAX_USE_COUNTS);
    expect(next.new).toBe(1);
  });
});

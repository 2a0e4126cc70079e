import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { clearReferrer, pendingReferrer, REFERRER_KEY, REFERRER_TTL_MS, stashReferrer } from "./referrer.ts";

/** A Map-backed Storage standing in for the tab's sessionStorage. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, String(value)),
  };
}

describe("the pending referrer in sessionStorage", () => {
  let storage: Storage;
  beforeEach(() => {
    storage = memoryStorage();
    vi.stubGlobal("window", { sessionStorage: storage });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("keeps a stashed referrer until cleared", () => {
    stashReferrer("https://wiki.example.com/a", 1_000);
    expect(pendingReferrer(2_000)).toBe("https://wiki.example.com/a");
    clearReferrer();
    expect(pendingReferrer(2_000)).toBeUndefined();
  });

  it("drops it after the time-to-live", () => {
    stashReferrer("https://wiki.example.com/a", 1_000);
    expect(pendingReferrer(1_000 + REFERRER_TTL_MS)).toBe("https://wiki.example.com/a");
    expect(pendingReferrer(1_001 + REFERRER_TTL_MS)).toBeUndefined();
  });

  it("ignores damaged values and stores no empty or over-long text", () => {
    storage.setItem(REFERRER_KEY, "{not json");
    expect(pendingReferrer()).toBeUndefined();
    storage.setItem(REFERRER_KEY, JSON.stringify({ url: 5, at: Date.now() }));
    expect(pendingReferrer()).toBeUndefined();
    storage.clear();
    stashReferrer("");
    stashReferrer(`https://x.example.com/${"a".repeat(5000)}`);
    expect(storage.getItem(REFERRER_KEY)).toBeNull();
  });

  it("gives nothing when the browser refuses storage", () => {
    vi.stubGlobal("window", {
      get sessionStorage(): Storage {
        throw new Error("SecurityError");
      },
    });
    stashReferrer("https://wiki.example.com/a");
    expect(pendingReferrer()).toBeUndefined();
    clearReferrer();
  });
});

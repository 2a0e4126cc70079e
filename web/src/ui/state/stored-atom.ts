/** A jotai atom backed by one localStorage key (docs/reference.md user-portal §2 "Local storage"). */
import { atom } from "jotai";
import type { WritableAtom } from "jotai";
import { browserStorage, readJson, writeJson } from "../lib/storage.ts";

/** An atom whose value is read from localStorage `key` once and written back on every set. */
export function storedAtom<T>(
  key: string,
  parse: (raw: unknown) => T,
): WritableAtom<T, [T | ((current: T) => T)], void> {
  const base = atom<T>(parse(readJson(browserStorage(), key)));
  return atom(
    (get) => get(base),
    (get, set, update: T | ((current: T) => T)) => {
      const next = typeof update === "function" ? (update as (current: T) => T)(get(base)) : update;
      set(base, next);
      writeJson(browserStorage(), key, next);
    },
  );
}

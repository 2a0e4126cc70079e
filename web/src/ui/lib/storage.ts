/**
 * Browser storage of the portal's own state (docs/reference.md user-portal §2 "Local storage keeps: view (card or
 * list), favouriteAclIds, topAclIds (use counts) and jsBundleHash"; the colour mode is kept next to
 * them). Values are JSON; anything unreadable falls back to the default, so a damaged or foreign
 * value never breaks the page. Storage may be unavailable (private modes, quota): reads then give
 * the default and writes are dropped.
 */

/** The localStorage keys the portal uses. */
export const StorageKey = {
  view: "view",
  favouriteAclIds: "favouriteAclIds",
  topAclIds: "topAclIds",
  jsBundleHash: "jsBundleHash",
  colorMode: "colorMode",
  timerHidden: "timerHidden",
} as const;

/** The dashboard's view: cards grouped by category, or one table. */
export type DashboardView = "card" | "list";

/** Most favourites kept (a bound on what a damaged value can make the page hold). */
export const MAX_FAVOURITES = 500;
/** Most ACLs with use counts kept; the least used are dropped first. */
export const MAX_USE_COUNTS = 500;

/** The Storage to use, or undefined when the browser refuses access (e.g. blocked cookies). */
export function browserStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

/** Reads and parses a JSON value; `fallback` when missing, unreadable or not valid JSON. */
export function readJson(storage: Storage | undefined, key: string): unknown {
  try {
    const raw = storage?.getItem(key);
    return raw == null ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

/** Writes a value as JSON; errors (quota, access) are ignored. */
export function writeJson(storage: Storage | undefined, key: string, value: unknown): void {
  try {
    storage?.setItem(key, JSON.stringify(value));
  } catch {
    // Not fatal: the state lives on in memory for this page.
  }
}

/** The stored view, "card" unless "list" is stored. */
export function parseView(value: unknown): DashboardView {
  return value === "list" ? "list" : "card";
}

/** The stored favourite ACLIDs: strings only, without repeats, at most MAX_FAVOURITES. */
export function parseFavourites(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const ids = value.filter((v): v is string => typeof v === "string" && v !== "");
  return [...new Set(ids)].slice(0, MAX_FAVOURITES);
}

/** The stored use counts per ACLID: positive whole numbers only. */
export function parseUseCounts(value: unknown): Record<string, number> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const counts: Record<string, number> = {};
  for (const [id, n] of Object.entries(value as Record<string, unknown>)) {
    if (typeof n === "number" && Number.isInteger(n) && n > 0) counts[id] = n;
  }
  return counts;
}

/** Adds `aclId` to the favourites, or removes it when it is one already. */
export function toggleFavourite(ids: readonly string[], aclId: string): string[] {
  return ids.includes(aclId) ? ids.filter((id) => id !== aclId) : [...ids, aclId].slice(-MAX_FAVOURITES);
}

/** Counts one more use of `aclId`; keeps the MAX_USE_COUNTS most used. */
export function recordUse(counts: Readonly<Record<string, number>>, aclId: string): Record<string, number> {
  const used = (counts[aclId] ?? 0) + 1;
  const next: Record<string, number> = { ...counts, [aclId]: used };
  if (Object.keys(next).length <= MAX_USE_COUNTS) return next;
  const others = Object.entries(counts)
    .filter(([id]) => id !== aclId)
    .sort((a, b) => b[1] - a[1]);
  return { ...Object.fromEntries(others.slice(0, MAX_USE_COUNTS - 1)), [aclId]: used };
}

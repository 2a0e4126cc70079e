/**
 * UI-only state (jotai). Server data (the session status) lives in useSessionStatus, not here.
 * The atoms backed by localStorage (user-portal §2 "Local storage keeps: view, favouriteAclIds,
 * topAclIds (use counts) and jsBundleHash"; the colour mode too) read it once at start and write
 * every change through.
 */
import { atom } from "jotai";
import type { WritableAtom } from "jotai";
import type { Theme } from "@postern/shared";
import { serverNow } from "../api/clock.ts";
import { parseColorMode } from "../lib/colour-mode.ts";
import type { ColorMode } from "../lib/colour-mode.ts";
import {
  browserStorage,
  parseFavourites,
  parseUseCounts,
  parseView,
  readJson,
  StorageKey,
  writeJson,
} from "../lib/storage.ts";
import type { DashboardView } from "../lib/storage.ts";

/**
 * The time in ms on the server's clock (see api/clock.ts), ticking every second while any component
 * reads it (user-portal §9: countdown ticks every 1 s).
 */
export const nowAtom = atom(serverNow());
nowAtom.onMount = (set) => {
  set(serverNow());
  const timer = window.setInterval(() => set(serverNow()), 1000);
  return () => window.clearInterval(timer);
};

/** ACLIDs whose grant or revoke request is in flight (their buttons are disabled meanwhile). */
export const busyAclIdsAtom = atom<ReadonlySet<string>>(new Set<string>());

/** The last failed grant or revoke per ACLID, as display text. */
export const aclActionErrorsAtom = atom<Readonly<Record<string, string>>>({});

/** The dashboard's search box text (shown above 10 ACLs, user-portal §9). */
export const aclSearchAtom = atom("");

/** An atom whose value is read from localStorage `key` once and written back on every set. */
function storedAtom<T>(key: string, parse: (raw: unknown) => T): WritableAtom<T, [T | ((current: T) => T)], void> {
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

/** The dashboard view, card or list (localStorage `view`). */
export const viewAtom = storedAtom<DashboardView>(StorageKey.view, parseView);

/** Favourite ACLIDs (localStorage `favouriteAclIds`). */
export const favouritesAtom = storedAtom<string[]>(StorageKey.favouriteAclIds, parseFavourites);

/** Use counts per ACLID for the Top section (localStorage `topAclIds`). */
export const useCountsAtom = storedAtom<Record<string, number>>(StorageKey.topAclIds, parseUseCounts);

/** The colour mode: light, dark or auto (localStorage `colorMode`). */
export const colorModeAtom = storedAtom<ColorMode>(StorageKey.colorMode, parseColorMode);

/** Whether the session timer is hidden (offered in high-accessibility mode; localStorage `timerHidden`). */
export const timerHiddenAtom = storedAtom<boolean>(StorageKey.timerHidden, (raw) => raw === true);

/** The theme of GET /api/theme once loaded (undefined before, or when it could not be read). */
export const themeAtom = atom<Theme | undefined>(undefined);

/** Whether the page is shown dark (resolved from colorModeAtom and the system preference by theme.ts). */
export const darkAtom = atom(false);

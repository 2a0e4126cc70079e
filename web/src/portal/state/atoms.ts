/**
 * UI-only state (jotai). Server data (the session status) lives in useSessionStatus, not here.
 * The atoms backed by localStorage (docs/reference.md user-portal §2 "Local storage keeps: view, favouriteAclIds,
 * topAclIds (use counts) and jsBundleHash"; the colour mode too) read it once at start and write
 * every change through.
 */
import { atom } from "jotai";
import { storedAtom } from "../../ui/state/stored-atom.ts";
import { serverNow } from "../../ui/api/clock.ts";
import { parseFavourites, parseUseCounts, parseView, StorageKey } from "../../ui/lib/storage.ts";
import type { DashboardView } from "../../ui/lib/storage.ts";

/**
 * The time in ms on the server's clock (see api/clock.ts), ticking every second while any component
 * reads it (docs/reference.md user-portal §9: countdown ticks every 1 s).
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

/** The dashboard's search box text (shown above 10 ACLs, docs/reference.md user-portal §9). */
export const aclSearchAtom = atom("");

/** The dashboard view, card or list (localStorage `view`). */
export const viewAtom = storedAtom<DashboardView>(StorageKey.view, parseView);

/** Favourite ACLIDs (localStorage `favouriteAclIds`). */
export const favouritesAtom = storedAtom<string[]>(StorageKey.favouriteAclIds, parseFavourites);

/** Use counts per ACLID for the Top section (localStorage `topAclIds`). */
export const useCountsAtom = storedAtom<Record<string, number>>(StorageKey.topAclIds, parseUseCounts);

/** Whether the session timer is hidden (offered in high-accessibility mode; localStorage `timerHidden`). */
export const timerHiddenAtom = storedAtom<boolean>(StorageKey.timerHidden, (raw) => raw === true);

/**
 * UI-only state (jotai). Server data (the session status) lives in useSessionStatus, not here.
 */
import { atom } from "jotai";

/** Wall-clock time in ms, ticking every second while any component reads it (user-portal §9: 1 s). */
export const nowAtom = atom(Date.now());
nowAtom.onMount = (set) => {
  set(Date.now());
  const timer = window.setInterval(() => set(Date.now()), 1000);
  return () => window.clearInterval(timer);
};

/** ACLIDs whose grant or revoke request is in flight (their buttons are disabled meanwhile). */
export const busyAclIdsAtom = atom<ReadonlySet<string>>(new Set<string>());

/** The last failed grant or revoke per ACLID, as display text. */
export const aclActionErrorsAtom = atom<Readonly<Record<string, string>>>({});

/** The dashboard's search box text (shown above 10 ACLs, user-portal §9). */
export const aclSearchAtom = atom("");

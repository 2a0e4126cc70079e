/**
 * UI-only state (jotai). Server data (the session status) lives in useSessionStatus, not here.
 */
import { atom } from "jotai";
import { serverNow } from "../api/clock.ts";

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

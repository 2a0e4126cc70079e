/**
 * "Back to the protected page" on the home pages (issue #14 item 3, docs/decisions.md "Back to the
 * protected page"): reads the pending referrer the Login page stored, and for each session status
 * decides (lib/referrer.ts) to follow it (the browser leaves for the referrer URL once a Knoc at its
 * origin is Granted), to wait (polling the grant until it settles; or for the user's Grant click),
 * or to ignore it (dropped, with a note). Followed or ignored, the referrer is forgotten.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import type { SessionStatus } from "@postern/shared";
import type { WatchedAction } from "../lib/acl.ts";
import { referrerDecision } from "../lib/referrer.ts";
import type { IgnoreReason } from "../lib/referrer.ts";
import { clearReferrer, pendingReferrer } from "../state/referrer.ts";

/**
 * What the home page shows about the referrer: nothing (none pending), `waiting` for the grant of
 * the Knoc `description` (`needsClick`: the user must press its Grant button), `leaving` (the
 * browser is on its way to the referrer) or `ignored` (`description` names the Knoc whose grant failed).
 */
export type ReferrerNote =
  | { kind: "waiting"; description: string; needsClick: boolean }
  | { kind: "leaving" }
  | { kind: "ignored"; reason: IgnoreReason; description?: string };

/** What useReferrer gives the page. */
export interface ReferrerState {
  /** The note to show, or undefined. */
  note: ReferrerNote | undefined;
  /** True while a referrer may still be followed (auto-browse then stays out of its way). */
  active: boolean;
}

/**
 * `status`: the live session status; `licensed`: unlicensed users are never sent on (the referrer
 * is dropped silently); `watch`: useSessionStatus's poller, used with the "referrer" action.
 * Navigation: `window.location.assign` of the referrer URL, once.
 */
export function useReferrer(
  status: SessionStatus,
  licensed: boolean,
  watch: (aclId: string, action: WatchedAction) => void,
): ReferrerState {
  const [raw, setRaw] = useState(() => pendingReferrer());
  const [ended, setEnded] = useState<ReferrerNote | undefined>(undefined);
  const watched = useRef(new Set<string>());
  const decision = useMemo(
    () => (raw === undefined ? undefined : referrerDecision(raw, status.ACLs)),
    [raw, status.ACLs],
  );

  useEffect(() => {
    if (raw === undefined || decision === undefined) return;
    if (!licensed) {
      clearReferrer();
      setRaw(undefined);
      return;
    }
    switch (decision.kind) {
      case "follow":
        clearReferrer();
        setRaw(undefined);
        setEnded({ kind: "leaving" });
        window.location.assign(decision.url);
        return;
      case "ignore":
        clearReferrer();
        setRaw(undefined);
        setEnded({
          kind: "ignored",
          reason: decision.reason,
          ...(decision.acl === undefined ? {} : { description: decision.acl.Description }),
        });
        return;
      case "wait":
        if (decision.needsClick) {
          watched.current.delete(decision.acl.ACLID);
        } else if (!watched.current.has(decision.acl.ACLID)) {
          watched.current.add(decision.acl.ACLID);
          watch(decision.acl.ACLID, "referrer");
        }
        return;
    }
  }, [raw, decision, licensed, watch]);

  const note: ReferrerNote | undefined =
    decision?.kind === "wait"
      ? { kind: "waiting", description: decision.acl.Description, needsClick: decision.needsClick }
      : ended;
  return { note, active: raw !== undefined };
}

/**
 * The dashboard's live session status (docs/reference.md user-portal §2, §4): refreshed every 30 s, and polled after
 * a grant or revoke first after 1 s, then every 2, 4, 8, 8, … s until the ACL settles.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { Limits } from "@postern/shared";
import type { SessionStatus } from "@postern/shared";
import { ApiError } from "../../ui/api/client.ts";
import { rememberSession, sessionAgeMs } from "../api/session.ts";
import { getStatus } from "../api/user.ts";
import { MAX_POLL_ATTEMPTS, pollDelayMs, pollDone } from "../lib/acl.ts";
import type { WatchedAction } from "../lib/acl.ts";

/** What useSessionStatus returns. */
export interface SessionStatusState {
  status: SessionStatus;
  /** The last failed refresh (cleared by the next success); invalid sessions redirect instead. */
  refreshError: unknown;
  /** Fetches GET /api/status now; resolves with the new status or undefined on failure. */
  refresh: () => Promise<SessionStatus | undefined>;
  /** Starts (or restarts) polling until the ACL `aclId` settles after `action`. */
  watch: (aclId: string, action: WatchedAction) => void;
  /** Replaces one ACL entry locally until the next refresh (optimistic Pending/Revoking). */
  patchAcl: (aclId: string, patch: Partial<SessionStatus["ACLs"][number]>) => void;
}

/** Initial status younger than this is not fetched again on mount. */
const FRESH_MS = 5000;

/**
 * Keeps the session status of the dashboard fresh. `initial` is the status the route guard loaded.
 * Status refresh: every Limits.statusRefreshSeconds (30 s). Out-of-order answers are dropped.
 */
export function useSessionStatus(initial: SessionStatus): SessionStatusState {
  const [status, setStatus] = useState(initial);
  const [refreshError, setRefreshError] = useState<unknown>(undefined);
  const sequence = useRef(0);
  const watches = useRef(new Map<string, WatchedAction>());
  const attempt = useRef(0);
  const pollTimer = useRef<number | undefined>(undefined);
  const mounted = useRef(true);

  const refresh = useCallback(async (): Promise<SessionStatus | undefined> => {
    const mine = ++sequence.current;
    try {
      const next = await getStatus();
      if (!mounted.current || mine !== sequence.current) return next;
      rememberSession(next);
      setStatus(next);
      setRefreshError(undefined);
      return next;
    } catch (error) {
      if (mounted.current && !(error instanceof ApiError && error.isInvalidSession)) setRefreshError(error);
      return undefined;
    }
  }, []);

  const schedulePoll = useCallback(() => {
    window.clearTimeout(pollTimer.current);
    if (watches.current.size === 0) return;
    pollTimer.current = window.setTimeout(() => {
      void (async () => {
        const next = await refresh();
        if (!mounted.current) return;
        if (next !== undefined) {
          for (const [aclId, action] of watches.current) {
            const entry = next.ACLs.find((acl) => acl.ACLID === aclId);
            if (entry === undefined || pollDone(entry.Status, action)) watches.current.delete(aclId);
          }
        }
        attempt.current += 1;
        if (attempt.current >= MAX_POLL_ATTEMPTS) watches.current.clear();
        schedulePoll();
      })();
    }, pollDelayMs(attempt.current));
  }, [refresh]);

  const watch = useCallback(
    (aclId: string, action: WatchedAction) => {
      watches.current.set(aclId, action);
      attempt.current = 0;
      schedulePoll();
    },
    [schedulePoll],
  );

  const patchAcl = useCallback((aclId: string, patch: Partial<SessionStatus["ACLs"][number]>) => {
    setStatus((current) => ({
      ...current,
      ACLs: current.ACLs.map((acl) => (acl.ACLID === aclId ? { ...acl, ...patch } : acl)),
    }));
  }, []);

  useEffect(() => {
    mounted.current = true;
    if (sessionAgeMs() > FRESH_MS) void refresh();
    const timer = window.setInterval(() => void refresh(), Limits.statusRefreshSeconds * 1000);
    return () => {
      mounted.current = false;
      window.clearInterval(timer);
      window.clearTimeout(pollTimer.current);
    };
  }, [refresh]);

  return { status, refreshError, refresh, watch, patchAcl };
}

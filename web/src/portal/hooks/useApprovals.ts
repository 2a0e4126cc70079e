/**
 * The requests the signed-in user may decide as a group approver (docs/decisions.md "Approval requests"), read
 * from GET /api/approvals when the page opens and every Limits.statusRefreshSeconds (30 s) with the status.
 * `seen` turns true once the list had a request during this page view: the home pages show the approvals
 * section from then on (users who approve nothing never see it). Failures leave the last list as it was.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { Limits } from "@postern/shared";
import type { Approval } from "@postern/shared";
import { listApprovals } from "../api/approvals.ts";

/** What useApprovals gives a page. */
export interface ApprovalsState {
  /** The pending requests (oldest first), empty until the first answer. */
  approvals: readonly Approval[];
  /** The list had a request at some point of this page view. */
  seen: boolean;
  /** Reads the list again now. */
  refresh: () => Promise<void>;
}

/** Keeps the approver's list fresh while `enabled` (licensed users only). */
export function useApprovals(enabled: boolean): ApprovalsState {
  const [approvals, setApprovals] = useState<readonly Approval[]>([]);
  const [seen, setSeen] = useState(false);
  const mounted = useRef(true);
  const sequence = useRef(0);

  const refresh = useCallback(async (): Promise<void> => {
    const mine = ++sequence.current;
    try {
      const list = await listApprovals();
      if (!mounted.current || mine !== sequence.current) return;
      setApprovals(list);
      if (list.length > 0) setSeen(true);
    } catch {
      // The status refresh shows connection problems; the list keeps its last answer.
    }
  }, []);

  useEffect(() => {
    mounted.current = true;
    if (!enabled) return;
    void refresh();
    const timer = window.setInterval(() => void refresh(), Limits.statusRefreshSeconds * 1000);
    return () => {
      mounted.current = false;
      window.clearInterval(timer);
    };
  }, [enabled, refresh]);

  return { approvals, seen, refresh };
}

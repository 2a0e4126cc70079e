/**
 * Everything both home pages (older Home and NewUserDashboard) do with the signed-in session
 * (docs/reference.md user-portal §2, §4): the live status (30 s refresh, polling after grant or revoke), grant and
 * revoke with busy state and errors, IP discovery every 30 s, logout, the countdown's end (to
 * Login), auto-browse, "back to the protected page" (useReferrer), and use counts for the Top section.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useAtom, useSetAtom } from "jotai";
import { useNavigate } from "@tanstack/react-router";
import { useLingui } from "@lingui/react/macro";
import { GrantStatus } from "@postern/shared";
import type { SessionStatus, StatusAcl } from "@postern/shared";
import { errorText, SESSION_EXPIRED } from "../../ui/api/error-messages.ts";
import { forgetSession } from "../api/session.ts";
import { grant, logout, revoke } from "../api/user.ts";
import { autoBrowseTarget } from "../lib/acl.ts";
import type { AclAction } from "../lib/acl.ts";
import { recordUse } from "../../ui/lib/storage.ts";
import { aclActionErrorsAtom, busyAclIdsAtom, useCountsAtom } from "../state/atoms.ts";
import { useIpDiscovery } from "./useIpDiscovery.ts";
import { useReferrer } from "./useReferrer.ts";
import type { ReferrerNote } from "./useReferrer.ts";
import { useSessionStatus } from "./useSessionStatus.ts";
import { clearReferrer } from "../state/referrer.ts";

/** What useUserSession gives a page. */
export interface UserSession {
  status: SessionStatus;
  refreshError: unknown;
  /** Licensed and UserLicensed: false shows the unlicensed dialog. */
  licensed: boolean;
  busyIds: ReadonlySet<string>;
  actionErrors: Readonly<Record<string, string>>;
  loggingOut: boolean;
  onAction: (acl: StatusAcl, action: AclAction) => void;
  onLogout: () => void;
  onExpired: () => void;
  /** What to tell about the referrer the portal was opened with (issue #14 item 3), or undefined. */
  referrerNote: ReferrerNote | undefined;
  /** The entry of a Knoc that RequiresApproval the user is asking for (its dialog is open), or undefined. */
  asking: StatusAcl | undefined;
  /** Sends the request for `asking` with the user's reason; rejects with the server's error (the dialog shows it). */
  onAsk: (reason: string) => Promise<void>;
  /** Closes the request dialog without asking. */
  onCancelAsk: () => void;
}

/** `initialStatus` is the GET /api/status answer the route guard loaded. */
export function useUserSession(initialStatus: SessionStatus): UserSession {
  const { i18n } = useLingui();
  const navigate = useNavigate();
  const { status, refreshError, watch, patchAcl } = useSessionStatus(initialStatus);
  const [busyIds, setBusyIds] = useAtom(busyAclIdsAtom);
  const [actionErrors, setActionErrors] = useAtom(aclActionErrorsAtom);
  const setUseCounts = useSetAtom(useCountsAtom);
  const [loggingOut, setLoggingOut] = useState(false);
  const licensed = status.Licensed && status.UserLicensed;
  const discovered = useIpDiscovery(licensed);
  const referrer = useReferrer(status, licensed, watch);

  const toLogin = useCallback(
    (error?: string) => {
      forgetSession();
      clearReferrer();
      void navigate({ to: "/", search: error === undefined ? {} : { error } });
    },
    [navigate],
  );

  // Ending the session on the server too keeps a slightly slow server clock from sending the user
  // straight back here from the Login guard.
  const onExpired = useCallback(() => {
    void logout()
      .catch(() => undefined)
      .finally(() => toLogin(SESSION_EXPIRED));
  }, [toLogin]);

  const onLogout = useCallback(() => {
    setLoggingOut(true);
    // Whatever the answer, the user leaves the page; the server ends the session on expiry anyway.
    void logout()
      .catch(() => undefined)
      .finally(() => toLogin());
  }, [toLogin]);

  const [asking, setAsking] = useState<StatusAcl | undefined>(undefined);

  /**
   * Grants (with the approval `reason`), revokes, or withdraws the waiting request of `acl` (a revoke of the entry,
   * which the server takes as the withdrawal: the entry is ready again), with busy state, errors and polling.
   */
  const run = useCallback(
    async (acl: StatusAcl, action: "grant" | "revoke" | "withdraw", reason?: string): Promise<void> => {
      const aclId = acl.ACLID;
      setBusyIds((ids) => new Set(ids).add(aclId));
      setActionErrors(({ [aclId]: _dropped, ...rest }) => rest);
      try {
        if (action === "grant")
          await grant({ ACLID: aclId, IPs: discovered.current, ...(reason !== undefined ? { Reason: reason } : {}) });
        else await revoke(acl.ID);
        if (action === "grant") setUseCounts((counts) => recordUse(counts, aclId));
        if (action === "withdraw") patchAcl(aclId, { Status: GrantStatus.Revoked, Error: "", ApprovalState: null });
        else
          patchAcl(aclId, {
            Status: action === "grant" ? GrantStatus.Pending : GrantStatus.Revoking,
            Error: "",
            ...(reason !== undefined ? { ApprovalState: "pending" as const, ApprovalReason: "" } : {}),
          });
        watch(aclId, action === "grant" ? "grant" : "revoke");
      } finally {
        setBusyIds((ids) => {
          const next = new Set(ids);
          next.delete(aclId);
          return next;
        });
      }
    },
    [discovered, patchAcl, setActionErrors, setBusyIds, setUseCounts, watch],
  );

  const onAction = useCallback(
    (acl: StatusAcl, action: AclAction) => {
      if (action === "pending") return;
      // A Knoc that requires approval asks first (docs/decisions.md "Approval requests").
      if (action === "grant" && acl.RequiresApproval) {
        setAsking(acl);
        return;
      }
      run(acl, action).catch((error: unknown) =>
        setActionErrors((errors) => ({ ...errors, [acl.ACLID]: errorText(i18n, error) })),
      );
    },
    [i18n, run, setActionErrors],
  );

  const onAsk = useCallback(
    async (reason: string) => {
      if (asking === undefined) return;
      await run(asking, "grant", reason);
      setAsking(undefined);
    },
    [asking, run],
  );
  const onCancelAsk = useCallback(() => setAsking(undefined), []);

  // Auto-browse (docs/reference.md user-portal §2): once per page load, when exactly one ACL asks for it;
  // a referrer that may still be followed goes first (docs/decisions.md "Back to the protected page").
  const browsed = useRef(false);
  const referrerActive = referrer.active;
  useEffect(() => {
    const target = autoBrowseTarget(status.ACLs);
    if (target !== undefined && licensed && !browsed.current && !referrerActive) {
      browsed.current = true;
      window.location.assign(target);
    }
  }, [status.ACLs, licensed, referrerActive]);

  return {
    status,
    refreshError,
    licensed,
    busyIds,
    actionErrors,
    loggingOut,
    onAction,
    onLogout,
    onExpired,
    referrerNote: referrer.note,
    asking,
    onAsk,
    onCancelAsk,
  };
}

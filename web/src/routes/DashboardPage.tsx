/**
 * NewUserDashboard, card view (user-portal §2 "New dashboard"): header with countdown, greeting,
 * IP and Logout; ACL cards grouped by category; Grant (POST /api/grant) and Revoke
 * (DELETE /api/sessions/current/granted-acls/{ID}) with polling until the ACL settles (user-portal §4).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useAtom, useAtomValue } from "jotai";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { GrantStatus, Limits } from "@postern/shared";
import type { SessionStatus, StatusAcl } from "@postern/shared";
import { errorText, SESSION_EXPIRED } from "../api/error-messages.ts";
import { forgetSession } from "../api/session.ts";
import { grant, logout, revoke } from "../api/user.ts";
import { AclSection } from "../components/AclSection.tsx";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { SearchBox } from "../components/SearchBox.tsx";
import { SessionSummary } from "../components/SessionSummary.tsx";
import { TopBar } from "../components/TopBar.tsx";
import { UnlicensedNotice } from "../components/UnlicensedNotice.tsx";
import { useDocumentHead } from "../hooks/useDocumentHead.ts";
import { useSessionStatus } from "../hooks/useSessionStatus.ts";
import { autoBrowseTarget, groupByCategory, matchesSearch, visibleAcls } from "../lib/acl.ts";
import type { AclAction } from "../lib/acl.ts";
import { aclActionErrorsAtom, aclSearchAtom, busyAclIdsAtom } from "../state/atoms.ts";

/** `initialStatus` is the GET /api/status answer the route guard loaded. */
export function DashboardPage({ initialStatus }: { initialStatus: SessionStatus }) {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Your access`);
  const navigate = useNavigate();
  const { status, refreshError, watch, patchAcl } = useSessionStatus(initialStatus);
  const [busyIds, setBusyIds] = useAtom(busyAclIdsAtom);
  const [actionErrors, setActionErrors] = useAtom(aclActionErrorsAtom);
  const search = useAtomValue(aclSearchAtom);
  const [loggingOut, setLoggingOut] = useState(false);

  const toLogin = useCallback(
    (error?: string) => {
      forgetSession();
      void navigate({ to: "/", search: error === undefined ? {} : { error } });
    },
    [navigate],
  );

  // Ending the session on the server too keeps a slightly slow server clock from sending the user
  // straight back here from the Login guard.
  const onExpired = useCallback(() => {
    void logout().catch(() => undefined).finally(() => toLogin(SESSION_EXPIRED));
  }, [toLogin]);

  const onLogout = useCallback(() => {
    setLoggingOut(true);
    // Whatever the answer, the user leaves the page; the server ends the session on expiry anyway.
    void logout().catch(() => undefined).finally(() => toLogin());
  }, [toLogin]);

  const onAction = useCallback(
    (acl: StatusAcl, action: AclAction) => {
      if (action === "pending") return;
      const aclId = acl.ACLID;
      setBusyIds((ids) => new Set(ids).add(aclId));
      setActionErrors(({ [aclId]: _dropped, ...rest }) => rest);
      const request = action === "grant" ? grant({ ACLID: aclId, IPs: [] }) : revoke(acl.ID);
      request
        .then(() => {
          patchAcl(aclId, { Status: action === "grant" ? GrantStatus.Pending : GrantStatus.Revoking, Error: "" });
          watch(aclId, action);
        })
        .catch((error: unknown) => setActionErrors((errors) => ({ ...errors, [aclId]: errorText(i18n, error) })))
        .finally(() =>
          setBusyIds((ids) => {
            const next = new Set(ids);
            next.delete(aclId);
            return next;
          }),
        );
    },
    [i18n, patchAcl, setActionErrors, setBusyIds, watch],
  );

  // Auto-browse (user-portal §2): once per page load, when exactly one ACL asks for it.
  const browsed = useRef(false);
  useEffect(() => {
    const target = autoBrowseTarget(status.ACLs);
    if (target !== undefined && !browsed.current) {
      browsed.current = true;
      window.location.assign(target);
    }
  }, [status.ACLs]);

  const acls = useMemo(() => visibleAcls(status.ACLs), [status.ACLs]);
  const groups = useMemo(() => {
    const collator = new Intl.Collator(i18n.locales ?? i18n.locale, { sensitivity: "base", numeric: true });
    return groupByCategory(acls.filter((acl) => matchesSearch(acl, search)), collator);
  }, [acls, search, i18n.locale, i18n.locales]);
  const licensed = status.Licensed && status.UserLicensed;

  return (
    <div className="min-h-dvh">
      <TopBar ends={status.Ends} onExpired={onExpired} onLogout={onLogout} loggingOut={loggingOut} />
      <main className="mx-auto max-w-6xl space-y-8 px-4 py-8 sm:px-6">
        <SessionSummary status={status} />
        {refreshError !== undefined ? <ErrorMessage message={errorText(i18n, refreshError)} /> : null}
        {!licensed ? (
          <UnlicensedNotice onLogout={onLogout} />
        ) : (
          <>
            {acls.length > Limits.searchAboveAclCount ? <SearchBox /> : null}
            {acls.length === 0 ? (
              <p className="rounded-xl border border-dashed border-slate-300 px-6 py-12 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
                <Trans>No resources have been assigned to you yet.</Trans>
              </p>
            ) : groups.length === 0 ? (
              <p className="text-sm text-slate-500 dark:text-slate-400">
                <Trans>No resources match your search.</Trans>
              </p>
            ) : (
              groups.map((group) => <AclSection key={group.category} group={group} busyIds={busyIds} errors={actionErrors} onAction={onAction} />)
            )}
          </>
        )}
      </main>
    </div>
  );
}

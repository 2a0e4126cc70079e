/**
 * The older Home (docs/reference.md user-portal §2 "Older home"): greeting, session countdown in hh:mm:ss, current
 * IP and the note to keep the page open; a table of the ACLs with status and a Grant, Revoke or
 * Pending button; the unlicensed dialog with only Logout; status refreshed every 30 s. Used when
 * the NewUserDashboard setting is off. Loaded on demand. Group approvers see the requests waiting for their
 * decision above the table (ApproverInbox).
 */
import { useMemo } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import type { SessionStatus } from "@postern/shared";
import { errorText } from "../../ui/api/error-messages.ts";
import { AclTable } from "../components/AclTable.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { ReferrerNote } from "../components/ReferrerNote.tsx";
import { SessionSummary } from "../components/SessionSummary.tsx";
import { TopBar } from "../components/TopBar.tsx";
import { UnlicensedDialog } from "../components/UnlicensedDialog.tsx";
import { ApprovalRequestDialog } from "../components/ApprovalRequestDialog.tsx";
import { ApproverInbox } from "../components/ApproverInbox.tsx";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";
import { useUserSession } from "../hooks/useUserSession.ts";
import { visibleAcls } from "../lib/acl.ts";

/** `initialStatus` is the GET /api/status answer the route guard loaded. */
export function HomePage({ initialStatus }: { initialStatus: SessionStatus }) {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Home`);
  const session = useUserSession(initialStatus);
  const { status, licensed } = session;
  const acls = useMemo(() => visibleAcls(status.ACLs), [status.ACLs]);
  return (
    <div className="min-h-dvh">
      <TopBar
        ends={status.Ends}
        onExpired={session.onExpired}
        onLogout={session.onLogout}
        loggingOut={session.loggingOut}
      />
      <main className="mx-auto max-w-4xl space-y-8 px-4 py-8 sm:px-6">
        <SessionSummary status={status} />
        <ReferrerNote note={session.referrerNote} />
        <ApproverInbox enabled={licensed} />
        {session.refreshError !== undefined ? <ErrorMessage message={errorText(i18n, session.refreshError)} /> : null}
        {licensed ? (
          acls.length === 0 ? (
            <p className="rounded-xl border border-dashed border-slate-300 px-6 py-12 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
              <Trans>No resources have been assigned to you yet.</Trans>
            </p>
          ) : (
            <AclTable
              variant="home"
              acls={acls}
              busyIds={session.busyIds}
              errors={session.actionErrors}
              onAction={session.onAction}
            />
          )
        ) : null}
      </main>
      {session.asking ? (
        <ApprovalRequestDialog acl={session.asking} onAsk={session.onAsk} onClose={session.onCancelAsk} />
      ) : null}
      {!licensed ? <UnlicensedDialog onLogout={session.onLogout} loggingOut={session.loggingOut} /> : null}
    </div>
  );
}

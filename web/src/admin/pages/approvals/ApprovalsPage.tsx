/**
 * Approvals (issue #14 item 1, /admin/approvals; docs/decisions.md "Approval requests"): the requests waiting
 * for a decision (user, Knoc, address, the user's reason, when asked, when it expires; actions Approve and
 * Deny) and below them the latest decided ones (state, who decided, a denial's reason). Approve asks for an
 * optional grant length in minutes (ApproveRequestSchema), Deny for the reason the user is shown
 * (DenyRequestSchema); the server's refusal (own request, already decided) opens the error dialog.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Approval, ApprovalRequestState } from "@postern/shared";
import { DataTable } from "../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../ui/kit/DataTable.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { actionsColumn, textColumn } from "../../lib/columns.tsx";
import { relativeTime } from "../../lib/relative-time.ts";
import { approvalQueries } from "../../queries/approvals.ts";
import { ApproveDialog, DenyDialog } from "./DecisionDialogs.tsx";

type Open = { kind: "none" } | { kind: "approve" | "deny"; approval: Approval };

/** The approvals page. */
export function ApprovalsPage() {
  const { t, i18n } = useLingui();
  const approvals = useQuery(approvalQueries.list());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const now = Date.now();
  const when = (iso: string): string => (iso ? relativeTime(iso, now, i18n.locale) : "");
  const stateLabel: Record<ApprovalRequestState, string> = {
    pending: t`Waiting`,
    approved: t`Approved`,
    denied: t`Denied`,
    expired: t`Expired`,
    withdrawn: t`Withdrawn`,
  };
  const pending = approvals.data?.filter((a) => a.State === "pending");
  const decided = approvals.data?.filter((a) => a.State !== "pending");

  const waitingColumns: Column<Approval>[] = [
    textColumn("user", t`User`, (a) => a.UserName),
    textColumn("knoc", t`Knoc`, (a) => a.ACL),
    textColumn("address", t`Address`, (a) => a.IPAddress),
    textColumn("reason", t`Reason`, (a) => a.Reason),
    { id: "asked", header: t`Asked`, sortValue: (a) => a.Created, cell: (a) => when(a.Created) },
    { id: "expires", header: t`Expires`, sortValue: (a) => a.Expires, cell: (a) => when(a.Expires) },
    actionsColumn(
      t`Actions`,
      (a) => `${a.UserName} – ${a.ACL}`,
      (a) => [
        { label: t`Approve`, onSelect: () => setOpen({ kind: "approve", approval: a }) },
        { label: t`Deny`, danger: true, onSelect: () => setOpen({ kind: "deny", approval: a }) },
      ],
    ),
  ];
  const decidedColumns: Column<Approval>[] = [
    textColumn("user", t`User`, (a) => a.UserName),
    textColumn("knoc", t`Knoc`, (a) => a.ACL),
    textColumn("state", t`Decision`, (a) => stateLabel[a.State]),
    textColumn("by", t`Decided by`, (a) => a.DecidedBy),
    textColumn("why", t`Reason`, (a) => (a.State === "denied" ? a.DenyReason : a.Reason)),
    { id: "at", header: t`When`, sortValue: (a) => a.DecidedAt, cell: (a) => when(a.DecidedAt) },
  ];

  return (
    <>
      <PageHeader title={t`Approvals`} />
      <section aria-labelledby="approvals-waiting" className="space-y-3">
        <h2 id="approvals-waiting" className="text-lg font-semibold text-slate-900 dark:text-white">
          <Trans>Waiting for a decision</Trans>
        </h2>
        <DataTable
          label={t`Waiting for a decision`}
          testId="approvals-pending"
          columns={waitingColumns}
          rows={pending}
          rowKey={(a) => a.ID}
          rowProps={(a) => ({ "data-approval-id": a.ID })}
          defaultSort={{ id: "asked" }}
          empty={<Trans>No requests are waiting.</Trans>}
        />
      </section>
      <section aria-labelledby="approvals-decided" className="mt-10 space-y-3">
        <h2 id="approvals-decided" className="text-lg font-semibold text-slate-900 dark:text-white">
          <Trans>Recent decisions</Trans>
        </h2>
        <DataTable
          label={t`Recent decisions`}
          testId="approvals-decided"
          searchable
          columns={decidedColumns}
          rows={decided}
          rowKey={(a) => a.ID}
          rowProps={(a) => ({ "data-approval-id": a.ID, "data-state": a.State })}
          defaultSort={{ id: "at", desc: true }}
          empty={<Trans>No decisions yet.</Trans>}
        />
      </section>
      {open.kind === "approve" ? <ApproveDialog approval={open.approval} onClose={close} /> : null}
      {open.kind === "deny" ? <DenyDialog approval={open.approval} onClose={close} /> : null}
    </>
  );
}

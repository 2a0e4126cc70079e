/**
 * The home pages' list for group approvers (issue #14 item 1; docs/decisions.md "Approval requests"): the pending
 * requests of Knocs the user's groups approve — who asks, for which Knoc, from which address, why, when it was
 * asked and when it expires — each with Approve (optionally shortened, in minutes) and Deny (with the reason the
 * requester is shown), in the UI kit's decision dialogs shared with the admin console. The server's refusal
 * (403 err.cannotApproveOwnRequest, 409 err.approvalNotPending, 404) is shown in the dialog and the list is read
 * again; a decision made is confirmed above the list. Loaded on demand (its own chunk): only approvers need it.
 */
import { useState } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Approval, ApproveRequest, DenyRequest } from "@postern/shared";
import { errorText } from "../../ui/api/error-messages.ts";
import { ApproveDialog, DenyDialog } from "../../ui/kit/ApprovalDecisions.tsx";
import { Button } from "../../ui/kit/Button.tsx";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { approveRequest, denyRequest } from "../api/approvals.ts";

type Open = { kind: "none" } | { kind: "approve" | "deny"; approval: Approval };

/** Props: the pending requests (from useApprovals) and how to read them again after a decision. */
export function ApprovalsSection({
  approvals,
  onChanged,
}: {
  approvals: readonly Approval[];
  onChanged: () => Promise<void>;
}) {
  const { t, i18n } = useLingui();
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const when = (iso: string): string =>
    iso ? i18n.date(new Date(iso), { dateStyle: "short", timeStyle: "short" }) : "";
  const show = (kind: "approve" | "deny", approval: Approval): void => {
    setError(undefined);
    setDone(undefined);
    setOpen({ kind, approval });
  };
  const close = (): void => {
    setOpen({ kind: "none" });
    setError(undefined);
  };

  /** Sends a decision; on success closes the dialog and confirms it, on refusal shows why and reads the list again. */
  async function decide(call: () => Promise<unknown>, confirmation: string): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      setOpen({ kind: "none" });
      setDone(confirmation);
    } catch (failure) {
      setError(errorText(i18n, failure));
    } finally {
      setBusy(false);
      await onChanged();
    }
  }

  const columns: Column<Approval>[] = [
    { id: "user", header: t`User`, cell: (a) => a.UserName, sortValue: (a) => a.UserName },
    { id: "knoc", header: t`Knoc`, cell: (a) => a.ACL, sortValue: (a) => a.ACL },
    { id: "address", header: t`Address`, cell: (a) => a.IPAddress },
    { id: "reason", header: t`Reason`, cell: (a) => a.Reason },
    { id: "asked", header: t`Asked`, cell: (a) => when(a.Created), sortValue: (a) => a.Created },
    { id: "expires", header: t`Expires`, cell: (a) => when(a.Expires), sortValue: (a) => a.Expires },
    {
      id: "actions",
      header: t`Actions`,
      srOnlyHeader: true,
      className: "w-px whitespace-nowrap text-right",
      cell: (a) => (
        <div className="flex justify-end gap-2">
          <Button variant="primary" aria-label={t`Approve ${a.UserName} – ${a.ACL}`} onClick={() => show("approve", a)}>
            <Trans>Approve</Trans>
          </Button>
          <Button aria-label={t`Deny ${a.UserName} – ${a.ACL}`} onClick={() => show("deny", a)}>
            <Trans>Deny</Trans>
          </Button>
        </div>
      ),
    },
  ];

  return (
    <section aria-labelledby="approvals-heading" data-testid="approvals-section" className="space-y-3">
      <h2 id="approvals-heading" className="text-lg font-semibold text-slate-900 dark:text-white">
        <Trans>Waiting for your decision</Trans>
      </h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        <Trans>You approve these resources for others. Approving grants the access at once.</Trans>
      </p>
      {done !== undefined ? (
        <p
          role="status"
          className="rounded-md bg-emerald-50 px-3 py-2 text-sm text-emerald-800 ring-1 ring-emerald-200 dark:bg-emerald-950/50 dark:text-emerald-200 dark:ring-emerald-900"
        >
          {done}
        </p>
      ) : null}
      <DataTable
        label={t`Waiting for your decision`}
        testId="approvals-pending"
        columns={columns}
        rows={approvals}
        rowKey={(a) => a.ID}
        rowProps={(a) => ({ "data-approval-id": a.ID })}
        defaultSort={{ id: "asked" }}
        empty={<Trans>No requests are waiting for you.</Trans>}
      />
      {open.kind === "approve" ? (
        <ApproveDialog
          approval={open.approval}
          busy={busy}
          error={error}
          onClose={close}
          onApprove={(values: ApproveRequest) =>
            void decide(() => approveRequest(open.approval.ID, values), t`Request approved`)
          }
        />
      ) : null}
      {open.kind === "deny" ? (
        <DenyDialog
          approval={open.approval}
          busy={busy}
          error={error}
          onClose={close}
          onDeny={(values: DenyRequest) => void decide(() => denyRequest(open.approval.ID, values), t`Request denied`)}
        />
      ) : null}
    </section>
  );
}

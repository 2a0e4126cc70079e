/**
 * Asking for a Knoc that RequiresApproval (issue #14 item 1; docs/decisions.md "Approval requests"): the user
 * may tell the approvers why (optional, at most MAX_APPROVAL_REASON characters) and sends the request; the
 * entry then waits for an approver. The server's refusal is shown in the dialog.
 */
import { useState } from "react";
import type { FormEvent } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { MAX_APPROVAL_REASON } from "@postern/shared";
import type { StatusAcl } from "@postern/shared";
import { errorText } from "../../ui/api/error-messages.ts";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { Spinner } from "../../ui/components/Spinner.tsx";
import { Modal } from "./Modal.tsx";

/** Props: the entry asked for, `onAsk(reason)` sending the request (rejects with the server's error), and Cancel. */
export function ApprovalRequestDialog({
  acl,
  onAsk,
  onClose,
}: {
  acl: StatusAcl;
  onAsk: (reason: string) => Promise<void>;
  onClose: () => void;
}) {
  const { i18n } = useLingui();
  const [reason, setReason] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  async function submit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    setSending(true);
    setError(undefined);
    try {
      await onAsk(reason.trim());
    } catch (failure) {
      setError(errorText(i18n, failure));
      setSending(false);
    }
  }

  return (
    <Modal title={<Trans>Ask for access to {acl.Description}</Trans>} onClose={onClose} testId="approval-dialog">
      <form className="mt-4 space-y-4" onSubmit={(event) => void submit(event)} noValidate>
        <p className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>An approver has to agree before you get access. You will see their decision here.</Trans>
        </p>
        <div>
          <label htmlFor="approval-reason" className="block text-sm font-medium text-slate-800 dark:text-slate-200">
            <Trans>Reason (optional)</Trans>
          </label>
          <textarea
            id="approval-reason"
            name="reason"
            rows={3}
            maxLength={MAX_APPROVAL_REASON}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            autoFocus
            className="mt-1 block w-full rounded-md border-0 px-3 py-2 text-sm text-slate-900 ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-accent-600 dark:bg-slate-800 dark:text-white dark:ring-slate-600"
          />
        </div>
        <ErrorMessage message={error} />
        <div className="flex justify-end gap-3 pt-2">
          <button
            type="button"
            onClick={onClose}
            className="rounded-md px-4 py-2 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
          >
            <Trans>Cancel</Trans>
          </button>
          <button
            type="submit"
            disabled={sending}
            aria-busy={sending || undefined}
            className="inline-flex items-center gap-2 rounded-md bg-accent-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-accent-800 disabled:cursor-wait disabled:opacity-70"
          >
            {sending ? <Spinner /> : null}
            <Trans>Ask for access</Trans>
          </button>
        </div>
      </form>
    </Modal>
  );
}

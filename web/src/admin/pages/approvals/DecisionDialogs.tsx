/**
 * The console's two decisions of an approval request (issue #14 item 1): the kit's ApproveDialog and DenyDialog
 * (ui/kit/ApprovalDecisions.tsx, shared with the portal) running the console's mutations — a toast and the
 * dialog closed on success; the server's refusal opens the error dialog and leaves the form open.
 */
import { useLingui } from "@lingui/react/macro";
import type { Approval } from "@postern/shared";
import { ApproveDialog as KitApproveDialog, DenyDialog as KitDenyDialog } from "../../../ui/kit/ApprovalDecisions.tsx";
import type { FieldErrorLike } from "../../../ui/kit/field-error.ts";
import { useFeedback } from "../../lib/feedback.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import { useApprove, useDeny } from "../../queries/approvals.ts";

/** Approve: applies the grant at once, optionally for `Minutes` only. */
export function ApproveDialog({ approval, onClose }: { approval: Approval; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const approve = useApprove();
  return (
    <KitApproveDialog
      approval={approval}
      busy={approve.isPending}
      onClose={onClose}
      fieldError={(e: FieldErrorLike | undefined) => fieldErrorText(i18n, e)}
      onApprove={(values) => approve.mutate({ ...values, ID: approval.ID }, feedback(t`Request approved`, onClose))}
    />
  );
}

/** Deny: ends the request with the reason the user is shown. */
export function DenyDialog({ approval, onClose }: { approval: Approval; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const deny = useDeny();
  return (
    <KitDenyDialog
      approval={approval}
      busy={deny.isPending}
      onClose={onClose}
      fieldError={(e: FieldErrorLike | undefined) => fieldErrorText(i18n, e)}
      onDeny={(values) => deny.mutate({ ...values, ID: approval.ID }, feedback(t`Request denied`, onClose))}
    />
  );
}

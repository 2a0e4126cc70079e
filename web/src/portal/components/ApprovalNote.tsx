/**
 * What a status entry of a Knoc that RequiresApproval says of its latest request (issue #14 item 1;
 * docs/decisions.md "Approval requests"): waiting for an approver (and until when), approved (while the grant
 * holds), denied with the approver's reason, or expired. Nothing for other entries. The element carries
 * `data-approval-state`.
 */
import { Trans, useLingui } from "@lingui/react/macro";
import { GrantStatus } from "@postern/shared";
import type { StatusAcl } from "@postern/shared";
import { isIssued } from "@postern/shared";

/** Props: the status entry; `small` for the table rows. */
export function ApprovalNote({ acl, small = false }: { acl: StatusAcl; small?: boolean }) {
  const { i18n } = useLingui();
  const state = acl.ApprovalState ?? null;
  if (!acl.RequiresApproval || state === null) return null;
  if (state === "approved" && !isIssued(acl.Status) && acl.Status !== GrantStatus.Pending) return null;
  const size = small ? "mt-1 text-xs" : "mt-3 text-sm";
  const expires = acl.ApprovalExpires
    ? i18n.date(new Date(acl.ApprovalExpires), { hour: "2-digit", minute: "2-digit" })
    : "";
  return (
    <p
      data-approval-state={state}
      role="status"
      className={`${size} ${state === "denied" ? "text-red-700 dark:text-red-300" : state === "expired" ? "text-amber-800 dark:text-amber-300" : "text-slate-700 dark:text-slate-300"}`}
    >
      {state === "pending" ? (
        expires ? (
          <Trans>Waiting for an approver (until {expires}).</Trans>
        ) : (
          <Trans>Waiting for an approver.</Trans>
        )
      ) : null}
      {state === "approved" ? <Trans>Your request was approved.</Trans> : null}
      {state === "denied" ? <Trans>Your request was denied: {acl.ApprovalReason ?? ""}</Trans> : null}
      {state === "expired" ? <Trans>Your request was not answered in time. You can ask again.</Trans> : null}
    </p>
  );
}

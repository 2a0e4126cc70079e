/**
 * The button of an ACL card (docs/reference.md user-portal §4): "Grant Access", "Revoke Access", a disabled "Pending",
 * or "Withdraw request" while a request waits for an approver (docs/decisions.md "Approval requests").
 */
import { useLingui } from "@lingui/react/macro";
import type { AclAction } from "../lib/acl.ts";

const STYLE: Record<AclAction, string> = {
  grant:
    "bg-accent-700 text-white shadow-sm hover:bg-accent-800 disabled:bg-slate-300 disabled:text-slate-600 dark:disabled:bg-slate-700 dark:disabled:text-slate-400",
  revoke:
    "bg-white text-red-700 ring-1 ring-inset ring-red-300 hover:bg-red-50 disabled:text-slate-500 disabled:ring-slate-200 dark:bg-slate-900 dark:text-red-300 dark:ring-red-800 dark:hover:bg-red-950/40",
  withdraw:
    "bg-white text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 disabled:text-slate-500 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800",
  pending:
    "bg-slate-100 text-slate-500 ring-1 ring-inset ring-slate-200 dark:bg-slate-800 dark:text-slate-400 dark:ring-slate-700",
};

/** `busy` while the request runs; `disabled` for ACLs with DisableForUser. Pending is always disabled. */
export function AclActionButton({
  action,
  busy,
  disabled,
  onClick,
}: {
  action: AclAction;
  busy: boolean;
  disabled: boolean;
  onClick: () => void;
}) {
  const { t } = useLingui();
  const label =
    action === "revoke"
      ? t`Revoke Access`
      : action === "grant"
        ? t`Grant Access`
        : action === "withdraw"
          ? t`Withdraw request`
          : t`Pending`;
  return (
    <button
      type="button"
      onClick={onClick}
      disabled={disabled || busy || action === "pending"}
      aria-busy={busy || undefined}
      data-action={action}
      className={`inline-flex min-w-28 shrink-0 items-center whitespace-nowrap justify-center gap-2 rounded-md px-3 py-2 text-sm font-semibold transition-colors disabled:cursor-not-allowed ${STYLE[action]}`}
    >
      {busy ? (
        <span
          aria-hidden="true"
          className="size-3.5 animate-spin rounded-full border-2 border-current border-r-transparent"
        />
      ) : null}
      {label}
    </button>
  );
}

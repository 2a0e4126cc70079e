/**
 * Grant status badge of an ACL card (docs/reference.md user-portal §4). The element carries `data-status` (the code)
 * and `data-kind`; its text is only the label ("Granted", "Pending", …) so tests can match it exactly.
 * It turns orange when the grant has less than 900 s left (`expiring`).
 */
import { useLingui } from "@lingui/react/macro";
import { badgeKind } from "../lib/acl.ts";
import type { BadgeKind } from "../lib/acl.ts";

const STYLE: Record<BadgeKind, string> = {
  granted: "bg-emerald-50 text-emerald-800 ring-emerald-600/25 dark:bg-emerald-950/60 dark:text-emerald-300",
  error: "bg-red-50 text-red-800 ring-red-600/25 dark:bg-red-950/60 dark:text-red-300",
  revokeError: "bg-red-50 text-red-800 ring-red-600/25 dark:bg-red-950/60 dark:text-red-300",
  pending: "bg-sky-50 text-sky-800 ring-sky-600/25 dark:bg-sky-950/60 dark:text-sky-300",
  applying: "bg-sky-50 text-sky-800 ring-sky-600/25 dark:bg-sky-950/60 dark:text-sky-300",
  revoking: "bg-sky-50 text-sky-800 ring-sky-600/25 dark:bg-sky-950/60 dark:text-sky-300",
  offline: "bg-amber-50 text-amber-800 ring-amber-600/30 dark:bg-amber-950/60 dark:text-amber-300",
  published: "bg-accent-50 text-accent-800 ring-accent-600/25 dark:bg-accent-950/60 dark:text-accent-300",
  ready: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
  unknown: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
};

const EXPIRING = "bg-orange-50 text-orange-800 ring-orange-600/30 dark:bg-orange-950/60 dark:text-orange-300";

const DOT: Partial<Record<BadgeKind, string>> = {
  granted: "bg-emerald-500",
  error: "bg-red-500",
  revokeError: "bg-red-500",
  pending: "bg-sky-500 animate-pulse",
  applying: "bg-sky-500 animate-pulse",
  revoking: "bg-sky-500 animate-pulse",
  offline: "bg-amber-500",
  published: "bg-accent-500",
};

/** `status` is the grant status code; `expiring` marks less than 900 s left. */
export function StatusBadge({ status, expiring }: { status: number; expiring: boolean }) {
  const { t } = useLingui();
  const kind = badgeKind(status);
  const labels: Record<BadgeKind, string> = {
    granted: t`Granted`,
    error: t`Error`,
    pending: t`Pending`,
    offline: t`Agent offline`,
    ready: t`Ready`,
    applying: t`Applying`,
    published: t`Published`,
    revoking: t`Revoking`,
    revokeError: t`Revoke failed`,
    unknown: t`Unknown`,
  };
  return (
    <span
      data-status={status}
      data-kind={kind}
      data-expiring={expiring ? "true" : undefined}
      className={`inline-flex shrink-0 items-center gap-1.5 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${expiring ? EXPIRING : STYLE[kind]}`}
    >
      <span
        aria-hidden="true"
        className={`size-1.5 rounded-full ${expiring ? "bg-orange-500" : (DOT[kind] ?? "bg-slate-400")}`}
      />
      {labels[kind]}
    </span>
  );
}

/**
 * One ACL card of the dashboard's card view (user-portal §2): icon, Description, URL link, status
 * badge with time left, and the Grant/Revoke/Pending button. The card carries `data-acl-id` (ACLID)
 * and `data-entry-id` (the status entry's ID used by DELETE).
 */
import { useId } from "react";
import { useAtomValue } from "jotai";
import { useLingui } from "@lingui/react/macro";
import { GrantStatus, Limits } from "@postern/shared";
import type { StatusAcl } from "@postern/shared";
import { aclAction, isLinkableUrl, linkLabel } from "../lib/acl.ts";
import type { AclAction } from "../lib/acl.ts";
import { formatTimeLeft, isExpiringSoon, secondsUntil } from "../lib/format.ts";
import { nowAtom } from "../state/atoms.ts";
import { AclActionButton } from "./AclActionButton.tsx";
import { AclIcon } from "./AclIcon.tsx";
import { ErrorMessage } from "./ErrorMessage.tsx";
import { StatusBadge } from "./StatusBadge.tsx";

/** Props: the status entry, whether its request runs, its last action error, and the click handler. */
export interface AclCardProps {
  acl: StatusAcl;
  busy: boolean;
  actionError: string | undefined;
  onAction: (acl: StatusAcl, action: AclAction) => void;
}

/** A card for one ACL; disabled (dimmed, button off) when DisableForUser is set (user-portal §4). */
export function AclCard({ acl, busy, actionError, onAction }: AclCardProps) {
  const { t } = useLingui();
  const titleId = useId();
  const now = useAtomValue(nowAtom);
  const action = aclAction(acl, now);
  const left = acl.ExpiredAfter === "" ? Number.NaN : secondsUntil(acl.ExpiredAfter, now);
  const timeLeft = action === "revoke" ? formatTimeLeft(left) : "";
  const expiring = timeLeft !== "" && isExpiringSoon(left, Limits.expiringSoonSeconds);
  const disabled = acl.DisableForUser;
  const description = acl.Description;
  const failed = acl.Status === GrantStatus.GrantError || acl.Status === GrantStatus.RevokedWithError;

  return (
    <article
      data-acl-id={acl.ACLID}
      data-entry-id={acl.ID}
      aria-labelledby={titleId}
      data-disabled={disabled ? "true" : undefined}
      className={`flex flex-col rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200 transition-shadow hover:shadow-md dark:bg-slate-900 dark:ring-slate-800 ${disabled ? "opacity-60" : ""}`}
    >
      <div className="flex items-start gap-3">
        <AclIcon icon={acl.Icon} label={acl.Description} />
        <div className="min-w-0 flex-1">
          <h3 id={titleId} className="truncate font-semibold text-slate-900 dark:text-white" title={acl.Description}>
            {acl.Description}
          </h3>
          {acl.URL !== "" && isLinkableUrl(acl.URL) ? (
            <a
              href={acl.URL}
              target="_blank"
              rel="noopener noreferrer"
              aria-label={t`Open ${description}`}
              className="mt-0.5 inline-flex max-w-full items-center gap-1 truncate text-sm text-accent-700 hover:underline dark:text-accent-300"
            >
              <span className="truncate">{linkLabel(acl.URL)}</span>
              <svg viewBox="0 0 20 20" aria-hidden="true" className="size-3.5 shrink-0 fill-current">
                <path d="M11 3a1 1 0 1 0 0 2h2.59l-6.3 6.3a1 1 0 1 0 1.42 1.4L15 6.42V9a1 1 0 1 0 2 0V4a1 1 0 0 0-1-1h-5ZM5 5a2 2 0 0 0-2 2v8c0 1.1.9 2 2 2h8a2 2 0 0 0 2-2v-3a1 1 0 1 0-2 0v3H5V7h3a1 1 0 0 0 0-2H5Z" />
              </svg>
            </a>
          ) : null}
        </div>
      </div>

      {failed && acl.Error !== "" ? <p className="mt-3 text-sm text-red-700 dark:text-red-300">{acl.Error}</p> : null}
      <ErrorMessage message={actionError} className="mt-3" />

      <div className="mt-auto flex items-center justify-between gap-3 pt-4">
        <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
          <StatusBadge status={acl.Status} expiring={expiring} />
          <span
            data-time-left={timeLeft === "" ? undefined : left}
            className={`text-xs tabular-nums ${expiring ? "font-medium text-orange-700 dark:text-orange-300" : "text-slate-500 dark:text-slate-400"}`}
          >
            {disabled ? t`Unavailable` : timeLeft !== "" ? t`${timeLeft} left` : ""}
          </span>
        </div>
        <AclActionButton action={action} busy={busy} disabled={disabled} onClick={() => onAction(acl, action)} />
      </div>
    </article>
  );
}

/**
 * One ACL card of the dashboard's card view (docs/reference.md user-portal §2): icon, Description, URL link,
 * favourite star, status badge with time left, and the Grant/Revoke/Pending button. The card
 * carries `data-acl-id` (ACLID) and `data-entry-id` (the status entry's ID used by DELETE).
 */
import { useId } from "react";
import { useLingui } from "@lingui/react/macro";
import type { StatusAcl } from "@postern/shared";
import { useAclDisplay } from "../hooks/useAclDisplay.ts";
import type { AclAction } from "../lib/acl.ts";
import { AclActionButton } from "./AclActionButton.tsx";
import { AclIcon } from "./AclIcon.tsx";
import { AclLink } from "./AclLink.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { grantErrorText } from "../../ui/api/error-messages.ts";
import { FavouriteButton } from "./FavouriteButton.tsx";
import { StatusBadge } from "./StatusBadge.tsx";
import { ApprovalNote } from "./ApprovalNote.tsx";

/** Props: the status entry, its request and error state, favourite state and the handlers. */
export interface AclCardProps {
  acl: StatusAcl;
  busy: boolean;
  actionError: string | undefined;
  onAction: (acl: StatusAcl, action: AclAction) => void;
  favourite: boolean;
  onToggleFavourite: (aclId: string) => void;
}

/** A card for one ACL; disabled (dimmed, button off) when DisableForUser is set (docs/reference.md user-portal §4). */
export function AclCard({ acl, busy, actionError, onAction, favourite, onToggleFavourite }: AclCardProps) {
  const { t, i18n } = useLingui();
  const titleId = useId();
  const { action, secondsLeft, timeLeft, expiring, failed } = useAclDisplay(acl);
  const disabled = acl.DisableForUser;

  return (
    <article
      data-acl-id={acl.ACLID}
      data-entry-id={acl.ID}
      aria-labelledby={titleId}
      data-disabled={disabled ? "true" : undefined}
      className={`flex flex-col rounded-xl p-4 ring-1 ${disabled ? "border border-dashed border-slate-300 bg-slate-50 ring-transparent dark:border-slate-700 dark:bg-slate-900/40" : "bg-white shadow-sm ring-slate-200 transition-shadow hover:shadow-md dark:bg-slate-900 dark:ring-slate-800"}`}
    >
      <div className="flex items-start gap-3">
        <AclIcon icon={acl.Icon} label={acl.Description} />
        <div className="min-w-0 flex-1">
          <h3 id={titleId} className="truncate font-semibold text-slate-900 dark:text-white" title={acl.Description}>
            {acl.Description}
          </h3>
          <AclLink acl={acl} />
        </div>
        <FavouriteButton
          description={acl.Description}
          favourite={favourite}
          onToggle={() => onToggleFavourite(acl.ACLID)}
        />
      </div>

      {failed && acl.Error !== "" ? (
        <p data-acl-error className="mt-3 text-sm text-red-700 dark:text-red-300">
          {grantErrorText(i18n, acl.Error)}
        </p>
      ) : null}
      <ApprovalNote acl={acl} />
      <ErrorMessage message={actionError} className="mt-3" />

      <div className="mt-auto flex items-center justify-between gap-3 pt-4">
        <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
          <StatusBadge status={acl.Status} expiring={expiring} />
          <span
            data-time-left={timeLeft === "" ? undefined : secondsLeft}
            className={`text-xs tabular-nums ${expiring ? "font-medium text-orange-700 dark:text-orange-300" : "text-slate-600 dark:text-slate-400"}`}
          >
            {disabled ? t`Unavailable` : timeLeft !== "" ? t`${timeLeft} left` : ""}
          </span>
        </div>
        <AclActionButton action={action} busy={busy} disabled={disabled} onClick={() => onAction(acl, action)} />
      </div>
    </article>
  );
}

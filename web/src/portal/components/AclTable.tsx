/**
 * ACLs as a table: the new dashboard's list view (docs/reference.md user-portal §2 "List view: a table with columns
 * Favourite, Category, System, Access") and the older Home's table ("A table of ACL descriptions
 * with status and a Grant, Revoke or Pending button": columns System, Status, Access). Rows carry
 * `data-acl-id` and `data-entry-id` like the cards.
 */
import { useLingui } from "@lingui/react/macro";
import type { StatusAcl } from "@postern/shared";
import { useAclDisplay } from "../hooks/useAclDisplay.ts";
import { useMediaQuery } from "../../ui/hooks/useMediaQuery.ts";
import { DEFAULT_CATEGORY } from "../lib/acl.ts";
import type { AclAction } from "../lib/acl.ts";
import { AclActionButton } from "./AclActionButton.tsx";
import { AclIcon } from "./AclIcon.tsx";
import { AclLink } from "./AclLink.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { grantErrorText } from "../../ui/api/error-messages.ts";
import { FavouriteButton } from "./FavouriteButton.tsx";
import { StatusBadge } from "./StatusBadge.tsx";
import { ApprovalNote } from "./ApprovalNote.tsx";

/** Props: which table (list view or older Home), the rows in order, their state and the handlers. */
export interface AclTableProps {
  variant: "list" | "home";
  acls: readonly StatusAcl[];
  busyIds: ReadonlySet<string>;
  errors: Readonly<Record<string, string>>;
  onAction: (acl: StatusAcl, action: AclAction) => void;
  favouriteIds?: ReadonlySet<string>;
  onToggleFavourite?: (aclId: string) => void;
}

const th = "px-3 py-2.5 text-left text-xs font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400";

/**
 * The table. On narrow screens it keeps the button in view: the list view's Category moves under
 * the description below 768 px, the older Home's Status below 640 px.
 */
export function AclTable({ variant, acls, busyIds, errors, onAction, favouriteIds, onToggleFavourite }: AclTableProps) {
  const { t } = useLingui();
  const categoryColumn = useMediaQuery("(min-width: 768px)");
  const statusColumn = useMediaQuery("(min-width: 640px)");
  return (
    <div className="overflow-x-auto rounded-xl bg-white shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800">
      <table
        className="min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-800"
        data-testid={variant === "list" ? "acl-list" : "acl-table"}
      >
        <caption className="sr-only">{t`Your resources`}</caption>
        <thead className="bg-slate-50 dark:bg-slate-900/60">
          <tr>
            {variant === "list" ? (
              <>
                <th scope="col" className={`${th} w-12`}>{t`Favourite`}</th>
                {categoryColumn ? <th scope="col" className={th}>{t`Category`}</th> : null}
                <th scope="col" className={th}>{t`System`}</th>
                <th scope="col" className={th}>{t`Access`}</th>
              </>
            ) : (
              <>
                <th scope="col" className={th}>{t`System`}</th>
                {statusColumn ? <th scope="col" className={th}>{t`Status`}</th> : null}
                <th scope="col" className={th}>{t`Access`}</th>
              </>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {acls.map((acl) => (
            <AclRow
              key={acl.ACLID}
              variant={variant}
              acl={acl}
              busy={busyIds.has(acl.ACLID)}
              actionError={errors[acl.ACLID]}
              onAction={onAction}
              favourite={favouriteIds?.has(acl.ACLID) ?? false}
              onToggleFavourite={onToggleFavourite}
              separateColumn={variant === "list" ? categoryColumn : statusColumn}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface AclRowProps {
  variant: "list" | "home";
  acl: StatusAcl;
  busy: boolean;
  actionError: string | undefined;
  onAction: (acl: StatusAcl, action: AclAction) => void;
  favourite: boolean;
  onToggleFavourite: ((aclId: string) => void) | undefined;
  /** The list view's Category, or the older Home's Status, has its own column (else it goes under the description). */
  separateColumn: boolean;
}

function AclRow({
  variant,
  acl,
  busy,
  actionError,
  onAction,
  favourite,
  onToggleFavourite,
  separateColumn,
}: AclRowProps) {
  const { t, i18n } = useLingui();
  const { action, secondsLeft, timeLeft, expiring, failed } = useAclDisplay(acl);
  const disabled = acl.DisableForUser;
  const category = acl.Category.trim() === "" || acl.Category === DEFAULT_CATEGORY ? t`Other` : acl.Category;
  const status = (
    <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <StatusBadge status={acl.Status} expiring={expiring} />
      <span
        data-time-left={timeLeft === "" ? undefined : secondsLeft}
        className={`text-xs tabular-nums ${expiring ? "font-medium text-orange-700 dark:text-orange-300" : "text-slate-600 dark:text-slate-400"}`}
      >
        {disabled ? t`Unavailable` : timeLeft !== "" ? t`${timeLeft} left` : ""}
      </span>
    </div>
  );
  const button = (
    <AclActionButton action={action} busy={busy} disabled={disabled} onClick={() => onAction(acl, action)} />
  );
  const problems = (
    <>
      {failed && acl.Error !== "" ? (
        <p data-acl-error className="mt-1 text-xs text-red-700 dark:text-red-300">
          {grantErrorText(i18n, acl.Error)}
        </p>
      ) : null}
      <ApprovalNote acl={acl} small />
      <ErrorMessage message={actionError} className="mt-2" />
    </>
  );
  return (
    <tr
      data-acl-id={acl.ACLID}
      data-entry-id={acl.ID}
      data-disabled={disabled ? "true" : undefined}
      className={disabled ? "bg-slate-50 dark:bg-slate-900/40" : undefined}
    >
      {variant === "list" ? (
        <td className="px-3 py-3 align-middle">
          <FavouriteButton
            description={acl.Description}
            favourite={favourite}
            onToggle={() => onToggleFavourite?.(acl.ACLID)}
          />
        </td>
      ) : null}
      {variant === "list" && separateColumn ? (
        <td className="whitespace-nowrap px-3 py-3 align-middle text-slate-700 dark:text-slate-300">{category}</td>
      ) : null}
      <td className="px-3 py-3 align-middle">
        <div className="flex items-center gap-3">
          <AclIcon icon={acl.Icon} label={acl.Description} small />
          <div className="min-w-0">
            <div className="font-medium text-slate-900 dark:text-white">{acl.Description}</div>
            {variant === "list" && !separateColumn ? (
              <div className="text-xs text-slate-600 dark:text-slate-400">{category}</div>
            ) : null}
            <AclLink acl={acl} wrap />
            {variant === "home" && !separateColumn ? <div className="mt-1">{status}</div> : null}
          </div>
        </div>
        {variant === "home" ? problems : null}
      </td>
      {variant === "list" ? (
        <td className="px-3 py-3 align-middle">
          <div className="flex flex-wrap items-center justify-between gap-3">
            {status}
            {button}
          </div>
          {problems}
        </td>
      ) : (
        <>
          {separateColumn ? <td className="px-3 py-3 align-middle">{status}</td> : null}
          <td className="w-px whitespace-nowrap px-3 py-3 text-right align-middle">{button}</td>
        </>
      )}
    </tr>
  );
}

/**
 * A category section of the card view (user-portal §2): heading and a responsive grid of cards.
 */
import { useId } from "react";
import { useLingui } from "@lingui/react/macro";
import type { StatusAcl } from "@postern/shared";
import type { AclAction, AclGroup } from "../lib/acl.ts";
import { AclCard } from "./AclCard.tsx";

/** Props: the group, the ACLIDs with requests in flight, per-ACL action errors and the click handler. */
export interface AclSectionProps {
  group: AclGroup;
  busyIds: ReadonlySet<string>;
  errors: Readonly<Record<string, string>>;
  onAction: (acl: StatusAcl, action: AclAction) => void;
}

/** One category; the Default category is titled "Other". */
export function AclSection({ group, busyIds, errors, onAction }: AclSectionProps) {
  const { t } = useLingui();
  const headingId = useId();
  const title = group.isDefault ? t`Other` : group.category;
  return (
    <section aria-labelledby={headingId} data-category={group.category} className="space-y-3">
      <h2 id={headingId} className="flex items-center gap-2 text-sm font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">
        {title}
        <span aria-hidden="true" className="rounded-full bg-slate-200 px-2 text-xs font-medium text-slate-600 dark:bg-slate-800 dark:text-slate-300">{group.acls.length}</span>
      </h2>
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
        {group.acls.map((acl) => (
          <AclCard key={acl.ACLID} acl={acl} busy={busyIds.has(acl.ACLID)} actionError={errors[acl.ACLID]} onAction={onAction} />
        ))}
      </div>
    </section>
  );
}

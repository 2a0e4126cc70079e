/**
 * A section of the card view (docs/reference.md user-portal §2): Favourites, Top, or one category; a heading with a
 * count and a responsive grid of cards.
 */
import { useId } from "react";
import type { StatusAcl } from "@postern/shared";
import type { AclAction } from "../lib/acl.ts";
import { AclCard } from "./AclCard.tsx";

/** Props: the title, what kind of section it is (for tests), the ACLs, and the card state and handlers. */
export interface AclSectionProps {
  title: string;
  /** `favourites`, `top`, or `category` (then `category` names it). */
  kind: "favourites" | "top" | "category";
  category?: string;
  acls: readonly StatusAcl[];
  busyIds: ReadonlySet<string>;
  errors: Readonly<Record<string, string>>;
  favouriteIds: ReadonlySet<string>;
  onAction: (acl: StatusAcl, action: AclAction) => void;
  onToggleFavourite: (aclId: string) => void;
}

/** One section of cards. */
export function AclSection({
  title,
  kind,
  category,
  acls,
  busyIds,
  errors,
  favouriteIds,
  onAction,
  onToggleFavourite,
}: AclSectionProps) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} data-section={kind} data-category={category} className="space-y-3">
      <h2
        id={headingId}
        className="flex items-center gap-2 text-sm font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400"
      >
        {title}
        <span
          aria-hidden="true"
          className="rounded-full bg-slate-200 px-2 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300"
        >
          {acls.length}
        </span>
      </h2>
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
        {acls.map((acl) => (
          <AclCard
            key={acl.ACLID}
            acl={acl}
            busy={busyIds.has(acl.ACLID)}
            actionError={errors[acl.ACLID]}
            onAction={onAction}
            favourite={favouriteIds.has(acl.ACLID)}
            onToggleFavourite={onToggleFavourite}
          />
        ))}
      </div>
    </section>
  );
}

/**
 * Pure rules of the new dashboard's sections (docs/reference.md user-portal §2 "New dashboard"): Favourites, Top
 * (only above 20 ACLs, the 5 most used), and the flat order of the list view.
 */
import type { StatusAcl } from "@postern/shared";
import { groupByCategory } from "./acl.ts";

/** The favourite ACLs among `acls`, in the order of `acls` (already sorted by the caller). */
export function favouriteAcls(acls: readonly StatusAcl[], favouriteIds: readonly string[]): StatusAcl[] {
  const set = new Set(favouriteIds);
  return acls.filter((acl) => set.has(acl.ACLID));
}

/**
 * The Top section (docs/reference.md user-portal §2, §9): empty unless more than `above` ACLs exist (`total`, before
 * any search); otherwise the `count` ACLs with the highest use counts (at least one use), most used
 * first, ties by Description.
 */
export function topAcls(
  acls: readonly StatusAcl[],
  total: number,
  counts: Readonly<Record<string, number>>,
  above: number,
  count: number,
  collator: Intl.Collator,
): StatusAcl[] {
  if (total <= above) return [];
  return acls
    .filter((acl) => (counts[acl.ACLID] ?? 0) > 0)
    .sort((a, b) => (counts[b.ACLID] ?? 0) - (counts[a.ACLID] ?? 0) || collator.compare(a.Description, b.Description))
    .slice(0, count);
}

/** The rows of the list view: by category (Default last), then by Description. */
export function listOrder(acls: readonly StatusAcl[], collator: Intl.Collator): StatusAcl[] {
  return groupByCategory(acls, collator).flatMap((group) => group.acls);
}

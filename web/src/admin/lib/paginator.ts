/**
 * The audit log's paginator (docs/reference.md admin-console §2 "Audit logs", §9): every page when there are 8 or
 * fewer, otherwise the first and last pages, the current page with its neighbours, and an ellipsis
 * for each gap.
 */

/** Largest page count shown in full. */
export const FULL_PAGINATOR_PAGES = 8;

/** The items of the paginator for `pageCount` pages with `current` (1-based) shown: page numbers and "…". */
export function paginatorItems(pageCount: number, current: number): (number | "…")[] {
  if (pageCount <= FULL_PAGINATOR_PAGES) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const shown = new Set([1, pageCount, current - 1, current, current + 1].filter((p) => p >= 1 && p <= pageCount));
  const pages = [...shown].sort((a, b) => a - b);
  const out: (number | "…")[] = [];
  pages.forEach((p, i) => {
    if (i > 0 && p - pages[i - 1]! > 1) out.push("…");
    out.push(p);
  });
  return out;
}

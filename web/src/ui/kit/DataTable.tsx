/**
 * The one table of the admin console (issue #9 item 4): columns with optional sorting (a button
 * in the header, `aria-sort` on the column), an optional search box filtering on the columns'
 * search text, and an empty state. Rows are keyed by `rowKey`; `rowProps` adds attributes to a
 * row (test ids, the licence greying of users).
 */
import { useMemo, useState } from "react";
import type { HTMLAttributes, ReactNode } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { SearchIcon } from "../components/icons.tsx";

/** One column: its header, its cell, and optionally how it sorts and what the search matches. */
export interface Column<T> {
  id: string;
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Sorting key; a column without it cannot be sorted. */
  sortValue?: (row: T) => string | number;
  /** Text the search box matches (case-insensitive); columns without it are not searched. */
  searchText?: (row: T) => string;
  /** Header shown to assistive technology only (action columns). */
  srOnlyHeader?: boolean;
  className?: string;
}

/** Props of DataTable. */
export interface DataTableProps<T> {
  /** Accessible name of the table. */
  label: string;
  columns: readonly Column<T>[];
  rows: readonly T[] | undefined;
  rowKey: (row: T) => string;
  /** Shown when there are no rows at all. */
  empty: ReactNode;
  /** Show a search box above the table. */
  searchable?: boolean;
  /** Initial sort: column id and direction. */
  defaultSort?: { id: string; desc?: boolean };
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;
  /** data-testid of the table. */
  testId?: string;
  /** Content to the right of the search box (create buttons). */
  toolbar?: ReactNode;
}

const compare = (a: string | number, b: string | number): number =>
  typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b));

/** A sortable, searchable table. While `rows` is undefined it shows a loading line. */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
  empty,
  searchable = false,
  defaultSort,
  rowProps,
  testId,
  toolbar,
}: DataTableProps<T>) {
  const { t } = useLingui();
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<{ id: string; desc: boolean } | undefined>(
    defaultSort ? { id: defaultSort.id, desc: defaultSort.desc ?? false } : undefined,
  );

  const shown = useMemo(() => {
    if (rows === undefined) return undefined;
    const q = query.trim().toLowerCase();
    let out = q
      ? rows.filter((row) => columns.some((c) => c.searchText?.(row).toLowerCase().includes(q) ?? false))
      : [...rows];
    const column = sort ? columns.find((c) => c.id === sort.id) : undefined;
    if (column?.sortValue && sort) {
      const key = column.sortValue;
      out = out.sort((a, b) => compare(key(a), key(b)) * (sort.desc ? -1 : 1));
    }
    return out;
  }, [rows, query, sort, columns]);

  const toggle = (id: string): void =>
    setSort((current) => (current?.id === id ? { id, desc: !current.desc } : { id, desc: false }));

  return (
    <div>
      {searchable || toolbar ? (
        <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
          {searchable ? (
            <div className="relative w-full max-w-xs">
              <SearchIcon className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-slate-500" />
              <input
                type="search"
                aria-label={t`Search`}
                placeholder={t`Search`}
                value={query}
                onChange={(event) => setQuery(event.target.value)}
                className="block w-full rounded-md border-0 bg-white py-2 pl-8 pr-3 text-sm text-slate-900 ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-accent-600 dark:bg-slate-950 dark:text-white dark:ring-slate-600"
              />
            </div>
          ) : (
            <span />
          )}
          {toolbar ? <div className="flex flex-wrap gap-2">{toolbar}</div> : null}
        </div>
      ) : null}
      <div className="overflow-x-auto rounded-lg ring-1 ring-slate-200 dark:ring-slate-800">
        <table
          aria-label={label}
          data-testid={testId}
          className="min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-800"
        >
          <thead className="bg-slate-50 dark:bg-slate-900">
            <tr>
              {columns.map((column) => {
                const active = sort?.id === column.id;
                const ariaSort = active
                  ? sort.desc
                    ? "descending"
                    : "ascending"
                  : column.sortValue
                    ? "none"
                    : undefined;
                return (
                  <th
                    key={column.id}
                    scope="col"
                    aria-sort={ariaSort}
                    className={`px-4 py-2.5 text-left font-semibold text-slate-700 dark:text-slate-200 ${column.className ?? ""}`}
                  >
                    {column.srOnlyHeader ? (
                      <span className="sr-only">{column.header}</span>
                    ) : column.sortValue ? (
                      <button
                        type="button"
                        onClick={() => toggle(column.id)}
                        className="inline-flex items-center gap-1 hover:underline"
                      >
                        {column.header}
                        <span aria-hidden="true" className="text-xs text-slate-500">
                          {active ? (sort.desc ? "▼" : "▲") : "↕"}
                        </span>
                      </button>
                    ) : (
                      column.header
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100 bg-white dark:divide-slate-800 dark:bg-slate-950">
            {shown === undefined ? (
              <tr>
                <td
                  colSpan={columns.length}
                  className="px-4 py-6 text-center text-slate-600 dark:text-slate-400"
                  aria-busy="true"
                >
                  <Trans>Loading…</Trans>
                </td>
              </tr>
            ) : shown.length === 0 ? (
              <tr>
                <td colSpan={columns.length} className="px-4 py-6 text-center text-slate-600 dark:text-slate-400">
                  {rows && rows.length > 0 ? <Trans>Nothing matches the search.</Trans> : empty}
                </td>
              </tr>
            ) : (
              shown.map((row) => (
                <tr key={rowKey(row)} {...rowProps?.(row)}>
                  {columns.map((column) => (
                    <td
                      key={column.id}
                      className={`px-4 py-2.5 text-slate-800 dark:text-slate-200 ${column.className ?? ""}`}
                    >
                      {column.cell(row)}
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

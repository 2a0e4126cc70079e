/**
 * Column builders shared by the admin tables (docs/reference.md admin-console §2: sortable, searchable tables with a
 * row action menu): a text column sorted case-insensitively and searched, and the actions column.
 */
import type { Column } from "../../ui/kit/DataTable.tsx";
import { RowMenu } from "../../ui/kit/RowMenu.tsx";
import type { RowAction } from "../../ui/kit/RowMenu.tsx";

/** A column showing `text(row)`, sorted case-insensitively by it and matched by the search box. */
export function textColumn<T>(id: string, header: string, text: (row: T) => string): Column<T> {
  return { id, header, sortValue: (row) => text(row).toLowerCase(), searchText: text, cell: text };
}

/**
 * The last column: the "Actions for <name>" menu of a row; `header` is read by assistive technology
 * only. Actions left undefined (not offered for this row) are dropped.
 */
export function actionsColumn<T>(
  header: string,
  name: (row: T) => string,
  actions: (row: T) => readonly (RowAction | undefined | false)[],
): Column<T> {
  return {
    id: "actions",
    header,
    srOnlyHeader: true,
    className: "text-right",
    cell: (row) => <RowMenu name={name(row)} actions={actions(row).filter((a): a is RowAction => Boolean(a))} />,
  };
}

/**
 * Knocs (docs/reference.md admin-console §2 "Knocs (/admin/knocs)", §3 "Knoc (ACL)", §7 GET /admin/knocs): a table
 * sortable by Name, Users (UserCount), Agent (AgentName) and Last modified (relative time plus who),
 * with the kind and the Details of its backend type; a row click (or its name) opens the detail
 * dialog with the verification instructions; the row menu has Edit and Delete; New Knoc leads to the
 * chooser, which is also offered when there are no Knocs. Search parameters: `didUpdate` shows
 * "Knoc updated successfully" (after the update page), `viewKnocId` opens that Knoc's detail (after
 * the proxy and script wizards, and while a detail is open); both are taken off the URL when done.
 */
import { useEffect, useState } from "react";
import type { MouseEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearch } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Knoc } from "@postern/shared";
import type { KnocsSearch } from "../../router.tsx";
import { DataTable } from "../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../ui/kit/DataTable.tsx";
import { useToast } from "../../../ui/kit/Toasts.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { actionsColumn } from "../../lib/columns.tsx";
import { relativeTime } from "../../lib/relative-time.ts";
import { knocQueries } from "../../queries/knocs.ts";
import { KnocDeleteConfirm } from "./KnocDeleteConfirm.tsx";
import { KnocDetailDialog } from "./KnocDetailDialog.tsx";
import { knocDetails, knocKindLabel } from "./knoc-labels.ts";
import { updateKnocPath } from "./update-path.ts";

const linkButton =
  "inline-flex items-center justify-center gap-2 rounded-md bg-accent-700 px-3 py-2 text-sm font-semibold text-white shadow-sm hover:bg-accent-800";

/** A click on the row itself, not on one of its controls (the name button, the action menu). */
const onRowItself = (event: MouseEvent<HTMLElement>): boolean =>
  !(event.target as HTMLElement).closest("button, a, input, [role=menu], [role=menuitem]");

/** The Knocs page. */
export function KnocsPage() {
  const { t, i18n } = useLingui();
  const knocs = useQuery(knocQueries.list());
  const search: KnocsSearch = useSearch({ strict: false });
  const navigate = useNavigate();
  const toast = useToast();
  const now = Date.now();
  const setSearch = (next: KnocsSearch): void => void navigate({ to: "/admin/knocs", search: next, replace: true });

  useEffect(() => {
    if (!search.didUpdate) return;
    toast(t`Knoc updated successfully`);
    void navigate({ to: "/admin/knocs", search: { ...search, didUpdate: undefined }, replace: true });
  }, [search, toast, t, navigate]);

  const viewing = search.viewKnocId ? knocs.data?.find((k) => k.ID === search.viewKnocId) : undefined;
  const [deleting, setDeleting] = useState<Knoc | undefined>(undefined);
  const view = (k: Knoc): void => setSearch({ viewKnocId: k.ID });
  const close = (): void => setSearch({});
  const details = (k: Knoc): string =>
    knocDetails(i18n, k)
      .map((d) => `${d.label}: ${d.value}`)
      .join(" · ");

  const columns: Column<Knoc>[] = [
    {
      id: "name",
      header: t`Name`,
      sortValue: (k) => k.Name.toLowerCase(),
      searchText: (k) => k.Name,
      cell: (k) => (
        <button
          type="button"
          onClick={() => view(k)}
          className="text-left font-medium text-accent-800 hover:underline dark:text-accent-300"
        >
          {k.Name}
        </button>
      ),
    },
    {
      id: "type",
      header: t`Type`,
      searchText: (k) => knocKindLabel(i18n, k),
      cell: (k) => knocKindLabel(i18n, k),
    },
    { id: "details", header: t`Details`, searchText: details, cell: details, className: "break-all" },
    { id: "users", header: t`Users`, sortValue: (k) => k.UserCount, cell: (k) => k.UserCount },
    {
      id: "agent",
      header: t`Agent`,
      sortValue: (k) => k.AgentName.toLowerCase(),
      searchText: (k) => k.AgentName,
      cell: (k) => k.AgentName || "—",
    },
    {
      id: "modified",
      header: t`Last modified`,
      sortValue: (k) => Date.parse(k.LastModifiedAt),
      cell: (k) => {
        const when = relativeTime(k.LastModifiedAt, now, i18n.locale);
        const who = k.LastModifiedBy;
        return who ? t`${when} by ${who}` : when;
      },
    },
    actionsColumn(
      t`Actions`,
      (k) => k.Name,
      (k) => [
        { label: t`Edit`, onSelect: () => void navigate({ to: updateKnocPath(k) }) },
        { label: t`Delete`, danger: true, onSelect: () => setDeleting(k) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`Knocs`}
        actions={
          <Link to="/admin/knocs/new" className={linkButton}>
            <Trans>New Knoc</Trans>
          </Link>
        }
      >
        <Trans>
          A Knoc protects a resource: while a user&apos;s session lasts, the address they come from is let through.
          Click a Knoc to see how to check that it works.
        </Trans>
      </PageHeader>
      <DataTable
        label={t`Knocs`}
        testId="knocs-table"
        searchable
        columns={columns}
        rows={knocs.data}
        rowKey={(k) => k.ID}
        rowProps={(k) => ({
          "data-knoc-id": k.ID,
          className: "cursor-pointer hover:bg-slate-50 dark:hover:bg-slate-900",
          onClick: (event) => {
            if (onRowItself(event)) view(k);
          },
        })}
        defaultSort={{ id: "name" }}
        empty={
          <div className="space-y-3 py-4">
            <p>
              <Trans>No Knocs yet. Choose what you want to protect to create the first one.</Trans>
            </p>
            <Link to="/admin/knocs/new" className={linkButton}>
              <Trans>Choose what to protect</Trans>
            </Link>
          </div>
        }
      />
      {viewing ? <KnocDetailDialog knoc={viewing} onClose={close} /> : null}
      {deleting ? <KnocDeleteConfirm knoc={deleting} onClose={() => setDeleting(undefined)} /> : null}
    </>
  );
}

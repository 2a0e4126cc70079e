/**
 * Audit logs (docs/reference.md admin-console §2 "Audit logs", §9): date, username, action and a view link, 25
 * entries a page with the paginator (every page up to 8, else abbreviated), a search box (the
 * server searches), a detail dialog per entry, Download CSV (every matching entry; the server
 * names the file by date) and Clear logs (entries older than 30 days), confirmed first.
 */
import { useEffect, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { AuditLogLimits } from "@postern/shared";
import type { AuditLogEntry } from "@postern/shared";
import { Button } from "../../ui/kit/Button.tsx";
import { ConfirmDialog } from "../../ui/kit/ConfirmDialog.tsx";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { Dialog } from "../../ui/kit/Dialog.tsx";
import { useToast } from "../../ui/kit/Toasts.tsx";
import { SearchIcon } from "../../ui/components/icons.tsx";
import { useShowError } from "../components/ErrorDialog.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { actionLabel, entryActor } from "../lib/audit-action.ts";
import { paginatorItems } from "../lib/paginator.ts";
import { exportUrl, logQueries, useClearLogs } from "../queries/logs.ts";

/** Delay before a typed search is sent, in ms. */
const SEARCH_DEBOUNCE_MS = 300;

/** The logs page. */
export function LogsPage() {
  const { t, i18n } = useLingui();
  const [page, setPage] = useState(1);
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const [detail, setDetail] = useState<AuditLogEntry | undefined>(undefined);
  const [clearing, setClearing] = useState(false);
  const toast = useToast();
  const showError = useShowError();
  const clear = useClearLogs();
  useEffect(() => {
    // Only a changed search goes back to page 1 (on mount nothing changed: a page chosen meanwhile stays).
    if (typed === search) return;
    const timer = window.setTimeout(() => {
      setSearch(typed);
      setPage(1);
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [typed, search]);
  const logs = useQuery(logQueries.page(page, search));
  const total = logs.data?.total ?? 0;
  const pageCount = Math.ceil(total / AuditLogLimits.defaultPageSize);
  const days = AuditLogLimits.clearOlderThanDays;

  const columns: Column<AuditLogEntry>[] = [
    {
      id: "date",
      header: t`Date`,
      cell: (e) => <time dateTime={e.Date}>{new Date(e.Date).toLocaleString(i18n.locale)}</time>,
    },
    { id: "user", header: t`Username`, cell: (e) => entryActor(e.Entry) },
    { id: "action", header: t`Action`, cell: (e) => actionLabel(i18n, e.Entry.Action) },
    {
      id: "view",
      header: t`Details`,
      srOnlyHeader: true,
      cell: (e) => {
        const id = e.ID;
        return (
          <Button variant="quiet" onClick={() => setDetail(e)} aria-label={t`View entry ${id}`}>
            <Trans>View</Trans>
          </Button>
        );
      },
    },
  ];

  return (
    <>
      <PageHeader
        title={t`Logs`}
        actions={
          <>
            <a
              href={exportUrl(search)}
              download
              className="inline-flex items-center rounded-md px-3 py-2 text-sm font-semibold text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800"
            >
              <Trans>Download CSV</Trans>
            </a>
            <Button variant="danger" onClick={() => setClearing(true)}>
              <Trans>Clear logs ({days} days)</Trans>
            </Button>
          </>
        }
      />
      <div className="relative mb-4 w-full max-w-xs">
        <SearchIcon className="pointer-events-none absolute left-2.5 top-2.5 size-4 text-slate-500" />
        <input
          type="search"
          aria-label={t`Search`}
          placeholder={t`Search`}
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          className="block w-full rounded-md border-0 bg-white py-2 pl-8 pr-3 text-sm text-slate-900 ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-accent-600 dark:bg-slate-950 dark:text-white dark:ring-slate-600"
        />
      </div>
      <DataTable
        label={t`Audit log`}
        testId="logs-table"
        columns={columns}
        rows={logs.data?.entries}
        rowKey={(e) => String(e.ID)}
        rowProps={(e) => ({ "data-entry-id": String(e.ID) })}
        empty={search ? <Trans>Nothing matches the search.</Trans> : <Trans>The log is empty.</Trans>}
      />
      {pageCount > 1 ? (
        <nav aria-label={t`Pages`} className="mt-4">
          <ul className="flex flex-wrap items-center gap-1">
            {paginatorItems(pageCount, page).map((item, i) =>
              item === "…" ? (
                <li key={`gap-${i}`} aria-hidden="true" className="px-2 text-slate-600 dark:text-slate-400">
                  …
                </li>
              ) : (
                <li key={item}>
                  <button
                    type="button"
                    onClick={() => setPage(item)}
                    aria-current={item === page ? "page" : undefined}
                    aria-label={t`Page ${item}`}
                    className={`min-w-9 rounded-md px-2 py-1.5 text-sm font-medium ${
                      item === page
                        ? "bg-accent-700 text-white"
                        : "text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600"
                    }`}
                  >
                    {item}
                  </button>
                </li>
              ),
            )}
          </ul>
        </nav>
      ) : null}
      {detail ? (
        <Dialog
          open
          onClose={() => setDetail(undefined)}
          size="lg"
          title={actionLabel(i18n, detail.Entry.Action)}
          footer={
            <Button variant="primary" onClick={() => setDetail(undefined)}>
              <Trans>Close</Trans>
            </Button>
          }
        >
          <dl data-testid="log-detail" className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-1">
            <dt className="font-medium">
              <Trans>Date</Trans>
            </dt>
            <dd>{new Date(detail.Date).toLocaleString(i18n.locale)}</dd>
            {(
              [
                ["UserName", t`User`],
                ["AdminName", t`Admin`],
                ["AgentName", t`Agent`],
                ["IpAddress", t`IP address`],
                ["AclDescription", t`ACL`],
                ["Description", t`Description`],
                ["ErrorMessage", t`Error`],
              ] as const
            ).map(([key, label]) =>
              detail.Entry[key] ? (
                <div key={key} className="contents">
                  <dt className="font-medium">{label}</dt>
                  <dd>{detail.Entry[key]}</dd>
                </div>
              ) : null,
            )}
          </dl>
        </Dialog>
      ) : null}
      <ConfirmDialog
        open={clearing}
        title={t`Clear logs`}
        confirmLabel={t`Clear logs`}
        busy={clear.isPending}
        onClose={() => setClearing(false)}
        onConfirm={() =>
          clear.mutate(undefined, {
            onSuccess: ({ Removed }) => {
              setClearing(false);
              toast(t`${Removed} log entries older than ${days} days removed`);
            },
            onError: (e) => {
              setClearing(false);
              showError(e);
            },
          })
        }
      >
        <Trans>Entries older than {days} days are removed for good.</Trans>
      </ConfirmDialog>
    </>
  );
}

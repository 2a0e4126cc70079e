/**
 * Admin home (docs/reference.md admin-console §2 "Admin home"): counts of active sessions, ACLs and users, the
 * recent activity (user, relative date, action), and a license-expires-soon message when the
 * install is not cloud and the license expires within 60 days. Refreshes every 30 s; a failed
 * refresh is only logged (§8) and the last answer stays.
 */
import { useEffect } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { AdminStatus } from "@postern/shared";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { daysUntil } from "../../ui/lib/format.ts";
import { PageHeader } from "../components/PageHeader.tsx";
import { actionLabel, entryActor, entrySubject } from "../lib/audit-action.ts";
import { relativeTime } from "../lib/relative-time.ts";
import { statusQueries } from "../queries/status.ts";

/** Days before expiry from which the license-expires-soon message shows (docs/reference.md admin-console §9). */
export const LICENSE_WARNING_DAYS = 60;

/** One activity row, numbered in the server's order (entries may repeat exactly). */
type Activity = AdminStatus["Activity"][number] & { Index: number };

function Count({ label, value, testId }: { label: string; value: number | undefined; testId: string }) {
  return (
    <div className="rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800">
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-400">{label}</dt>
      <dd data-testid={testId} className="mt-1 text-3xl font-semibold text-slate-900 dark:text-white">
        {value ?? "–"}
      </dd>
    </div>
  );
}

/** The admin home page. */
export function HomePage() {
  const { t, i18n } = useLingui();
  const status = useQuery(statusQueries.home());
  const data = status.data;
  useEffect(() => {
    if (status.error) console.warn("admin status refresh failed", status.error);
  }, [status.error]);

  const now = Date.now();
  const days = data?.Licensing ? daysUntil(data.Licensing.Expires, now) : undefined;
  const expiresSoon =
    data !== undefined && !data.Cloud && days !== undefined && days >= 0 && days <= LICENSE_WARNING_DAYS;

  const columns: Column<Activity>[] = [
    { id: "user", header: t`User`, cell: (row) => entryActor(row.Entry) },
    {
      id: "date",
      header: t`Date`,
      cell: (row) => (
        <time dateTime={row.Date} title={new Date(row.Date).toLocaleString(i18n.locale)}>
          {relativeTime(row.Date, now, i18n.locale)}
        </time>
      ),
    },
    {
      id: "action",
      header: t`Action`,
      cell: (row) => {
        const subject = entrySubject(row.Entry);
        return subject ? `${actionLabel(i18n, row.Entry.Action)}: ${subject}` : actionLabel(i18n, row.Entry.Action);
      },
    },
  ];

  return (
    <>
      <PageHeader title={t`Home`} />
      {expiresSoon ? (
        <p
          role="status"
          data-testid="license-expires-soon"
          className="mb-6 rounded-md bg-amber-100 px-4 py-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
        >
          <Trans>Your license expires in {days} days. Renew it to keep creating and updating Knocs.</Trans>
        </p>
      ) : null}
      <dl className="mb-8 grid gap-4 sm:grid-cols-3">
        <Count label={t`Active sessions`} value={data?.SessionCount} testId="count-sessions" />
        <Count label={t`ACLs`} value={data?.ACLCount} testId="count-acls" />
        <Count label={t`Users`} value={data?.UserCount} testId="count-users" />
      </dl>
      <h2 className="mb-3 text-lg font-semibold text-slate-900 dark:text-white">
        <Trans>Recent activity</Trans>
      </h2>
      <DataTable
        label={t`Recent activity`}
        testId="recent-activity"
        columns={columns}
        rows={data?.Activity.map((entry, Index) => ({ ...entry, Index }))}
        rowKey={(row) => String(row.Index)}
        empty={<Trans>No activity yet.</Trans>}
      />
    </>
  );
}

/**
 * ACLs (docs/reference.md admin-console §2 "ACLs", §3 "Knoc (ACL)", §7 /admin/acls): a searchable table sorted by
 * Description at first, with the columns description (sortable; the URL as a link when set),
 * details (by backend type), last modified (relative, with who) and the row actions Edit and
 * Delete; Create ACL on top. Creating or updating needs a licence: the server's
 * err.youDoNotHaveALicense shows in the error dialog. Delete asks first.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Acl, Backend } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { DataTable } from "../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../ui/kit/DataTable.tsx";
import { DeleteConfirm } from "../../components/MutationConfirm.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { backendTypeLabel } from "../../lib/backend-labels.ts";
import { actionsColumn } from "../../lib/columns.tsx";
import { relativeTime } from "../../lib/relative-time.ts";
import { aclQueries, useDeleteAcl } from "../../queries/acls.ts";
import { backendQueries } from "../../queries/backends.ts";
import { statusQueries } from "../../queries/status.ts";
import { AclForm } from "./AclForm.tsx";
import { backendType } from "./acl-form.ts";
import { aclDetails } from "./acl-details.ts";

type Open = { kind: "none" } | { kind: "create" } | { kind: "edit"; acl: Acl } | { kind: "delete"; acl: Acl };

/** The experimental feature that shows a script ACL's variables in Details (docs/reference.md admin-console §2 "ACLs"). */
const ENHANCED_CUSTOM_SCRIPT = "enhanced-custom-script";

/** The ACLs page. */
export function AclsPage() {
  const { t, i18n } = useLingui();
  const acls = useQuery(aclQueries.list());
  const backends = useQuery(backendQueries.list());
  const status = useQuery(statusQueries.header());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteAcl();
  const now = Date.now();
  const showVariables = status.data?.ExperimentalFeatures.includes(ENHANCED_CUSTOM_SCRIPT) ?? false;
  const backendOf = (a: Acl): Backend | undefined => backends.data?.find((b) => b.ID === a.BackendID);
  const backendLine = (a: Acl): string => {
    const b = backendOf(a);
    return b ? `${b.Name} · ${backendTypeLabel(i18n, backendType(b))}` : a.BackendName;
  };
  const details = (a: Acl): string[] => aclDetails(i18n, a, backendOf(a), showVariables);

  const columns: Column<Acl>[] = [
    {
      id: "description",
      header: t`Description`,
      sortValue: (a) => a.Description.toLowerCase(),
      searchText: (a) => `${a.Description} ${a.URL}`,
      cell: (a) => (
        <div className="space-y-0.5">
          <div className="font-medium text-slate-900 dark:text-white">{a.Description}</div>
          {a.URL ? (
            <a
              href={a.URL}
              target="_blank"
              rel="noreferrer"
              className="break-all text-xs text-accent-700 underline dark:text-accent-300"
            >
              {a.URL}
            </a>
          ) : null}
        </div>
      ),
    },
    {
      id: "details",
      header: t`Details`,
      searchText: (a) => [backendLine(a), ...details(a)].join(" "),
      cell: (a) => (
        <div className="space-y-0.5" data-testid="acl-details">
          {details(a).map((line, i) => (
            <div key={i} className="break-all">
              {line}
            </div>
          ))}
          <div className="text-xs text-slate-600 dark:text-slate-400">{backendLine(a)}</div>
        </div>
      ),
    },
    {
      id: "modified",
      header: t`Last modified`,
      sortValue: (a) => Date.parse(a.LastModifiedAt),
      cell: (a) => {
        const when = relativeTime(a.LastModifiedAt, now, i18n.locale);
        const who = a.LastModifiedBy;
        return who ? t`${when} by ${who}` : when;
      },
    },
    actionsColumn(
      t`Actions`,
      (a) => a.Description,
      (a) => [
        { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", acl: a }) },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", acl: a }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`ACLs`}
        actions={
          <Button variant="primary" disabled={backends.data === undefined} onClick={() => setOpen({ kind: "create" })}>
            <Trans>Create ACL</Trans>
          </Button>
        }
      >
        <Trans>
          An ACL is the rule behind a Knoc: which backend grants the users' addresses, and with which settings of that
          backend.
        </Trans>
      </PageHeader>
      <DataTable
        label={t`ACLs`}
        testId="acls-table"
        searchable
        columns={columns}
        rows={acls.data}
        rowKey={(a) => a.ID}
        rowProps={(a) => ({ "data-acl-id": a.ID })}
        defaultSort={{ id: "description" }}
        empty={<Trans>No ACLs yet.</Trans>}
      />
      {(open.kind === "create" || open.kind === "edit") && backends.data ? (
        <AclForm acl={open.kind === "edit" ? open.acl : undefined} backends={backends.data} onClose={close} />
      ) : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete ACL`}
          success={t`ACL deleted`}
          name={open.acl.Description}
          mutation={remove}
          variables={open.acl.ID}
          onClose={close}
        />
      ) : null}
    </>
  );
}

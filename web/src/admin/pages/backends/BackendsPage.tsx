/**
 * Backends (docs/reference.md admin-console §2 "Backends", §3 "BackendConfig", §5, §7 /admin/backends): a searchable,
 * sortable table (name, type, agent, last modified) with Edit and Delete per row and Create backend
 * on top. Delete asks first and is refused by the server while ACLs use the backend (shown in the
 * error dialog). Secrets are write-only (docs/decisions.md "Enforcement drivers").
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { isAgentless } from "@postern/shared";
import type { Backend, BackendType } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { DataTable } from "../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../ui/kit/DataTable.tsx";
import { DeleteConfirm } from "../../components/MutationConfirm.tsx";
import { PageHeader } from "../../components/PageHeader.tsx";
import { backendTypeLabel } from "../../lib/backend-labels.ts";
import { actionsColumn, textColumn } from "../../lib/columns.tsx";
import { relativeTime } from "../../lib/relative-time.ts";
import { agentQueries } from "../../queries/agents.ts";
import { backendQueries, useDeleteBackend } from "../../queries/backends.ts";
import { BackendForm } from "./BackendForm.tsx";

type Open =
  { kind: "none" } | { kind: "create" } | { kind: "edit"; backend: Backend } | { kind: "delete"; backend: Backend };

/** The type of a backend: the single key of its Config. */
const typeOf = (b: Backend): BackendType => Object.keys(b.Config)[0] as BackendType;

/** The backends page. */
export function BackendsPage() {
  const { t, i18n } = useLingui();
  const backends = useQuery(backendQueries.list());
  const agents = useQuery(agentQueries.header());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteBackend();
  const now = Date.now();
  const agentName = (b: Backend): string =>
    isAgentless(typeOf(b)) ? "—" : (agents.data?.find((a) => a.ID === b.AgentID)?.Name ?? t`unknown agent`);
  const typeLabel = (b: Backend): string => backendTypeLabel(i18n, typeOf(b));

  const columns: Column<Backend>[] = [
    textColumn("name", t`Name`, (b) => b.Name),
    textColumn("type", t`Type`, typeLabel),
    textColumn("agent", t`Agent`, agentName),
    {
      id: "modified",
      header: t`Last modified`,
      sortValue: (b) => Date.parse(b.LastModifiedAt),
      cell: (b) => relativeTime(b.LastModifiedAt, now, i18n.locale),
    },
    actionsColumn(
      t`Actions`,
      (b) => b.Name,
      (b) => [
        { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", backend: b }) },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", backend: b }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`Backends`}
        actions={
          <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
            <Trans>Create backend</Trans>
          </Button>
        }
      >
        <Trans>
          A backend is where an agent enforces Knocs: a firewall, a proxy, an ipset or a script. The allowlist is served
          by Postern itself.
        </Trans>
      </PageHeader>
      <DataTable
        label={t`Backends`}
        testId="backends-table"
        searchable
        columns={columns}
        rows={backends.data}
        rowKey={(b) => b.ID}
        rowProps={(b) => ({ "data-backend-id": b.ID })}
        defaultSort={{ id: "name" }}
        empty={<Trans>No backends yet.</Trans>}
      />
      {open.kind === "create" ? <BackendForm backend={undefined} onClose={close} /> : null}
      {open.kind === "edit" ? <BackendForm backend={open.backend} onClose={close} /> : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete backend`}
          success={t`Backend deleted`}
          name={open.backend.Name}
          mutation={remove}
          variables={open.backend.ID}
          onClose={close}
        />
      ) : null}
    </>
  );
}

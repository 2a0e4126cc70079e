/**
 * Agents (docs/reference.md admin-console §2 "Agents", §3 "Agent", §4 "Agent version", §5): a searchable table
 * (Name, Capabilities, Activity, Version, IP address, actions View token / Edit / Delete),
 * refreshed every 5 s. Create asks for a name, then shows the install command and the token, both
 * copyable. An agent that never connected is awaiting connection and offers its token; once
 * connected it shows OS, version and address. The capabilities cell opens the capabilities
 * dialog. Delete is refused by the server while backends are attached (shown in the error dialog).
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { AgentWriteSchema } from "@postern/shared";
import type { Agent, AgentCreated, AgentWrite } from "@postern/shared";
import { Button } from "../../ui/kit/Button.tsx";
import { DataTable } from "../../ui/kit/DataTable.tsx";
import type { Column } from "../../ui/kit/DataTable.tsx";
import { Dialog } from "../../ui/kit/Dialog.tsx";
import { FormField } from "../../ui/kit/FormField.tsx";
import { Copyable } from "../components/Copyable.tsx";
import { FormDialog } from "../../ui/kit/FormDialog.tsx";
import { DeleteConfirm } from "../components/MutationConfirm.tsx";
import { PageHeader } from "../components/PageHeader.tsx";
import { actionsColumn, textColumn } from "../lib/columns.tsx";
import { useFeedback } from "../lib/feedback.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { relativeTime } from "../lib/relative-time.ts";
import { agentVersionState, displayAddress } from "../lib/version.ts";
import type { AgentVersionState } from "../lib/version.ts";
import { agentQueries, useCreateAgent, useDeleteAgent, useRenameAgent } from "../queries/agents.ts";
import { statusQueries } from "../queries/status.ts";

/** Which dialog is open. */
type Open =
  | { kind: "none" }
  | { kind: "create" }
  | { kind: "created"; agent: AgentCreated }
  | { kind: "rename"; agent: Agent }
  | { kind: "delete"; agent: Agent }
  | { kind: "capabilities"; agent: Agent };

/** Names of the capabilities an agent reports, for the table cell. */
function capabilityNames(agent: Agent): string[] {
  const c = agent.Capabilities;
  const out: string[] = [];
  if (c.ipset) out.push("ipset");
  if (c.nftables?.command_available) out.push("nftables");
  if (c.haproxy) out.push("haproxy");
  if (c.script?.enabled) out.push("script");
  return out;
}

function VersionBadge({ state, version }: { state: AgentVersionState; version: string }) {
  const { t } = useLingui();
  if (state === "unknown") return <span className="text-slate-500">–</span>;
  const look: Record<Exclude<AgentVersionState, "unknown">, { className: string; text: string }> = {
    incompatible: { className: "bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-100", text: t`incompatible` },
    outOfDate: {
      className: "bg-amber-100 text-amber-950 dark:bg-amber-950 dark:text-amber-50",
      text: t`out of date: apply your OS updates`,
    },
    upToDate: { className: "bg-green-100 text-green-900 dark:bg-green-950 dark:text-green-100", text: t`up to date` },
  };
  const { className, text } = look[state];
  return (
    <span
      data-version-state={state}
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium ${className}`}
    >
      {version}
      <span className="sr-only">({text})</span>
      <span aria-hidden="true" title={text}>
        {state === "upToDate" ? "✓" : "!"}
      </span>
    </span>
  );
}

/** Create (then show the install command) or rename an agent: its name is all there is to edit. */
function AgentForm({
  agent,
  onCreated,
  onClose,
}: {
  agent: Agent | undefined;
  onCreated: (created: AgentCreated) => void;
  onClose: () => void;
}) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateAgent();
  const rename = useRenameAgent();
  const form = useForm<AgentWrite>({
    resolver: zodResolver(AgentWriteSchema),
    defaultValues: { Name: agent?.Name ?? "" },
  });
  const submit = form.handleSubmit((values) => {
    if (agent) rename.mutate({ ...values, ID: agent.ID }, feedback(t`Agent updated`, onClose));
    else create.mutate(values, feedback(t`Agent created`, onCreated));
  });
  return (
    <FormDialog
      title={agent ? t`Edit agent` : t`Create agent`}
      editing={agent !== undefined}
      busy={create.isPending || rename.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormField
        label={t`Name`}
        required
        autoFocus
        error={fieldErrorText(i18n, form.formState.errors.Name)}
        {...form.register("Name")}
      />
    </FormDialog>
  );
}

function CapabilitiesDialog({ agent, onClose }: { agent: Agent; onClose: () => void }) {
  const { t } = useLingui();
  const c = agent.Capabilities;
  const yes = t`yes`;
  const no = t`no`;
  const name = agent.Name;
  return (
    <Dialog
      open
      onClose={onClose}
      size="lg"
      title={t`Capabilities of ${name}`}
      footer={
        <Button variant="primary" onClick={onClose}>
          <Trans>Close</Trans>
        </Button>
      }
    >
      <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2">
        <dt className="font-medium">
          <Trans>Operating system</Trans>
        </dt>
        <dd>{c["os-release"] ? `${c["os-release"].NAME} ${c["os-release"].VERSION}` : "–"}</dd>
        <dt className="font-medium">ipset</dt>
        <dd>
          {c.ipset ? (
            <>
              <Trans>command available</Trans>: {c.ipset.command_available ? yes : no}; <Trans>sudo enabled</Trans>:{" "}
              {c.ipset.sudo_enabled ? yes : no}
              {c.ipset.ipsets.length > 0 ? (
                <ul className="mt-1 list-inside list-disc">
                  {c.ipset.ipsets.map((set) => (
                    <li key={set.name}>
                      {set.name} ({set.address_family})
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : (
            no
          )}
        </dd>
        <dt className="font-medium">nftables</dt>
        <dd>
          {c.nftables ? (
            <>
              <Trans>command available</Trans>: {c.nftables.command_available ? yes : no}
              {c.nftables.sets.length > 0 ? (
                <ul className="mt-1 list-inside list-disc">
                  {c.nftables.sets.map((set) => (
                    <li key={`${set.table} ${set.name}`}>
                      {set.table} {set.name} ({set.type}
                      {set.timeout ? ", timeout" : ""})
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : (
            no
          )}
        </dd>
        <dt className="font-medium">HAProxy</dt>
        <dd>{c.haproxy ? c.haproxy.socket_location : no}</dd>
        <dt className="font-medium">
          <Trans>Script</Trans>
        </dt>
        <dd>{c.script?.enabled ? yes : no}</dd>
      </dl>
    </Dialog>
  );
}

/** The agents page. */
export function AgentsPage() {
  const { t, i18n } = useLingui();
  const agents = useQuery(agentQueries.page());
  const status = useQuery(statusQueries.header());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteAgent();
  const now = Date.now();
  const openName = "agent" in open ? open.agent.Name : "";

  const state = (agent: Agent): AgentVersionState =>
    agentVersionState(
      agent.Version,
      status.data?.MinimumRequiredAgentVersion ?? "",
      status.data?.AvailableAgentVersions ?? [],
    );

  const columns: Column<Agent>[] = [
    textColumn("name", t`Name`, (a) => a.Name),
    {
      id: "capabilities",
      header: t`Capabilities`,
      searchText: (a) => capabilityNames(a).join(" "),
      cell: (a) => {
        const names = capabilityNames(a);
        const name = a.Name;
        return (
          <button
            type="button"
            onClick={() => setOpen({ kind: "capabilities", agent: a })}
            className="text-left text-accent-800 underline-offset-2 hover:underline dark:text-accent-300"
          >
            {names.length > 0 ? names.join(", ") : t`none`}
            <span className="sr-only">: {t`Capabilities of ${name}`}</span>
          </button>
        );
      },
    },
    {
      id: "activity",
      header: t`Activity`,
      sortValue: (a) => (a.LastSeen ? Date.parse(a.LastSeen) : 0),
      cell: (a) => {
        return a.LastSeen === null ? (
          <span className="flex flex-wrap items-center gap-2" data-testid="awaiting-connection">
            <span className="text-amber-800 dark:text-amber-300">
              <Trans>Awaiting connection</Trans>
            </span>
          </span>
        ) : (
          <time dateTime={a.LastSeen} title={new Date(a.LastSeen).toLocaleString(i18n.locale)}>
            {a.Connected ? <Trans>Connected</Trans> : relativeTime(a.LastSeen, now, i18n.locale)}
          </time>
        );
      },
    },
    {
      id: "version",
      header: t`Version`,
      sortValue: (a) => a.Version,
      searchText: (a) => a.Version,
      cell: (a) => <VersionBadge state={state(a)} version={a.Version} />,
    },
    {
      id: "ip",
      header: t`IP address`,
      searchText: (a) => displayAddress(a.ExternalIP),
      cell: (a) => <span data-testid="agent-ip">{displayAddress(a.ExternalIP)}</span>,
    },
    actionsColumn(
      t`Actions`,
      (a) => a.Name,
      (a) => [
        { label: t`Edit`, onSelect: () => setOpen({ kind: "rename", agent: a }) },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", agent: a }) },
      ],
    ),
  ];

  return (
    <>
      <PageHeader
        title={t`Agents`}
        actions={
          <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
            <Trans>Create agent</Trans>
          </Button>
        }
      >
        <Trans>Agents run on your hosts and push the allow rules to firewalls, proxies, ipsets and scripts.</Trans>
      </PageHeader>
      <DataTable
        label={t`Agents`}
        testId="agents-table"
        searchable
        columns={columns}
        rows={agents.data}
        rowKey={(a) => a.ID}
        rowProps={(a) => ({ "data-agent-id": a.ID })}
        defaultSort={{ id: "name" }}
        empty={<Trans>No agents yet. Create one and install it on a host.</Trans>}
      />

      {open.kind === "create" || open.kind === "rename" ? (
        <AgentForm
          agent={open.kind === "rename" ? open.agent : undefined}
          onCreated={(agent) => setOpen({ kind: "created", agent })}
          onClose={close}
        />
      ) : null}
      {open.kind === "created" ? (
        <Dialog
          open
          onClose={close}
          size="lg"
          title={t`Install the agent`}
          footer={
            <Button variant="primary" onClick={close}>
              <Trans>Done</Trans>
            </Button>
          }
        >
          <p>
            <Trans>Run this command on the host as root. The agent connects with its token.</Trans>
          </p>
          <Copyable
            id="install-command"
            label={t`Install command`}
            what={t`install command`}
            value={open.agent.InstallCommand}
          />
          <Copyable id="agent-token" label={t`Token`} what={t`token`} value={open.agent.Token} />
        </Dialog>
      ) : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete agent`}
          success={t`Agent deleted`}
          name={openName}
          mutation={remove}
          variables={open.agent.ID}
          onClose={close}
        />
      ) : null}
      {open.kind === "capabilities" ? <CapabilitiesDialog agent={open.agent} onClose={close} /> : null}
    </>
  );
}

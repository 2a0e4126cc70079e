/**
 * The agent step (docs/reference.md admin-console §2 "Linux wizard" step 1, Proxy and Script step 1, Application 3.2;
 * §5 agent gates; §8 tooltips): the agents with a radio each; an agent that cannot carry the
 * wizard's backend type is disabled, its reason shown beside it and as its tooltip ('Agent is not
 * capable of granting the Knoc type selected', 'The Knoc type selected is not compatible with the
 * agent's version...', never connected, no ipset command, no sudo). The only capable agent is chosen
 * by itself; an agent below the server's minimum version carries an update warning. Next stays
 * disabled until an agent is chosen.
 */
import { useEffect, useId } from "react";
import { useQuery } from "@tanstack/react-query";
import { useSetAtom } from "jotai";
import { Trans, useLingui } from "@lingui/react/macro";
import { Errors, NONE_ID } from "@postern/shared";
import type { Agent } from "@postern/shared";
import { DataTable } from "../../../../ui/kit/DataTable.tsx";
import { textColumn } from "../../../lib/columns.tsx";
import { translateAdminMessage } from "../../../lib/errors.ts";
import { compareVersions } from "../../../lib/version.ts";
import { agentQueries } from "../../../queries/agents.ts";
import { statusQueries } from "../../../queries/status.ts";
import { agentFitness, soleCapableAgent } from "./agent-fitness.ts";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import { wizardAtom } from "./wizard-state.ts";
import type { WizardDraft } from "./wizard-state.ts";

/** The agent step of `draft` (its backend type is the settings' Type). */
export function AgentStep({ nav, draft }: { nav: StepNav; draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const setDraft = useSetAtom(wizardAtom);
  const agents = useQuery(agentQueries.header());
  const status = useQuery(statusQueries.header());
  const type = draft.settings.Type;
  const tableId = useId();
  const minimum = status.data?.MinimumRequiredAgentVersion ?? "";
  const choose = (id: string): void => setDraft((d) => (d ? { ...d, agentId: id } : d));

  // The chosen agent must still fit (the type may have changed since); the only capable one is chosen by itself.
  useEffect(() => {
    if (!agents.data) return;
    const chosen = agents.data.find((a) => a.ID === draft.agentId);
    if (chosen && agentFitness(chosen, type).ok) return;
    choose(soleCapableAgent(agents.data, type) ?? NONE_ID);
  }, [agents.data, type]);

  const reasonText = (agent: Agent): string | undefined => {
    const fitness = agentFitness(agent, type);
    if (fitness.ok) return undefined;
    const version = agent.Version;
    switch (fitness.reason) {
      case "neverConnected":
        return translateAdminMessage(i18n, Errors.agentNeverConnected.err) ?? t`This agent has never connected`;
      case "incapable":
        return fitness.key === Errors.agentIncapable.err
          ? t`Agent is not capable of granting the Knoc type selected`
          : (translateAdminMessage(i18n, fitness.key) ?? t`Agent is not capable of granting the Knoc type selected`);
      case "version": {
        const needed = fitness.needed;
        return t`The Knoc type selected is not compatible with the agent's version (${version}): version ${needed} or later is needed.`;
      }
    }
  };
  const warning = (agent: Agent): string | undefined => {
    const version = agent.Version;
    return version !== "" && minimum !== "" && compareVersions(version, minimum) < 0
      ? t`Update this agent: version ${minimum} or later is needed.`
      : undefined;
  };

  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (draft.agentId !== NONE_ID) nav.next();
      }}
    >
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        <Trans>Choose the agent that enforces this Knoc.</Trans>
      </p>
      <DataTable<Agent>
        label={t`Agents`}
        testId="wizard-agents"
        rows={agents.data}
        rowKey={(a) => a.ID}
        rowProps={(a) => ({ title: reasonText(a), "data-agent-id": a.ID })}
        defaultSort={{ id: "name" }}
        empty={
          <Trans>
            No agents yet. Create one on the{" "}
            <a className="font-semibold underline" href="/admin/agents">
              agents page
            </a>
            .
          </Trans>
        }
        columns={[
          {
            id: "choose",
            header: t`Choose`,
            srOnlyHeader: true,
            cell: (a) => {
              const reason = reasonText(a);
              return (
                <input
                  type="radio"
                  name="agent"
                  className="size-4 accent-accent-700"
                  aria-label={t`Choose ${a.Name}`}
                  aria-describedby={reason ? `${tableId}-${a.ID}` : undefined}
                  checked={draft.agentId === a.ID}
                  disabled={reason !== undefined}
                  onChange={() => choose(a.ID)}
                />
              );
            },
          },
          textColumn("name", t`Name`, (a) => a.Name),
          textColumn("version", t`Version`, (a) => a.Version || "—"),
          textColumn(
            "ip",
            t`IP address`,
            (a) => (/^[^:]+:\d+$/.test(a.ExternalIP) ? a.ExternalIP.replace(/:\d+$/, "") : a.ExternalIP) || "—",
          ),
          {
            id: "fitness",
            header: t`Status`,
            cell: (a) => {
              const reason = reasonText(a);
              const warn = warning(a);
              if (reason)
                return (
                  <span id={`${tableId}-${a.ID}`} className="text-red-700 dark:text-red-300">
                    {reason}
                  </span>
                );
              return warn ? (
                <span role="note" className="text-amber-800 dark:text-amber-200">
                  {warn}
                </span>
              ) : (
                <span className="text-green-800 dark:text-green-300">
                  <Trans>Ready</Trans>
                </span>
              );
            },
          },
        ]}
      />
      <StepButtons onBack={nav.back} nextDisabled={draft.agentId === NONE_ID} />
    </form>
  );
}

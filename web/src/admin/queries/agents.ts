/**
 * Agents (docs/reference.md admin-console §2 "Agents", §7 /admin/agents): list (header every 180 s, the agents page
 * every 5 s), create (answers the token and install command once), rename, delete (refused while
 * backends are attached). Mutations refresh the list.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Agent, AgentCreated, AgentWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { RefetchMs, StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the agents. */
export const agentQueries = {
  all: ["admin", "agents"] as const,
  /** The header's read (agent-incompatible banner): every 180 s. */
  header: () =>
    queryOptions({
      queryKey: agentQueries.all,
      queryFn: () => apiRequest<Agent[]>("GET", "/admin/agents"),
      staleTime: StaleMs.adminList,
      refetchInterval: RefetchMs.headerAgents,
    }),
  /** The agents page's read: every 5 s, forced. */
  page: () =>
    queryOptions({
      queryKey: agentQueries.all,
      queryFn: () => apiRequest<Agent[]>("GET", "/admin/agents"),
      staleTime: 0,
      refetchInterval: RefetchMs.agentsPage,
      refetchIntervalInBackground: true,
    }),
};

const useAgentWrite = <V, R>(call: (vars: V) => Promise<R>) => useInvalidatingMutation(call, [agentQueries.all]);

/** POST /api/admin/agents (the answer carries the install command and the token, once). */
export const useCreateAgent = () =>
  useAgentWrite((body: AgentWrite) => apiRequest<AgentCreated>("POST", "/admin/agents", { body }));
/** PUT /api/admin/agents/{id} (rename). */
export const useRenameAgent = () =>
  useAgentWrite((body: AgentWrite & { ID: string }) =>
    apiRequest<Agent>("PUT", `/admin/agents/${enc(body.ID)}`, { body }),
  );
/** DELETE /api/admin/agents/{id} (refused while backends are attached). */
export const useDeleteAgent = () =>
  useAgentWrite((id: string) => apiRequest<void>("DELETE", `/admin/agents/${enc(id)}`));

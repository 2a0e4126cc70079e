/**
 * Agents (admin-console §2 "Agents", §7 /admin/agents): list (header every 180 s, the agents page
 * every 5 s), create (answers the token and install command once), rename, delete (refused while
 * backends are attached). Mutations refresh the list.
 */
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import type { Agent, AgentCreated, AgentWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
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

/** POST /api/admin/agents. */
export function useCreateAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: AgentWrite) => apiRequest<AgentCreated>("POST", "/admin/agents", { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: agentQueries.all }),
  });
}

/** PUT /api/admin/agents/{id} (rename). */
export function useRenameAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: AgentWrite & { ID: string }) =>
      apiRequest<Agent>("PUT", `/admin/agents/${enc(body.ID)}`, { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: agentQueries.all }),
  });
}

/** DELETE /api/admin/agents/{id}. */
export function useDeleteAgent() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiRequest<void>("DELETE", `/admin/agents/${enc(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: agentQueries.all }),
  });
}

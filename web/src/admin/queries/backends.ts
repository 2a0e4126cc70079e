/**
 * Backends (docs/reference.md admin-console §2 "Backends", §3, §7 /admin/backends): the list and one backend (cached
 * 3 minutes; secrets read as ""), create, update (a changed host or URL needs the credentials
 * again), delete. Writes refresh the backends, the ACLs and Knocs that show them, and the agents.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Backend, BackendWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { agentQueries } from "./agents.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the backends. */
export const backendQueries = {
  all: ["admin", "backends"] as const,
  list: () =>
    queryOptions({
      queryKey: backendQueries.all,
      queryFn: () => apiRequest<Backend[]>("GET", "/admin/backends"),
      staleTime: StaleMs.adminList,
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...backendQueries.all, id],
      queryFn: () => apiRequest<Backend>("GET", `/admin/backends/${enc(id)}`),
      staleTime: StaleMs.adminList,
    }),
};

const useBackendWrite = <V, R>(call: (vars: V) => Promise<R>) =>
  useInvalidatingMutation(call, [backendQueries.all, ["admin", "acls"], ["admin", "knocs"], agentQueries.all]);

/** POST /api/admin/backends. */
export const useCreateBackend = () =>
  useBackendWrite((body: BackendWrite) => apiRequest<{ ID: string }>("POST", "/admin/backends", { body }));
/** PUT /api/admin/backends/{id}. */
export const useUpdateBackend = () =>
  useBackendWrite((body: BackendWrite & { ID: string }) =>
    apiRequest<{ ID: string }>("PUT", `/admin/backends/${enc(body.ID)}`, { body }),
  );
/** DELETE /api/admin/backends/{id} (refused while ACLs use it). */
export const useDeleteBackend = () =>
  useBackendWrite((id: string) => apiRequest<void>("DELETE", `/admin/backends/${enc(id)}`));

/**
 * API keys (docs/reference.md admin-console §2 "API keys", §7 /admin/api-keys): the list (cached 3 minutes), create
 * (answers the plaintext key once), update (AllowedFrom only) and delete, each refreshing the list.
 */
import { queryOptions } from "@tanstack/react-query";
import type { ApiKey, ApiKeyCreate, ApiKeyUpdate } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the API keys. */
export const apiKeyQueries = {
  all: ["admin", "api-keys"] as const,
  list: () =>
    queryOptions({
      queryKey: apiKeyQueries.all,
      queryFn: () => apiRequest<ApiKey[]>("GET", "/admin/api-keys"),
      staleTime: StaleMs.adminList,
    }),
};

const useKeyWrite = <V, R>(call: (vars: V) => Promise<R>) => useInvalidatingMutation(call, [apiKeyQueries.all]);

/** POST /api/admin/api-keys (the answer carries PlaintextKey, once). */
export const useCreateApiKey = () =>
  useKeyWrite((body: ApiKeyCreate) => apiRequest<ApiKey>("POST", "/admin/api-keys", { body }));
/** PUT /api/admin/api-keys/{id}: only AllowedFrom may change. */
export const useUpdateApiKey = () =>
  useKeyWrite((body: ApiKeyUpdate & { ID: string }) =>
    apiRequest<ApiKey>("PUT", `/admin/api-keys/${enc(body.ID)}`, { body: { AllowedFrom: body.AllowedFrom } }),
  );
/** DELETE /api/admin/api-keys/{id}. */
export const useDeleteApiKey = () =>
  useKeyWrite((id: string) => apiRequest<void>("DELETE", `/admin/api-keys/${enc(id)}`));

/**
 * Knocs (docs/reference.md admin-console §2 "Knocs", §7 /admin/knocs): the list and one Knoc (cached 3 minutes),
 * create from the wizard state (answers [id, PlaintextKey?, AllowlistURL?]), update from the
 * update page's tabs, delete (optionally with an API key left without scope). Writes refresh the
 * Knocs, the ACLs, the backends they may create, the groups and users that count them, and the
 * API keys a wizard may create.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Knoc, KnocCreate, KnocUpdate } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { aclQueries } from "./acls.ts";
import { apiKeyQueries } from "./api-keys.ts";
import { backendQueries } from "./backends.ts";
import { groupQueries } from "./groups.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";
import { statusQueries } from "./status.ts";
import { userQueries } from "./users.ts";

const enc = encodeURIComponent;

/** Query options of the Knocs. */
export const knocQueries = {
  all: ["admin", "knocs"] as const,
  list: () =>
    queryOptions({
      queryKey: knocQueries.all,
      queryFn: () => apiRequest<Knoc[]>("GET", "/admin/knocs"),
      staleTime: StaleMs.adminList,
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...knocQueries.all, id],
      queryFn: () => apiRequest<Knoc>("GET", `/admin/knocs/${enc(id)}`),
      staleTime: StaleMs.adminList,
    }),
};

const useKnocWrite = <V, R>(call: (vars: V) => Promise<R>) =>
  useInvalidatingMutation(call, [
    knocQueries.all,
    aclQueries.all,
    backendQueries.all,
    groupQueries.all,
    userQueries.all,
    apiKeyQueries.all,
    statusQueries.all,
  ]);

/** POST /api/admin/knocs: answers [Knoc id, PlaintextKey?, AllowlistURL?] (absent ones left out). */
export const useCreateKnoc = () =>
  useKnocWrite((body: KnocCreate) => apiRequest<string[]>("POST", "/admin/knocs", { body }));
/** PUT /api/admin/knocs/{id} (the update page; for Passive+ the child firewall Knoc's id). */
export const useUpdateKnoc = () =>
  useKnocWrite((vars: KnocUpdate & { ID: string }) =>
    apiRequest<string>("PUT", `/admin/knocs/${enc(vars.ID)}`, { body: { WizardState: vars.WizardState } }),
  );
/** DELETE /api/admin/knocs/{id}; `deleteApiKey` also deletes an API key left with no scope. */
export const useDeleteKnoc = () =>
  useKnocWrite((vars: { ID: string; deleteApiKey: boolean }) =>
    apiRequest<void>("DELETE", `/admin/knocs/${enc(vars.ID)}${vars.deleteApiKey ? "?deleteApiKey=true" : ""}`),
  );

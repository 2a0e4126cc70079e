/**
 * ACLs (docs/reference.md admin-console §2 "ACLs", §7 /admin/acls): the list and one ACL (cached 3 minutes), create,
 * update, delete. Writes refresh the ACLs, the Knocs (an ACL is a Knoc's rule), the groups and the
 * users that count them.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Acl, AclWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the ACLs. */
export const aclQueries = {
  all: ["admin", "acls"] as const,
  list: () =>
    queryOptions({
      queryKey: aclQueries.all,
      queryFn: () => apiRequest<Acl[]>("GET", "/admin/acls"),
      staleTime: StaleMs.adminList,
    }),
  detail: (id: string) =>
    queryOptions({
      queryKey: [...aclQueries.all, id],
      queryFn: () => apiRequest<Acl>("GET", `/admin/acls/${enc(id)}`),
      staleTime: StaleMs.adminList,
    }),
};

const useAclWrite = <V, R>(call: (vars: V) => Promise<R>) =>
  useInvalidatingMutation(call, [aclQueries.all, ["admin", "knocs"], ["admin", "groups"], ["admin", "users"]]);

/** POST /api/admin/acls. */
export const useCreateAcl = () => useAclWrite((body: AclWrite) => apiRequest<string>("POST", "/admin/acls", { body }));
/** PUT /api/admin/acls/{id}. */
export const useUpdateAcl = () =>
  useAclWrite((body: AclWrite & { ID: string }) => apiRequest<string>("PUT", `/admin/acls/${enc(body.ID)}`, { body }));
/** DELETE /api/admin/acls/{id}. */
export const useDeleteAcl = () => useAclWrite((id: string) => apiRequest<void>("DELETE", `/admin/acls/${enc(id)}`));

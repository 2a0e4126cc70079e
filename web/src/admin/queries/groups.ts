/**
 * Groups (docs/reference.md admin-console §2 "Groups", §7 /admin/groups): the list (cached 3 minutes) and create,
 * update, delete, each refreshing the groups and the users (whose groups change).
 */
import { queryOptions } from "@tanstack/react-query";
import type { Group, GroupWrite } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";
import { userQueries } from "./users.ts";

const enc = encodeURIComponent;

/** Query options of the groups. */
export const groupQueries = {
  all: ["admin", "groups"] as const,
  list: () =>
    queryOptions({
      queryKey: groupQueries.all,
      queryFn: () => apiRequest<Group[]>("GET", "/admin/groups"),
      staleTime: StaleMs.adminList,
    }),
};

const useGroupWrite = <V, R>(call: (vars: V) => Promise<R>) =>
  useInvalidatingMutation(call, [groupQueries.all, userQueries.all]);

/** POST /api/admin/groups. */
export const useCreateGroup = () =>
  useGroupWrite((body: GroupWrite) => apiRequest<Group>("POST", "/admin/groups", { body }));
/** PUT /api/admin/groups/{id} (the type cannot change). */
export const useUpdateGroup = () =>
  useGroupWrite((body: GroupWrite & { ID: string }) =>
    apiRequest<Group>("PUT", `/admin/groups/${enc(body.ID)}`, { body }),
  );
/** DELETE /api/admin/groups/{id}. */
export const useDeleteGroup = () =>
  useGroupWrite((id: string) => apiRequest<void>("DELETE", `/admin/groups/${enc(id)}`));

/** ACLs (admin-console §7 /admin/acls): the list, cached 3 minutes (the group form's Knoc checklist). */
import { queryOptions } from "@tanstack/react-query";
import type { Acl } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { StaleMs } from "./policy.ts";

/** Query options of the ACLs. */
export const aclQueries = {
  all: ["admin", "acls"] as const,
  list: () =>
    queryOptions({
      queryKey: aclQueries.all,
      queryFn: () => apiRequest<Acl[]>("GET", "/admin/acls"),
      staleTime: StaleMs.adminList,
    }),
};

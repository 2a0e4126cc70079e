/**
 * Users (admin-console §2 "Users", §7 /admin/users): the list (cached 3 minutes; the users page
 * reads it every 30 s). The header's user-limit banner reads the same list to know whether SAML
 * users exist.
 */
import { queryOptions } from "@tanstack/react-query";
import type { User } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { RefetchMs, StaleMs } from "./policy.ts";

/** GET /api/admin/users. */
const listUsers = (): Promise<User[]> => apiRequest<User[]>("GET", "/admin/users");

/** Query options of the users. */
export const userQueries = {
  all: ["admin", "users"] as const,
  /** The header's read (cached 3 minutes). */
  list: () => queryOptions({ queryKey: userQueries.all, queryFn: listUsers, staleTime: StaleMs.adminList }),
  /** The users page's read: every 30 s. */
  page: () =>
    queryOptions({
      queryKey: userQueries.all,
      queryFn: listUsers,
      staleTime: StaleMs.adminList,
      refetchInterval: RefetchMs.usersList,
    }),
};

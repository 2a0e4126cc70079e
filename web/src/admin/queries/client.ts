/**
 * The admin console's QueryClient: answers stay fresh for the admin-list lifetime unless a query
 * says otherwise (queries/policy.ts); failed reads retry once, writes never; a 401
 * err.invalidSession is not retried (the client's handler sends the admin to login).
 */
import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "../../ui/api/client.ts";
import { StaleMs } from "./policy.ts";

/** The one QueryClient of the admin console. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: StaleMs.adminList,
      retry: (failures, error) =>
        !(error instanceof ApiError && error.status >= 400 && error.status < 500) && failures < 1,
      refetchOnWindowFocus: false,
    },
    mutations: { retry: false },
  },
});

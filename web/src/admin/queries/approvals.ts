/**
 * Approval requests (issue #14 item 1, /api/admin/approvals; docs/decisions.md "Approval requests"): the list
 * (pending first, then the latest decided), asked again every RefetchMs.approvals while the page is open, and
 * the two decisions — approve (optional Minutes) and deny (Reason) — each refreshing the list.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Approval, ApproveRequest, DenyRequest } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { RefetchMs, StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the approval requests. */
export const approvalQueries = {
  all: ["admin", "approvals"] as const,
  list: () =>
    queryOptions({
      queryKey: approvalQueries.all,
      queryFn: () => apiRequest<Approval[]>("GET", "/admin/approvals"),
      staleTime: StaleMs.adminList,
      refetchInterval: RefetchMs.approvals,
    }),
};

const useDecision = <V>(call: (vars: V) => Promise<Approval>) => useInvalidatingMutation(call, [approvalQueries.all]);

/** POST /api/admin/approvals/{id}/approve: applies the grant at once (Minutes shortens it). */
export const useApprove = () =>
  useDecision(({ ID, ...body }: ApproveRequest & { ID: string }) =>
    apiRequest<Approval>("POST", `/admin/approvals/${enc(ID)}/approve`, { body }),
  );
/** POST /api/admin/approvals/{id}/deny: ends the request with the Reason the user is shown. */
export const useDeny = () =>
  useDecision(({ ID, ...body }: DenyRequest & { ID: string }) =>
    apiRequest<Approval>("POST", `/admin/approvals/${enc(ID)}/deny`, { body }),
  );

/**
 * The group approvers' calls (docs/decisions.md "Approval requests"): GET /api/approvals (the pending requests
 * of Knocs the signed-in user's groups approve, not their own), POST /api/approvals/{id}/approve {Minutes?} and
 * POST /api/approvals/{id}/deny {Reason}. Refusals arrive as ApiError: 403 err.cannotApproveOwnRequest,
 * 409 err.approvalNotPending, 404 Not found (the request is not one the user's groups approve).
 */
import type { Approval, ApproveRequest, DenyRequest } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";

const enc = encodeURIComponent;

/** GET /api/approvals; throws on a body that is not a list. */
export async function listApprovals(options: { signal?: AbortSignal } = {}): Promise<Approval[]> {
  const body = await apiRequest<unknown>("GET", "/approvals", options);
  if (!Array.isArray(body)) throw new TypeError("Unexpected response from /api/approvals");
  return body as Approval[];
}

/** POST /api/approvals/{id}/approve: the grant applies at once (`Minutes` shortens it, in MINUTES). */
export async function approveRequest(id: string, body: ApproveRequest): Promise<Approval> {
  return await apiRequest<Approval>("POST", `/approvals/${enc(id)}/approve`, { body });
}

/** POST /api/approvals/{id}/deny: ends the request with the `Reason` the user is shown. */
export async function denyRequest(id: string, body: DenyRequest): Promise<Approval> {
  return await apiRequest<Approval>("POST", `/approvals/${enc(id)}/deny`, { body });
}

/**
 * Approval requests (issue #14 item 1; docs/decisions.md "Approval requests", docs/admin-guide.md "Approvals"):
 * a Knoc with RequiresApproval holds a user's grant (status 2, ApprovalState "pending") until an approver —
 * an admin, or a member of one of the Knoc's approver groups — approves it (the grant is applied at once,
 * optionally shortened) or denies it with a reason the user is shown. A request not answered within the
 * Knoc's ApprovalTimeout (seconds, default 3600) expires.
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { Errors } from "../errors.ts";
import { Limits } from "../limits.ts";

/** The states of a request; "withdrawn" (the user withdrew it, or their session ended) is never shown to the user. */
export const APPROVAL_STATES = ["pending", "approved", "denied", "expired", "withdrawn"] as const;
/** One state of a request. */
export type ApprovalRequestState = (typeof APPROVAL_STATES)[number];
/** The states a status entry shows of its latest request (GET /api/status `ApprovalState`). */
export const SHOWN_APPROVAL_STATES = ["pending", "approved", "denied", "expired"] as const;
/** What a status entry says of its latest request; null when there is none to show. */
export type ApprovalState = (typeof SHOWN_APPROVAL_STATES)[number];

/** Longest reason (a user's, or an approver's denial), characters. */
export const MAX_APPROVAL_REASON = 500;
/** Shortest and longest ApprovalTimeout of a Knoc, SECONDS (and its default: one hour). */
export const APPROVAL_TIMEOUT_MIN_SECONDS = 5;
export const APPROVAL_TIMEOUT_MAX_SECONDS = 7 * 24 * 3600;
export const APPROVAL_TIMEOUT_DEFAULT_SECONDS = 3600;

/** ApprovalTimeout of an ACL write: whole SECONDS, 5 s to 7 days (err.invalidApprovalTimeout). */
export const ApprovalTimeoutSchema = z
  .number(Errors.invalidApprovalTimeout.err)
  .int(Errors.invalidApprovalTimeout.err)
  .min(APPROVAL_TIMEOUT_MIN_SECONDS, Errors.invalidApprovalTimeout.err)
  .max(APPROVAL_TIMEOUT_MAX_SECONDS, Errors.invalidApprovalTimeout.err);

/** The reason a user gives when asking (POST /api/grant `Reason`), optional, at most MAX_APPROVAL_REASON characters. */
export const ApprovalReasonSchema = z.string().trim().max(MAX_APPROVAL_REASON, Errors.approvalReasonTooLong.err);

/**
 * POST /api/admin/approvals/{id}/approve (and /api/approvals/{id}/approve) body: `Minutes` shortens the grant
 * to that many MINUTES from now (1 to the grant duration limit), null or absent keeps the Knoc's own length.
 */
export const ApproveRequestSchema = z.object({
  Minutes: z
    .number(Errors.invalidApprovalMinutes.err)
    .int(Errors.invalidApprovalMinutes.err)
    .min(1, Errors.invalidApprovalMinutes.err)
    .max(Limits.maximumGrantDurationMaxMinutes, Errors.invalidApprovalMinutes.err)
    .nullable()
    .default(null),
});
/** Approve body. */
export type ApproveRequest = z.infer<typeof ApproveRequestSchema>;

/** POST …/approvals/{id}/deny body: the reason the user is shown, required (err.denyReasonRequired). */
export const DenyRequestSchema = z.object({
  Reason: z
    .string(Errors.denyReasonRequired.err)
    .trim()
    .min(1, Errors.denyReasonRequired.err)
    .max(MAX_APPROVAL_REASON, Errors.approvalReasonTooLong.err),
});
/** Deny body. */
export type DenyRequest = z.infer<typeof DenyRequestSchema>;

/** One request as approvers read it (GET /api/admin/approvals, GET /api/approvals). Times ISO 8601 UTC. */
export const ApprovalSchema = z.object({
  ID: IdSchema,
  UserName: z.string(),
  ACLID: IdSchema,
  /** The Knoc's Description. */
  ACL: z.string(),
  /** The address the user asked from. */
  IPAddress: z.string(),
  /** The user's reason ("" when none was given). */
  Reason: z.string(),
  State: z.enum(APPROVAL_STATES),
  Created: z.string(),
  /** When a pending request expires. */
  Expires: z.string(),
  /** When it was decided, expired or withdrawn; "" while pending. */
  DecidedAt: z.string(),
  /** The approver's name ("" unless approved or denied). */
  DecidedBy: z.string(),
  /** A denial's reason. */
  DenyReason: z.string(),
  /** The length the approver gave the grant, MINUTES; null for the Knoc's own. */
  GrantMinutes: z.number().int().nullable(),
});
/** One request as approvers read it. */
export type Approval = z.infer<typeof ApprovalSchema>;

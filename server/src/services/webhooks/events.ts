/**
 * Which audit entries raise which webhook event (docs/decisions.md "Event webhooks", docs/admin-guide.md
 * "Webhooks"), and the JSON body a delivery carries. Every event comes from an audit entry: the audit log already
 * records each of them in the transaction of the change, so this table is the one place events are defined.
 */
import { WEBHOOK_ALL_EVENTS } from "@postern/shared";
import type { WebhookEventType, WebhookPayload } from "@postern/shared";
import { AuditAction } from "../audit.ts";
import type { AuditActionKind } from "../audit.ts";
import type { AuditRow } from "../../repositories/audit.ts";

/** What raises each event type, as GET /admin/webhooks/events describes it. */
export const EVENT_DESCRIPTIONS: Record<WebhookEventType, string> = {
  "grant.granted": "A user granted an ACL (clicked, or through the API)",
  "grant.revoked": "A grant ended: the user revoked it or it expired",
  "grant.error": "An agent or target refused a grant or a revoke",
  "user.signin": "A user signed in",
  "user.signin_failed": "A user's sign-in was refused",
  "admin.signin": "An admin signed in",
  "admin.signin_failed": "An admin's sign-in was refused",
  "approval.requested": "A user asked for access to a Knoc that requires approval",
  "approval.decided": "An approval request ended: approved, denied, expired or withdrawn",
  "admin.change": "An admin created, changed or deleted something, or changed settings",
};

/** The event type of each audit action that raises one; actions not listed raise none. */
const EVENT_OF_ACTION: Partial<Record<AuditActionKind, WebhookEventType>> = {
  [AuditAction.clickedToGrant]: "grant.granted",
  [AuditAction.clickedToRevoke]: "grant.revoked",
  [AuditAction.grantExpired]: "grant.revoked",
  [AuditAction.grantError]: "grant.error",
  [AuditAction.revokeError]: "grant.error",
  [AuditAction.userLoggedIn]: "user.signin",
  [AuditAction.userLoginFailed]: "user.signin_failed",
  [AuditAction.adminLoggedIn]: "admin.signin",
  [AuditAction.adminLoginFailed]: "admin.signin_failed",
  [AuditAction.aclCreated]: "admin.change",
  [AuditAction.aclUpdated]: "admin.change",
  [AuditAction.aclDeleted]: "admin.change",
  [AuditAction.backendCreated]: "admin.change",
  [AuditAction.backendUpdated]: "admin.change",
  [AuditAction.backendDeleted]: "admin.change",
  [AuditAction.groupCreated]: "admin.change",
  [AuditAction.groupUpdated]: "admin.change",
  [AuditAction.groupDeleted]: "admin.change",
  [AuditAction.userCreated]: "admin.change",
  [AuditAction.userUpdated]: "admin.change",
  [AuditAction.userDeleted]: "admin.change",
  [AuditAction.adminCreated]: "admin.change",
  [AuditAction.adminUpdated]: "admin.change",
  [AuditAction.adminDeleted]: "admin.change",
  [AuditAction.adminAutoCreated]: "admin.change",
  [AuditAction.agentCreated]: "admin.change",
  [AuditAction.agentUpdated]: "admin.change",
  [AuditAction.agentDeleted]: "admin.change",
  [AuditAction.apiKeyCreated]: "admin.change",
  [AuditAction.apiKeyUpdated]: "admin.change",
  [AuditAction.apiKeyDeleted]: "admin.change",
  [AuditAction.knocCreated]: "admin.change",
  [AuditAction.knocUpdated]: "admin.change",
  [AuditAction.knocDeleted]: "admin.change",
  [AuditAction.sessionDeleted]: "admin.change",
  [AuditAction.totpReset]: "admin.change",
  [AuditAction.auditLogCleared]: "admin.change",
  [AuditAction.settingsUpdated]: "admin.change",
  [AuditAction.licenseInstalled]: "admin.change",
  [AuditAction.webhookCreated]: "admin.change",
  [AuditAction.webhookUpdated]: "admin.change",
  [AuditAction.webhookDeleted]: "admin.change",
  [AuditAction.approvalRequested]: "approval.requested",
  [AuditAction.approvalApproved]: "approval.decided",
  [AuditAction.approvalDenied]: "approval.decided",
  [AuditAction.approvalExpired]: "approval.decided",
  [AuditAction.approvalWithdrawn]: "approval.decided",
};

/** The event type an audit action raises, or undefined. */
export function eventTypeOf(action: string): WebhookEventType | undefined {
  return EVENT_OF_ACTION[action as AuditActionKind];
}

/** True when a webhook subscribed to `events` (event types or ["*"]) wants `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
  return events.includes(WEBHOOK_ALL_EVENTS) || events.includes(type);
}

/**
 * The body of the delivery of one audit entry: `type`, `timestamp` (the entry's time, ISO 8601 UTC) and `data`
 * with the entry's fields in PascalCase (Action, AuditID and the non-empty ones of UserName, AdminName, AgentName,
 * IPAddress, ACL, Description, ErrorMessage).
 */
export function payloadOf(type: WebhookEventType, row: AuditRow): WebhookPayload {
  const data: Record<string, unknown> = { Action: row.action, AuditID: row.id };
  const fields: [string, string][] = [
    ["UserName", row.userName],
    ["AdminName", row.adminName],
    ["AgentName", row.agentName],
    ["IPAddress", row.ipAddress],
    ["ACL", row.aclDescription],
    ["Description", row.description],
    ["ErrorMessage", row.errorMessage],
  ];
  for (const [name, value] of fields) if (value !== "") data[name] = value;
  return { type, timestamp: new Date(row.at).toISOString(), data };
}

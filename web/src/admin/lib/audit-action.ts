/**
 * Labels of the audit log's action kinds (docs/reference.md admin-console §3 "Audit log entry"). `Action` is a
 * string on the wire so that a newer server's kinds still show: unknown kinds show as sent.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import type { AuditEntryDetail } from "@postern/shared";

const LABELS: Record<string, MessageDescriptor> = {
  userLoggedIn: msg`User logged in`,
  userLoginFailed: msg`User login failed`,
  userLoggedOut: msg`User logged out`,
  adminLoggedIn: msg`Admin logged in`,
  adminLoginFailed: msg`Admin login failed`,
  adminLoggedOut: msg`Admin logged out`,
  sessionDeleted: msg`Session deleted`,
  sessionExpired: msg`Session expired`,
  userIpChanged: msg`User IP address changed`,
  grantError: msg`Grant error`,
  grantExpired: msg`Grant expired`,
  revokeError: msg`Revoke error`,
  clickedToGrant: msg`Clicked to grant`,
  clickedToRevoke: msg`Clicked to revoke`,
  aclCreated: msg`ACL created`,
  aclUpdated: msg`ACL updated`,
  aclDeleted: msg`ACL deleted`,
  backendCreated: msg`Backend created`,
  backendUpdated: msg`Backend updated`,
  backendDeleted: msg`Backend deleted`,
  groupCreated: msg`Group created`,
  groupUpdated: msg`Group updated`,
  groupDeleted: msg`Group deleted`,
  userCreated: msg`User created`,
  userUpdated: msg`User updated`,
  userDeleted: msg`User deleted`,
  adminCreated: msg`Admin created`,
  adminUpdated: msg`Admin updated`,
  adminDeleted: msg`Admin deleted`,
  agentCreated: msg`Agent created`,
  agentUpdated: msg`Agent updated`,
  agentDeleted: msg`Agent deleted`,
  agentEnrolled: msg`Agent enrolled`,
  apiKeyCreated: msg`API key created`,
  apiKeyUpdated: msg`API key updated`,
  apiKeyDeleted: msg`API key deleted`,
  knocCreated: msg`Knoc created`,
  knocUpdated: msg`Knoc updated`,
  knocDeleted: msg`Knoc deleted`,
  totpReset: msg`Two-factor authentication reset`,
  totpEnrolled: msg`Two-factor authentication enrolled`,
  totpVerified: msg`Two-factor code verified`,
  totpCodeFailed: msg`Two-factor code failed`,
  totpEnrolmentDeferred: msg`Two-factor enrolment deferred`,
  passkeyAdded: msg`Passkey added`,
  passkeyRemoved: msg`Passkey removed`,
  passkeyUsed: msg`Passkey used to sign in`,
  passkeyFailed: msg`Passkey refused`,
  adminAutoCreated: msg`Admin auto-created`,
  allowlistAccessDenied: msg`Allowlist access denied`,
  apiKeyAccessDenied: msg`API key access denied`,
  auditLogCleared: msg`Audit log cleared`,
  settingsUpdated: msg`Settings updated`,
  licenseInstalled: msg`License installed`,
  webhookCreated: msg`Webhook created`,
  webhookUpdated: msg`Webhook updated`,
  webhookDeleted: msg`Webhook deleted`,
  approvalRequested: msg`Approval requested`,
  approvalApproved: msg`Approval granted`,
  approvalDenied: msg`Approval denied`,
  approvalExpired: msg`Approval request expired`,
  approvalWithdrawn: msg`Approval request withdrawn`,
  ldapUnavailable: msg`LDAP unavailable`,
};

/** The translated label of an action kind (the kind itself when unknown). */
export function actionLabel(i18n: I18n, action: string): string {
  const descriptor = Object.hasOwn(LABELS, action) ? LABELS[action] : undefined;
  return descriptor === undefined ? action : i18n._(descriptor);
}

/** Who an entry is about: the user, else the admin, else the agent name ("" when none). */
export function entryActor(entry: AuditEntryDetail): string {
  return entry.UserName ?? entry.AdminName ?? entry.AgentName ?? "";
}

/** The entry's subject, when it has one: the ACL description, else the description. */
export function entrySubject(entry: AuditEntryDetail): string {
  return entry.AclDescription ?? entry.Description ?? "";
}

/**
 * The audit log writer (docs/reference.md admin-console §3 "Audit log entry"). Every state change writes its entry in
 * the same transaction as the change: if the audit write fails, the change fails.
 */
import { outsideTransaction, type Tx, type Db } from "../db/index.ts";
import { insertAuditEntry } from "../repositories/audit.ts";

/** Action kinds of the audit log (docs/reference.md admin-console §3). */
export const AuditAction = {
  userLoggedIn: "userLoggedIn",
  userLoginFailed: "userLoginFailed",
  userLoggedOut: "userLoggedOut",
  adminLoggedIn: "adminLoggedIn",
  adminLoginFailed: "adminLoginFailed",
  adminLoggedOut: "adminLoggedOut",
  sessionDeleted: "sessionDeleted",
  sessionExpired: "sessionExpired",
  userIpChanged: "userIpChanged",
  grantError: "grantError",
  grantExpired: "grantExpired",
  revokeError: "revokeError",
  clickedToGrant: "clickedToGrant",
  clickedToRevoke: "clickedToRevoke",
  aclCreated: "aclCreated",
  aclUpdated: "aclUpdated",
  aclDeleted: "aclDeleted",
  backendCreated: "backendCreated",
  backendUpdated: "backendUpdated",
  backendDeleted: "backendDeleted",
  groupCreated: "groupCreated",
  groupUpdated: "groupUpdated",
  groupDeleted: "groupDeleted",
  userCreated: "userCreated",
  userUpdated: "userUpdated",
  userDeleted: "userDeleted",
  adminCreated: "adminCreated",
  adminUpdated: "adminUpdated",
  adminDeleted: "adminDeleted",
  agentCreated: "agentCreated",
  agentUpdated: "agentUpdated",
  agentDeleted: "agentDeleted",
  agentEnrolled: "agentEnrolled",
  apiKeyCreated: "apiKeyCreated",
  apiKeyUpdated: "apiKeyUpdated",
  apiKeyDeleted: "apiKeyDeleted",
  knocCreated: "knocCreated",
  knocUpdated: "knocUpdated",
  knocDeleted: "knocDeleted",
  totpReset: "totpReset",
  /** A user or admin enrolled a TOTP secret (its first code verified). */
  totpEnrolled: "totpEnrolled",
  /** A TOTP code was verified at sign-in (the sign-in then completes). */
  totpVerified: "totpVerified",
  /** A wrong, malformed or replayed TOTP code was refused. */
  totpCodeFailed: "totpCodeFailed",
  /** An admin put off their 2FA enrolment for this sign-in (AllowAdminTotpDeferral). */
  totpEnrolmentDeferred: "totpEnrolmentDeferred",
  /** A user or admin enrolled a passkey (description: its name). */
  passkeyAdded: "passkeyAdded",
  /** A user or admin removed one of their passkeys (description: its name). */
  passkeyRemoved: "passkeyRemoved",
  /** A passkey completed a sign-in's second factor (description: its name). */
  passkeyUsed: "passkeyUsed",
  /** A passkey answer was refused (at enrolment or sign-in; errorMessage: why). */
  passkeyFailed: "passkeyFailed",
  adminAutoCreated: "adminAutoCreated",
  /** A read of a public allowlist was refused (wrong token, no or refused credentials, source not allowed). */
  allowlistAccessDenied: "allowlistAccessDenied",
  /** An API key was refused on an API-key route (unknown, expired, wrong scope or source). */
  apiKeyAccessDenied: "apiKeyAccessDenied",
  /** An admin cleared the entries older than 30 days (DELETE /admin/logs). */
  auditLogCleared: "auditLogCleared",
  settingsUpdated: "settingsUpdated",
  /** A licence key was installed (POST /admin/settings/license or `postern license install`), replacing any other. */
  licenseInstalled: "licenseInstalled",
  /** An LDAP sign-in failed closed: the directory could not be reached, timed out or failed TLS (errorMessage says why). */
  ldapUnavailable: "ldapUnavailable",
  /** An LDAP sign-in was refused for a reason other than a wrong password: no DN, no or unusable LDAPURL, another bind result. */
  ldapSignInRefused: "ldapSignInRefused",
  /** A user (userName) or admin (adminName) changed their own password (PUT/POST /password). */
  passwordChanged: "passwordChanged",
  /** A password change was refused (wrong current password, too weak, throttled); errorMessage says why. */
  passwordChangeFailed: "passwordChangeFailed",
  /** An admin registered an event webhook (POST /admin/webhooks); description names its URL. */
  webhookCreated: "webhookCreated",
  /** An admin changed an event webhook (PATCH/PUT /admin/webhooks/{id}). */
  webhookUpdated: "webhookUpdated",
  /** An admin deleted an event webhook (DELETE /admin/webhooks/{id}). */
  webhookDeleted: "webhookDeleted",
  /** A user asked for a Knoc that RequiresApproval (description: the request id and the user's reason). */
  approvalRequested: "approvalRequested",
  /** An approver approved a request (adminName, or the approving user in description); the grant applies. */
  approvalApproved: "approvalApproved",
  /** An approver denied a request (description: the reason the user is shown). */
  approvalDenied: "approvalDenied",
  /** A request was not answered within its Knoc's ApprovalTimeout. */
  approvalExpired: "approvalExpired",
  /** A pending request ended without a decision: the user withdrew it, their session ended, or the Knoc no longer requires approval. */
  approvalWithdrawn: "approvalWithdrawn",
} as const;
/** One action kind. */
export type AuditActionKind = (typeof AuditAction)[keyof typeof AuditAction];

/** The who/what/where of one entry; empty fields are stored as "". */
export interface AuditEntry {
  action: AuditActionKind;
  at: number;
  userName?: string;
  adminName?: string;
  agentName?: string;
  ipAddress?: string;
  errorMessage?: string;
  aclDescription?: string;
  description?: string;
}

/**
 * Called after every audit entry is written (while the writer's transaction is still open, but outside its
 * context: `outsideTransaction`), with nothing but the fact:
 * the event webhook dispatcher (services/webhooks/dispatcher.ts) wakes on it and reads the committed entries
 * itself, so a rolled-back change raises no event. Listeners must not throw or block.
 */
export const auditWritten = new Set<() => void>();

/** Writes one audit entry inside the caller's transaction (or directly on `db`). */
export async function writeAudit(tx: Tx | Db, entry: AuditEntry): Promise<void> {
  await insertAuditEntry(tx, {
    action: entry.action,
    at: entry.at,
    userName: entry.userName ?? "",
    adminName: entry.adminName ?? "",
    agentName: entry.agentName ?? "",
    ipAddress: entry.ipAddress ?? "",
    errorMessage: entry.errorMessage ?? "",
    aclDescription: entry.aclDescription ?? "",
    description: entry.description ?? "",
  });
  // Listeners start background work: not inside the writer's transaction.
  for (const listener of auditWritten) outsideTransaction(listener);
}

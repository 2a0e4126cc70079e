/**
 * Translations of the server's error keys and messages (docs/reference.md user-portal §8). `Err` values are either
 * `err.*` translation keys or the spec's English server messages; both map to a catalog message here.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { ClientMessage } from "@postern/shared";
import type { ErrValue, GrantErrorKey } from "@postern/shared";

type ClientMessageValue = (typeof ClientMessage)[keyof typeof ClientMessage];
type GrantErrorValue = (typeof GrantErrorKey)[keyof typeof GrantErrorKey];
import { composeErrorText } from "../lib/error-text.ts";
import { ApiError } from "./client.ts";

/**
 * The translation of every `Err` value of the catalogue (typed against it: an entry without a
 * translation fails the type check) and of the client's own messages that share the error display.
 */
const KNOWN: Record<ErrValue | ClientMessageValue | GrantErrorValue, MessageDescriptor> = {
  "Bad request": msg`Bad request`,
  "Failed decoding request body": msg`Failed decoding request body`,
  "The maximum grant duration for the ACL is invalid": msg`The maximum grant duration for the ACL is invalid`,
  "Mismatching IDs": msg`Mismatching IDs`,
  "Cannot change backend type": msg`Cannot change backend type`,
  "Cannot change username": msg`Cannot change username`,
  "Cannot change group type": msg`Cannot change group type`,
  "You must specify a username": msg`You must specify a username`,
  "Create an agent before creating a backend": msg`Create an agent before creating a backend`,
  "You must create an allowlist before you can create an API key": msg`You must create an allowlist before you can create an API key`,
  "Only the allowed-from list of an API key can be changed": msg`Only the allowed-from list of an API key can be changed`,
  "Invalid ACL name": msg`Invalid ACL name`,
  "Invalid IP address": msg`Invalid IP address`,
  "URL must be http or https": msg`URL must be http or https`,
  "Command must be the full path of an executable or an http or https webhook URL": msg`Command must be the full path of an executable or an http or https webhook URL`,
  "Changing the agent requires re-entering the backend's secrets": msg`Changing the agent requires re-entering the backend's secrets`,
  "Changing the URI or hostname requires re-entering credentials": msg`Changing the URI or hostname requires re-entering credentials`,
  "Password is too weak": msg`Password is too weak`,
  "err.invalidLicenseKey": msg`The licence key is not valid`,
  "err.invalidLicenseSignature": msg`The licence key's signature is not valid`,
  "err.licenseExpired": msg`The licence has expired`,
  "err.invalidCidr": msg`Invalid CIDR`,
  "err.invalidApprovalTimeout": msg`The approval time must be between 5 seconds and 7 days`,
  "err.unknownApproverGroup": msg`An approver group does not exist`,
  "err.invalidApprovalMinutes": msg`The grant length must be a whole number of minutes from 1 to 40320`,
  "err.denyReasonRequired": msg`Give a reason for the denial`,
  "err.approvalReasonTooLong": msg`The reason is too long (at most 500 characters)`,
  "err.cannotApproveOwnRequest": msg`You cannot decide your own request`,
  "err.approvalNotPending": msg`This request is no longer waiting for a decision`,
  "err.passwordsDontMatch": msg`Passwords don't match`,
  "err.allowlistAccessIpRestrictionFormRequired": msg`At least one IP range must be present`,
  "err.repeatedEnvVarNames": msg`Variable names must be unique`,
  "err.emptyEnvVarName": msg`Variable names cannot be empty`,
  "err.invalidEnvVarName": msg`Invalid variable name`,
  "err.backendTypeNoAgents": msg`No agent can run this backend type`,
  "err.agentBackendTypeNotSupported": msg`The agent's version does not support this backend type`,
  "err.agentNeverConnected": msg`The agent has never connected`,
  "err.ipsetNoCommand": msg`The agent has no ipset command`,
  "err.ipsetNoSudo": msg`The agent cannot run ipset with the needed privileges`,
  "err.agentIncapable": msg`The agent cannot run this backend type`,
  "err.invalidAgentId": msg`Invalid agent`,
  "err.invalidFortiosConfig": msg`Invalid FortiOS configuration`,
  "err.noBackendSelected": msg`No backend selected`,
  "err.createBackendBeforeACL": msg`Create a backend before creating an ACL`,
  "err.aclIdRequired": msg`ACL ID is required`,
  "err.aclIdMustBeNumber": msg`ACL ID must be a number`,
  "err.aclNameRequired": msg`ACL name is required`,
  "err.invalidAclName": msg`Invalid ACL name`,
  "err.invalidKnocproxyAclName": msg`Only letters, numbers, and underscores are allowed.`,
  "err.ipsetNameRequired": msg`At least one ipset name is required`,
  "err.invalidSession": msg`Invalid session`,
  "Invalid credentials": msg`Invalid credentials`,
  "Invalid code": msg`Invalid code`,
  "Passkey not accepted": msg`Passkey not accepted`,
  "Passkeys are not available for this account": msg`Passkeys are not available for this account`,
  "This passkey is already registered": msg`This passkey is already registered`,
  "err.unauthorised": msg`Unauthorised`,
  Unauthorised: msg`Unauthorised`,
  "err.totpVerificationRequired": msg`Two-factor verification required`,
  "err.totpEnrolmentRequired": msg`Two-factor enrolment required`,
  accountDisabled: msg`Your account is disabled contact an admin`,
  "Login not permitted": msg`Login not permitted`,
  "err.unlicensedDescription": msg`A valid license is required`,
  "err.youDoNotHaveALicense": msg`Unlicensed`,
  "err.userLimitReached": msg`licensed user limit reached`,
  cannotResetOwn2fa: msg`You cannot reset your own two-factor authentication`,
  cannotDisableOwn2fa: msg`You cannot disable your own two-factor authentication`,
  "You cannot delete your own account": msg`You cannot delete your own account`,
  "You cannot disable your own login": msg`You cannot disable your own login`,
  "2FA enrolment cannot be deferred": msg`2FA enrolment cannot be deferred`,
  "Cannot change password": msg`Cannot change password`,
  "SAML not configured": msg`SAML not configured`,
  "Authentication failed": msg`Authentication failed`,
  "Not found": msg`Not found`,
  "An agent with that name already exists": msg`An agent with that name already exists`,
  "A group with that name already exists": msg`A group with that name already exists`,
  "An API key with that name already exists": msg`An API key with that name already exists`,
  "A backend with that name already exists": msg`A backend with that name already exists`,
  "A user with that username already exists": msg`A user with that username already exists`,
  "An admin with that username already exists": msg`An admin with that username already exists`,
  "Please detach all backends from this agent before deleting it": msg`Please detach all backends from this agent before deleting it`,
  "Delete the ACLs of this backend before deleting it": msg`Delete the ACLs of this backend before deleting it`,
  "Already verified 2FA": msg`Already verified 2FA`,
  "User already verified": msg`User already verified`,
  "Too many requests. Please try again in...": msg`Too many requests. Please try again in...`,
  "Internal server error": msg`Internal server error`,
  "err.failedToRefreshLicenseStatus": msg`Failed to refresh license status`,
  "Your session has expired. Log in again for renewed access.": msg`Your session has expired. Log in again for renewed access.`,
  "err.licenseExpiresSoon": msg`license expires soon`,
  "err.serverOutdated": msg`A newer version of Postern is available`,
  "URL must be ldap or ldaps": msg`URL must be ldap or ldaps`,
  "URL must be udp, tcp, or tls": msg`URL must be udp, tcp, or tls`,
  "SAML users cannot be edited: the identity provider manages them": msg`SAML users cannot be edited: the identity provider manages them`,
  "err.machineLimitReached": msg`licensed agent limit reached`,
  "err.grantFailed": msg`Access could not be granted. Please contact your administrator.`,
  "err.revokeFailed": msg`Access could not be removed. Please contact your administrator.`,
  "err.addressNotAllowed": msg`Access is not allowed from your current address. Please contact your administrator if you need it from here.`,
};

/** The `Err` value used for the Login page message after the session countdown ran out (docs/reference.md user-portal §4). */
export const SESSION_EXPIRED = ClientMessage.sessionExpired;

/** The translated text of a known server key or message, or undefined when the key is unknown. */
export function translateServerMessage(i18n: I18n, key: string): string | undefined {
  const descriptor = Object.hasOwn(KNOWN, key) ? KNOWN[key as keyof typeof KNOWN] : undefined;
  return descriptor === undefined ? undefined : i18n._(descriptor);
}

/**
 * Display text of any failure (docs/reference.md user-portal §8): an ApiError's `Err` translated with its `Extra`
 * after a colon, else the error's message, else "An internal server error occurred". `translate`
 * looks up a key (default: the catalogue's translations; the admin console adds its own wording).
 */
export function errorText(
  i18n: I18n,
  error: unknown,
  translate: (key: string) => string | undefined = (key) => translateServerMessage(i18n, key),
): string {
  const internal = i18n._(msg`An internal server error occurred`);
  if (error instanceof ApiError)
    return composeErrorText(error.body, error.status === 0 ? error.message : undefined, translate, internal);
  if (error instanceof Error) return composeErrorText(undefined, error.message, translate, internal);
  return internal;
}

/**
 * The sentence shown for a status entry's Error (err.grantFailed, err.revokeFailed,
 * err.addressNotAllowed from the server), translated; an unknown value is shown as it is.
 */
export function grantErrorText(i18n: I18n, error: string): string {
  return translateServerMessage(i18n, error) ?? error;
}

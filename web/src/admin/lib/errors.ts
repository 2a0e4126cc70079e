/**
 * Display text of the admin console's errors (admin-console §8): `Err` translated (the admin keys
 * here, then the portal's catalogue), `Extra` after a colon (translated when it starts with
 * `err.`), else the message text, else "An internal server error occurred". The keys are read
 * from @postern/shared, never copied.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { AdminErr, ApiKeyMessage, ErrKey, OtpErr, ServerMessage } from "@postern/shared";
import { ApiError } from "../../ui/api/client.ts";
import { translateServerMessage } from "../../ui/api/error-messages.ts";
import { composeErrorText } from "../../ui/lib/error-text.ts";

const ADMIN_MESSAGES: Record<string, MessageDescriptor> = {
  [ErrKey.unlicensedDescription]: msg`This installation has no license. Knocs cannot be created or updated until a license is installed.`,
  [ErrKey.youDoNotHaveALicense]: msg`You do not have a license`,
  [ErrKey.userLimitReached]: msg`The licensed user limit has been reached: no more users can be created`,
  [ErrKey.invalidCidr]: msg`Invalid CIDR`,
  [ErrKey.agentBackendTypeNotSupported]: msg`The agent does not support this backend type`,
  [ErrKey.agentNeverConnected]: msg`The agent has never connected`,
  [ErrKey.agentIncapable]: msg`Agent is not capable of granting the Knoc type selected`,
  [ErrKey.invalidAgentId]: msg`Invalid agent`,
  [ErrKey.backendTypeNoAgents]: msg`No agent supports this backend type`,
  [ErrKey.createBackendBeforeACL]: msg`Create a backend before creating an ACL`,
  [ErrKey.noBackendSelected]: msg`No backend selected`,
  [ErrKey.cannotResetOwn2fa]: msg`You cannot reset your own two-factor authentication`,
  [ErrKey.cannotDisableOwn2fa]: msg`You cannot disable your own two-factor authentication`,
  [ErrKey.failedToRefreshLicenseStatus]: msg`Failed to refresh license status`,
  [ServerMessage.agentNameExists]: msg`An agent with that name already exists`,
  [ServerMessage.groupNameExists]: msg`A group with that name already exists`,
  [ServerMessage.detachBackendsFirst]: msg`Please detach all backends from this agent before deleting it`,
  [ServerMessage.cannotChangeBackendType]: msg`Cannot change backend type`,
  [ServerMessage.cannotChangeUsername]: msg`Cannot change username`,
  [ServerMessage.mustSpecifyUsername]: msg`You must specify a username`,
  [ServerMessage.createBackendBeforeAcl]: msg`Create a backend before creating an ACL`,
  [ServerMessage.createAgentBeforeBackend]: msg`Create an agent before creating a backend`,
  [ServerMessage.mismatchingIds]: msg`Mismatching IDs`,
  [ServerMessage.unlicensed]: msg`Unlicensed`,
  [OtpErr.deferralNotAllowed]: msg`2FA enrolment cannot be deferred`,
  [AdminErr.cannotDeleteOwnAccount]: msg`You cannot delete your own account`,
  [AdminErr.cannotDisableOwnLogin]: msg`You cannot disable your own login`,
  [AdminErr.adminNameExists]: msg`An admin with that username already exists`,
  [ApiKeyMessage.nameExists]: msg`An API key with that name already exists`,
  [ApiKeyMessage.createAllowlistFirst]: msg`You must create an allowlist before you can create an API key`,
  [ApiKeyMessage.onlyAllowedFromEditable]: msg`Only the allowed-from list of an API key can be changed`,
};

/** The translated text of a known server key or message, or undefined. */
export function translateAdminMessage(i18n: I18n, key: string): string | undefined {
  const descriptor = Object.hasOwn(ADMIN_MESSAGES, key) ? ADMIN_MESSAGES[key] : undefined;
  return descriptor === undefined ? translateServerMessage(i18n, key) : i18n._(descriptor);
}

/** Display text of any failure of an admin call. */
export function adminErrorText(i18n: I18n, error: unknown): string {
  const internal = i18n._(msg`An internal server error occurred`);
  const translate = (key: string): string | undefined => translateAdminMessage(i18n, key);
  if (error instanceof ApiError)
    return composeErrorText(error.body, error.status === 0 ? error.message : undefined, translate, internal);
  if (error instanceof Error) return composeErrorText(undefined, error.message, translate, internal);
  return internal;
}

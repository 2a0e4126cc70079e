/**
 * Display text of the admin console's errors (docs/reference.md admin-console §8): `Err` translated (the admin keys
 * here, then the portal's catalogue), `Extra` after a colon (translated when it starts with
 * `err.`), else the message text, else "An internal server error occurred". The keys are read
 * from @postern/shared, never copied.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { Errors } from "@postern/shared";
import type { ErrValue } from "@postern/shared";
import { errorText, translateServerMessage } from "../../ui/api/error-messages.ts";

/** Where the console words an error differently from the portal (the rest: the catalogue's translations). */
const ADMIN_MESSAGES: Partial<Record<ErrValue, MessageDescriptor>> = {
  [Errors.unlicensedDescription.err]:
    msg`This installation has no license. Knocs cannot be created or updated until a license is installed.`,
  [Errors.youDoNotHaveALicense.err]: msg`You do not have a license`,
  [Errors.userLimitReached.err]: msg`The licensed user limit has been reached: no more users can be created`,
  [Errors.agentBackendTypeNotSupported.err]: msg`The agent does not support this backend type`,
  [Errors.agentIncapable.err]: msg`Agent is not capable of granting the Knoc type selected`,
  [Errors.backendTypeNoAgents.err]: msg`No agent supports this backend type`,
};

/** The translated text of a known server key or message, or undefined. */
export function translateAdminMessage(i18n: I18n, key: string): string | undefined {
  const descriptor = Object.hasOwn(ADMIN_MESSAGES, key) ? ADMIN_MESSAGES[key as ErrValue] : undefined;
  return descriptor === undefined ? translateServerMessage(i18n, key) : i18n._(descriptor);
}

/** Display text of any failure of an admin call: `errorText` with the console's wording. */
export function adminErrorText(i18n: I18n, error: unknown): string {
  return errorText(i18n, error, (key) => translateAdminMessage(i18n, key));
}

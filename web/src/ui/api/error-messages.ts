/**
 * Translations of the server's error keys and messages (user-portal §8). `Err` values are either
 * `err.*` translation keys or the spec's English server messages; both map to a catalog message here.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { composeErrorText } from "../lib/error-text.ts";
import { ApiError } from "./client.ts";

const KNOWN: Record<string, MessageDescriptor> = {
  "err.invalidSession": msg`Invalid session`,
  "err.totpVerificationRequired": msg`Two-factor verification required`,
  "err.totpEnrolmentRequired": msg`Two-factor enrolment required`,
  "err.unauthorised": msg`Unauthorised`,
  "err.unlicensedDescription": msg`A valid license is required`,
  "err.youDoNotHaveALicense": msg`Unlicensed`,
  "err.userLimitReached": msg`licensed user limit reached`,
  "err.passwordsDontMatch": msg`Passwords don't match`,
  accountDisabled: msg`Your account is disabled contact an admin`,
  "Invalid credentials": msg`Invalid credentials`,
  "Bad request": msg`Bad request`,
  "Too many requests. Please try again in...": msg`Too many requests. Please try again in...`,
  "Failed setting cookie": msg`Failed setting cookie`,
  "Failed to create session": msg`Failed to create session`,
  "Already verified 2FA": msg`Already verified 2FA`,
  "Failed generating token": msg`Failed generating token`,
  "Login not permitted": msg`Login not permitted`,
  "Failed saving secret key": msg`Failed saving secret key`,
  "User already verified": msg`User already verified`,
  "Invalid code": msg`Invalid code`,
  "Failed verifying session": msg`Failed verifying session`,
  "Invalid session": msg`Invalid session`,
  "Internal server error": msg`Internal server error`,
  "Failed logging out": msg`Failed logging out`,
  "Failed decoding request body": msg`Failed decoding request body`,
  "Authentication failed": msg`Authentication failed`,
  Unauthorised: msg`Unauthorised`,
  "SAML not configured": msg`SAML not configured`,
  "Your session has expired. Log in again for renewed access.": msg`Your session has expired. Log in again for renewed access.`,
  Unlicensed: msg`Unlicensed`,
  "A valid license is required": msg`A valid license is required`,
  "user limit exceeded by 30%": msg`user limit exceeded by 30%`,
  "licensed user limit reached": msg`licensed user limit reached`,
  "license expires soon": msg`license expires soon`,
  "Not found": msg`Not found`,
  "Cannot change password": msg`Cannot change password`,
  "Password is too weak": msg`Password is too weak`,
  "Must be between 8 and 64 characters": msg`Must be between 8 and 64 characters`,
};

/** The `Err` value used for the Login page message after the session countdown ran out (user-portal §4). */
export const SESSION_EXPIRED = "Your session has expired. Log in again for renewed access.";

/** The translated text of a known server key or message, or undefined when the key is unknown. */
export function translateServerMessage(i18n: I18n, key: string): string | undefined {
  const descriptor = Object.hasOwn(KNOWN, key) ? KNOWN[key] : undefined;
  return descriptor === undefined ? undefined : i18n._(descriptor);
}

/**
 * Display text of any failure (user-portal §8): an ApiError's `Err` translated with its `Extra`
 * after a colon, else the error's message, else "An internal server error occurred".
 */
export function errorText(i18n: I18n, error: unknown): string {
  const internal = i18n._(msg`An internal server error occurred`);
  const translate = (key: string): string | undefined => translateServerMessage(i18n, key);
  if (error instanceof ApiError)
    return composeErrorText(error.body, error.status === 0 ? error.message : undefined, translate, internal);
  if (error instanceof Error) return composeErrorText(undefined, error.message, translate, internal);
  return internal;
}

/**
 * Text of a form field's error in either app (docs/reference.md admin-console §5): a message that is a server key
 * or spec message (the shared zod schemas carry them, e.g. "Must be between 8 and 64 characters") is translated as
 * the server's would be (`translate`, by default the shared catalogue's translateServerMessage); an empty required
 * field (or a shared rule's "required" detail) reads "Required"; anything else is zod's text.
 */
import type { I18n } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { translateServerMessage } from "../api/error-messages.ts";

/** A react-hook-form field error, as far as its text goes (`FieldError` or a nested field's merge). */
export interface FieldErrorLike {
  type?: unknown;
  message?: unknown;
}

/**
 * The display text of a react-hook-form field error, or undefined when the field is valid. `translate` maps a
 * server key or message to its text (undefined when unknown).
 */
export function fieldErrorText(
  i18n: I18n,
  error: FieldErrorLike | undefined,
  translate: (key: string) => string | undefined = (key) => translateServerMessage(i18n, key),
): string | undefined {
  if (error === undefined) return undefined;
  const message = typeof error.message === "string" ? error.message : "";
  const known = message === "" ? undefined : translate(message);
  if (known !== undefined) return known;
  if ((error.type === "too_small" && /\b1\b/.test(message)) || message === "required") return i18n._(msg`Required`);
  return message === "" ? i18n._(msg`Invalid value`) : message;
}

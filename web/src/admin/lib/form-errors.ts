/**
 * Text of a form field's error in the admin console (docs/reference.md admin-console §5): the kit's fieldErrorText
 * with the console's wording of server keys (translateAdminMessage).
 */
import type { I18n } from "@lingui/core";
import { fieldErrorText as kitFieldErrorText } from "../../ui/kit/field-error.ts";
import type { FieldErrorLike } from "../../ui/kit/field-error.ts";
import { translateAdminMessage } from "./errors.ts";

export type { FieldErrorLike } from "../../ui/kit/field-error.ts";

/** The display text of a react-hook-form field error, or undefined when the field is valid. */
export function fieldErrorText(i18n: I18n, error: FieldErrorLike | undefined): string | undefined {
  return kitFieldErrorText(i18n, error, (key) => translateAdminMessage(i18n, key));
}

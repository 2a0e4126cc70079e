/**
 * The password and its confirmation of a local user or admin (docs/reference.md admin-console §5 "User", "Admin"):
 * required when creating, optional when editing (empty keeps the password, sent as absent), the
 * confirmation checked against the password as the server checks it (err.passwordsDontMatch).
 */
import { useLingui } from "@lingui/react/macro";
import type { FieldError, FieldValues, Path, UseFormReturn } from "react-hook-form";
import { Errors } from "@postern/shared";
import type { z } from "zod";
import { FormField } from "../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../lib/form-errors.ts";

/** The fields a form with a password carries. */
export interface PasswordValues {
  PlainPassword?: string | undefined;
  ConfirmPassword?: string | undefined;
}

/** `schema` plus the confirmation matching the password, reported on ConfirmPassword. */
export function withPasswordConfirmation<S extends z.ZodType<PasswordValues>>(schema: S) {
  return schema.refine((v) => v.PlainPassword === undefined || v.ConfirmPassword === v.PlainPassword, {
    message: Errors.passwordsDontMatch.err,
    path: ["ConfirmPassword"],
  });
}

const blankAsUndefined = (v: unknown) => (v === "" ? undefined : v);

/** The two password fields of `form`; `editing` makes them optional with a hint. */
export function PasswordFields<F extends FieldValues & { PlainPassword?: unknown; ConfirmPassword?: unknown }, O>({
  form,
  editing,
}: {
  form: UseFormReturn<F, unknown, O>;
  editing: boolean;
}) {
  const { t, i18n } = useLingui();
  const errors = form.formState.errors as Partial<Record<keyof PasswordValues, FieldError>>;
  return (
    <>
      <FormField
        label={t`Password`}
        type="password"
        required={!editing}
        hint={editing ? t`Leave empty to keep the password.` : undefined}
        error={fieldErrorText(i18n, errors.PlainPassword)}
        {...form.register("PlainPassword" as Path<F>, { setValueAs: blankAsUndefined })}
      />
      <FormField
        label={t`Confirm password`}
        type="password"
        required={!editing}
        error={fieldErrorText(i18n, errors.ConfirmPassword)}
        {...form.register("ConfirmPassword" as Path<F>, { setValueAs: blankAsUndefined })}
      />
    </>
  );
}

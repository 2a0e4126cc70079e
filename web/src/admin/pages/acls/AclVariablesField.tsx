/**
 * The values a script ACL gives the variables its backend declares (docs/reference.md admin-console §3 "EnvVars as
 * map name to Value (with encrypted flag)", §5 "Value required unless an encrypted value exists"):
 * one input per variable; a sensitive one is a password input, and once its sealed value is stored it
 * shows RECORDED and keeps it when left empty (sensitive values can never be revealed again).
 */
import type { FieldErrors, UseFormRegister } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { FormField } from "../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../lib/form-errors.ts";
import type { AclFormValues } from "./acl-form.ts";

/** Props: the variables (name → whether sensitive), the names whose sealed value is stored, the form's register and errors. */
export interface AclVariablesFieldProps {
  variables: readonly { name: string; sensitive: boolean }[];
  sealed: readonly string[];
  register: UseFormRegister<AclFormValues>;
  errors: FieldErrors<AclFormValues>;
}

/** The editor of `Config.script.EnvVars`. */
export function AclVariablesField({ variables, sealed, register, errors }: AclVariablesFieldProps) {
  const { t, i18n } = useLingui();
  const valueErrors = (errors.Config as { script?: { EnvVars?: Record<string, { Value?: { message?: string } }> } })
    ?.script?.EnvVars;
  return (
    <fieldset className="sm:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
        <Trans>Variable values</Trans>
      </legend>
      {variables.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Trans>The backend declares no variables.</Trans>
        </p>
      ) : null}
      <div className="grid gap-3 sm:grid-cols-2">
        {variables.map(({ name, sensitive }) => {
          const recorded = sealed.includes(name);
          return (
            <FormField
              key={name}
              label={name}
              type={sensitive || recorded ? "password" : "text"}
              placeholder={recorded ? t`RECORDED` : undefined}
              hint={recorded ? t`Leave empty to keep the recorded value.` : undefined}
              error={fieldErrorText(i18n, valueErrors?.[name]?.Value)}
              {...register(`Config.script.EnvVars.${name}.Value` as never)}
            />
          );
        })}
      </div>
    </fieldset>
  );
}

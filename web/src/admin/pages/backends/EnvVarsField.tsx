/**
 * The environment variables a script backend declares (docs/reference.md admin-console §3 "EnvVars (Name, Sensitive)"):
 * one row per variable with its name and whether its value is sensitive (sealed to the agent, never
 * shown again), rows added and removed in place. The values are set per Knoc, not here.
 */
import { useFieldArray } from "react-hook-form";
import type { Control, FieldErrors, UseFormRegister } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../lib/form-errors.ts";
import type { BackendFormValues } from "./backend-form.ts";

/** The variables editor of `Config.script.EnvVars`. */
export function EnvVarsField({
  control,
  register,
  errors,
}: {
  control: Control<BackendFormValues>;
  register: UseFormRegister<BackendFormValues>;
  errors: FieldErrors<BackendFormValues>;
}) {
  const { t, i18n } = useLingui();
  const rows = useFieldArray({ control, name: "Config.script.EnvVars" as never });
  const rowErrors = (errors.Config as { script?: { EnvVars?: { Name?: { message?: string } }[] } } | undefined)?.script
    ?.EnvVars;
  return (
    <fieldset className="sm:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
        <Trans>Environment variables</Trans>
      </legend>
      {rows.fields.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Trans>No variables. Knocs on this backend set the values of the variables declared here.</Trans>
        </p>
      ) : null}
      <div className="space-y-2">
        {rows.fields.map((row, index) => (
          <div key={row.id} className="flex items-end gap-3">
            <div className="flex-1">
              <FormField
                label={t`Variable ${index + 1}`}
                error={fieldErrorText(i18n, rowErrors?.[index]?.Name)}
                {...register(`Config.script.EnvVars.${index}.Name` as never)}
              />
            </div>
            <div className="pb-2">
              <CheckField label={t`Sensitive`} {...register(`Config.script.EnvVars.${index}.Sensitive` as never)} />
            </div>
            <Button variant="quiet" onClick={() => rows.remove(index)}>
              <Trans>Remove</Trans>
            </Button>
          </div>
        ))}
      </div>
      <Button className="mt-2" onClick={() => rows.append({ Name: "", Sensitive: false } as never)}>
        <Trans>Add variable</Trans>
      </Button>
    </fieldset>
  );
}

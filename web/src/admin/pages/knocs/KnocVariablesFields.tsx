/**
 * The Variables tab of Update Knoc, for script Knocs only (docs/reference.md admin-console §2 "Update Knoc", §3
 * "Sensitive environment variables ... can never be revealed again; leaving the value blank keeps
 * the stored one", §5 "Environment variables in wizard and update"): one row per variable with its
 * name, value and whether it is sensitive; a stored sensitive value shows RECORDED and may stay
 * blank. Rows blank in both name and value are dropped on save.
 */
import { useFieldArray } from "react-hook-form";
import type { UseFormReturn } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../lib/form-errors.ts";
import type { FieldErrorLike } from "../../lib/form-errors.ts";
import type { UpdateKnocOutput, UpdateKnocValues } from "./update-form.ts";

type Form = UseFormReturn<UpdateKnocValues, unknown, UpdateKnocOutput>;

/** The Variables tab. */
export function KnocVariablesFields({ form }: { form: Form }) {
  const { t, i18n } = useLingui();
  const rows = useFieldArray({ control: form.control, name: "envVars" });
  const errors = form.formState.errors.envVars as
    ({ Name?: FieldErrorLike; Value?: FieldErrorLike } | undefined)[] | undefined;
  const values = form.watch("envVars");
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        <Trans>
          The script gets these variables in its environment. A sensitive value is sealed for the agent and cannot be
          shown again; leave it empty to keep it.
        </Trans>
      </p>
      {rows.fields.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Trans>No variables.</Trans>
        </p>
      ) : null}
      {rows.fields.map((row, index) => {
        const recorded = values[index]?.Recorded === true;
        return (
          <div key={row.id} className="grid items-end gap-3 sm:grid-cols-[1fr_1fr_auto_auto]">
            <FormField
              label={t`Name of variable ${index + 1}`}
              error={fieldErrorText(i18n, errors?.[index]?.Name)}
              {...form.register(`envVars.${index}.Name`)}
            />
            <FormField
              label={t`Value of variable ${index + 1}`}
              type={values[index]?.Sensitive ? "password" : "text"}
              placeholder={recorded ? t`RECORDED` : undefined}
              error={fieldErrorText(i18n, errors?.[index]?.Value)}
              {...form.register(`envVars.${index}.Value`)}
            />
            <div className="pb-2">
              <CheckField label={t`Sensitive`} disabled={recorded} {...form.register(`envVars.${index}.Sensitive`)} />
            </div>
            <Button variant="quiet" onClick={() => rows.remove(index)}>
              <Trans>Remove</Trans>
            </Button>
          </div>
        );
      })}
      <Button onClick={() => rows.append({ Name: "", Value: "", Sensitive: false, Recorded: false })}>
        <Trans>Add variable</Trans>
      </Button>
    </div>
  );
}

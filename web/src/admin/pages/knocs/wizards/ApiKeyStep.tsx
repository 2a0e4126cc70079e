/**
 * The Application wizard's API key step 3.1 (docs/reference.md admin-console §2 "API key step has three choices", §5
 * "Application wizard: existing key must be selected; with none, at least one IP range"): a new key
 * (name and allowed-from prefix and note, both required here); an existing key chosen in a table;
 * or none — the security warning and the "Allowlist access IP restriction" list of prefix and note.
 */
import { useQuery } from "@tanstack/react-query";
import { useFieldArray, get } from "react-hook-form";
import type { UseFormReturn } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import type { ApiKey } from "@postern/shared";
import { Button } from "../../../../ui/kit/Button.tsx";
import { DataTable } from "../../../../ui/kit/DataTable.tsx";
import { FormField } from "../../../../ui/kit/FormField.tsx";
import { textColumn } from "../../../lib/columns.tsx";
import { fieldErrorText } from "../../../lib/form-errors.ts";
import { apiKeyQueries } from "../../../queries/api-keys.ts";
import { useStepForm, watchPath } from "./use-step-form.ts";
import { ApiKeyStepSchema } from "./wizard-schemas.ts";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

type Option = "new" | "existing" | "none";

/** A repeating list of prefix and note at `name` ("apiKeyForm.AllowedFrom" or the restriction's). */
function PrefixList({ form, name, legend }: { form: UseFormReturn<never>; name: string; legend: string }) {
  const { t, i18n } = useLingui();
  const rows = useFieldArray({ control: form.control, name: name as never });
  const errors = form.formState.errors;
  const err = (path: string): string | undefined => fieldErrorText(i18n, get(errors, path));
  const listError = err(`${name}.root`) ?? (rows.fields.length === 0 ? err(name) : undefined);
  return (
    <fieldset>
      <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">{legend}</legend>
      <div className="space-y-2">
        {rows.fields.map((row, index) => (
          <div key={row.id} className="grid items-end gap-3 sm:grid-cols-[1fr_1fr_auto]">
            <FormField
              label={t`Prefix ${index + 1}`}
              placeholder="203.0.113.0/24"
              error={err(`${name}.${index}.Prefix`)}
              {...form.register(`${name}.${index}.Prefix` as never)}
            />
            <FormField
              label={t`Note ${index + 1}`}
              error={err(`${name}.${index}.Note`)}
              {...form.register(`${name}.${index}.Note` as never)}
            />
            <Button variant="quiet" onClick={() => rows.remove(index)}>
              <Trans>Remove</Trans>
            </Button>
          </div>
        ))}
      </div>
      {listError ? <p className="mt-1 text-sm text-red-700 dark:text-red-300">{listError}</p> : null}
      <Button className="mt-2" onClick={() => rows.append({ Prefix: "", Note: "" } as never)}>
        <Trans>Add prefix</Trans>
      </Button>
    </fieldset>
  );
}

/** The API key step of `draft`. */
export function ApiKeyStep({ nav, draft }: { nav: StepNav; draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const form = useStepForm("apiKey", ApiKeyStepSchema, draft);
  const keys = useQuery(apiKeyQueries.list());
  const option = watchPath<Option>(form, "apiKeyOption");
  const existing = watchPath<string>(form, "existingApiKey");
  const errors = form.formState.errors;
  const submit = form.handleSubmit(() => nav.next());
  const anyForm = form as unknown as UseFormReturn<never>;
  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="space-y-4">
      <fieldset>
        <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
          <Trans>How the device reads the allowlist</Trans>
        </legend>
        <div className="space-y-1">
          {(
            [
              ["new", t`Create a new API key`],
              ["existing", t`Use an existing API key`],
              ["none", t`No API key`],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm text-slate-800 dark:text-slate-200">
              <input
                type="radio"
                value={value}
                className="size-4 accent-accent-700"
                {...form.register("apiKeyOption" as never)}
              />
              {label}
            </label>
          ))}
        </div>
      </fieldset>

      {option === "new" ? (
        <>
          <div className="max-w-sm">
            <FormField
              label={t`API key name`}
              required
              error={fieldErrorText(i18n, get(errors, "apiKeyForm.Name"))}
              {...form.register("apiKeyForm.Name" as never)}
            />
          </div>
          <PrefixList form={anyForm} name="apiKeyForm.AllowedFrom" legend={t`Allowed from`} />
        </>
      ) : null}

      {option === "existing" ? (
        <>
          <DataTable<ApiKey>
            label={t`API keys`}
            rows={keys.data}
            rowKey={(k) => k.ID}
            defaultSort={{ id: "name" }}
            empty={<Trans>No API keys yet.</Trans>}
            columns={[
              {
                id: "choose",
                header: t`Choose`,
                srOnlyHeader: true,
                cell: (k) => (
                  <input
                    type="radio"
                    name="existing-key"
                    className="size-4 accent-accent-700"
                    aria-label={t`Choose ${k.Name}`}
                    checked={existing === k.ID}
                    onChange={() => form.setValue("existingApiKey" as never, k.ID as never, { shouldValidate: true })}
                  />
                ),
              },
              textColumn("name", t`Name`, (k) => k.Name),
              textColumn("allowedFrom", t`Allowed from`, (k) => k.AllowedFrom.map((a) => a.Prefix).join(", ")),
            ]}
          />
          {get(errors, "existingApiKey") ? (
            <p className="text-sm text-red-700 dark:text-red-300">
              <Trans>Choose an API key.</Trans>
            </p>
          ) : null}
        </>
      ) : null}

      {option === "none" ? (
        <>
          <div
            role="alert"
            className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200 dark:bg-amber-950 dark:text-amber-100 dark:ring-amber-800"
          >
            <Trans>
              No username or password protects this allowlist, and the IP addresses of your end users may be disclosed
              to anyone who can reach it. Its address contains random characters, but that must not be relied on. This
              option exists because some vendors only support public IP lists.
            </Trans>
          </div>
          <PrefixList
            form={anyForm}
            name="allowlistAccessIpRestrictionForm.AllowedFrom"
            legend={t`Allowlist access IP restriction`}
          />
        </>
      ) : null}
      <StepButtons onBack={nav.back} nextDisabled={option === "existing" && existing === ""} />
    </form>
  );
}

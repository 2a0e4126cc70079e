/**
 * The Script wizard's environment variables step (docs/reference.md admin-console §2 "Script wizard" step 4, §3
 * "Sensitive environment variables are encrypted with an agent-held key and can never be revealed
 * again", §5 "Environment variables in wizard and update"): rows of name, value and Sensitive; a
 * Sensitive value is typed in a password field and, once created, never shown again. The reserved
 * names (knoc_action, knoc_aclname, knoc_username, knoc_cidr, knoc_ipaddr) are what the script gets
 * besides these. Suggested names: URL, USERNAME, PASSWORD, POLICY.
 */
import { useFieldArray, get } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../../ui/kit/Button.tsx";
import { CheckField, FormField } from "../../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../../lib/form-errors.ts";
import { useStepForm, watchPath } from "./use-step-form.ts";
import { EnvVarsStepSchema } from "./wizard-schemas.ts";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

/** The names the step suggests (docs/reference.md admin-console §3 "Defaults for script env include URL, USERNAME, PASSWORD, POLICY"). */
const SUGGESTED = ["URL", "USERNAME", "PASSWORD", "POLICY"] as const;

/** The environment variables step of `draft`. */
export function EnvVarsStep({ nav, draft }: { nav: StepNav; draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const form = useStepForm("envVars", EnvVarsStepSchema, draft);
  const rows = useFieldArray({ control: form.control, name: "rows" as never });
  const errors = form.formState.errors;
  const err = (path: string): string | undefined => fieldErrorText(i18n, get(errors, path));
  const values = watchPath<{ Name: string; Sensitive: boolean }[] | undefined>(form, "rows");
  const used = new Set((values ?? []).map((r) => r.Name));
  const submit = form.handleSubmit(() => nav.next());
  return (
    <form noValidate onSubmit={(event) => void submit(event)}>
      <p className="mb-4 text-sm text-slate-600 dark:text-slate-400">
        <Trans>
          The script also receives knoc_action, knoc_aclname, knoc_username, knoc_cidr and knoc_ipaddr. Values marked
          Sensitive are encrypted for the agent and can never be shown again.
        </Trans>
      </p>
      {rows.fields.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Trans>No variables.</Trans>
        </p>
      ) : null}
      <div className="space-y-2">
        {rows.fields.map((row, index) => (
          <div key={row.id} className="grid items-end gap-3 sm:grid-cols-[1fr_1fr_auto_auto]">
            <FormField
              label={t`Variable ${index + 1} name`}
              error={err(`rows.${index}.Name`)}
              {...form.register(`rows.${index}.Name` as never)}
            />
            <FormField
              label={t`Variable ${index + 1} value`}
              type={values?.[index]?.Sensitive ? "password" : "text"}
              error={err(`rows.${index}.Value`)}
              {...form.register(`rows.${index}.Value` as never)}
            />
            <div className="pb-2">
              <CheckField label={t`Sensitive`} {...form.register(`rows.${index}.Sensitive` as never)} />
            </div>
            <Button variant="quiet" onClick={() => rows.remove(index)}>
              <Trans>Remove</Trans>
            </Button>
          </div>
        ))}
      </div>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button onClick={() => rows.append({ Name: "", Value: "", Sensitive: false } as never)}>
          <Trans>Add variable</Trans>
        </Button>
        {SUGGESTED.filter((name) => !used.has(name)).map((name) => (
          <Button
            key={name}
            variant="quiet"
            onClick={() => rows.append({ Name: name, Value: "", Sensitive: name === "PASSWORD" } as never)}
          >
            <Trans>Add {name}</Trans>
          </Button>
        ))}
      </div>
      <StepButtons onBack={nav.back} />
    </form>
  );
}

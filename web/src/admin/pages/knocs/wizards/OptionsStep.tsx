/**
 * The Knoc options step (docs/reference.md admin-console §3 "Knoc (ACL)", §4 "RFC1918 restriction prefills the three
 * private ranges, locks editing and defaults RfcType to allow", §5 "MaximumGrantDuration: integer, 5
 * to 40320 minutes"; "IP range Start and End: both or neither"; "Grant IP list entries required"):
 * click to grant, additional client addresses (CGNAT), hidden from users, auto-browse, the maximum
 * grant duration in minutes (empty: unlimited), the IP restriction with its ranges, and whether a
 * grant carries the user's address or fixed ones.
 */
import { useFieldArray, get } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import type { IpExclusions } from "@postern/shared";
import { Limits } from "@postern/shared";
import { Button } from "../../../../ui/kit/Button.tsx";
import { CheckField, FormField, SelectField } from "../../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../../lib/form-errors.ts";
import { useStepForm, watchPath } from "./use-step-form.ts";
import { restrictionChanged } from "./wizard-defaults.ts";
import { OptionsStepSchema } from "./wizard-schemas.ts";
import { StepButtons } from "./WizardFrame.tsx";
import type { StepNav } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

const legendClass = "mb-1 text-sm font-medium text-slate-700 dark:text-slate-200";

/** The Knoc options step of `draft`. */
export function OptionsStep({ nav, draft }: { nav: StepNav; draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const form = useStepForm("options", OptionsStepSchema, draft);
  const errors = form.formState.errors;
  const err = (path: string): string | undefined => fieldErrorText(i18n, get(errors, path));
  const ranges = useFieldArray({ control: form.control, name: "IpExclusions.Ranges" as never });
  const ips = useFieldArray({ control: form.control, name: "GrantType.Ips" as never });
  const restriction = watchPath<IpExclusions["RestrictionType"]>(form, "IpExclusions.RestrictionType");
  const grantType = watchPath<"userIp" | "specifiedIps">(form, "GrantType.Type");
  const locked = restriction === "RFC1918";
  const min = Limits.maximumGrantDurationMinMinutes;
  const max = Limits.maximumGrantDurationMaxMinutes;

  const changeRestriction = (next: IpExclusions["RestrictionType"]): void => {
    const current = form.getValues("IpExclusions" as never) as unknown as {
      RfcType: IpExclusions["RfcType"];
      Ranges: { Start: string; End: string }[];
    };
    const value = restrictionChanged(next, current, restriction);
    form.setValue("IpExclusions.RestrictionType" as never, value.RestrictionType as never);
    form.setValue("IpExclusions.RfcType" as never, value.RfcType as never);
    ranges.replace(value.Ranges as never);
  };

  const ipsError = err("GrantType.Ips.root") ?? (ips.fields.length === 0 ? err("GrantType.Ips") : undefined);
  const submit = form.handleSubmit(() => nav.next());
  return (
    <form noValidate onSubmit={(event) => void submit(event)} className="space-y-6">
      <div className="grid gap-3 sm:grid-cols-2">
        <CheckField
          label={t`Click to grant (users grant access themselves)`}
          {...form.register("ClickToGrant" as never)}
        />
        <CheckField
          label={t`Include additional client IP addresses (CGNAT)`}
          {...form.register("CGNATOpen" as never)}
        />
        <CheckField label={t`Hide from users`} {...form.register("HideFromUsers" as never)} />
        <CheckField
          label={t`Open the URL for users automatically (auto-browse)`}
          {...form.register("AutoBrowseUsers" as never)}
        />
      </div>
      <div className="max-w-xs">
        <FormField
          label={t`Maximum grant duration (minutes)`}
          inputMode="numeric"
          hint={t`${min} to ${max} minutes; empty for unlimited.`}
          error={err("MaximumGrantDuration")}
          {...form.register("MaximumGrantDuration" as never)}
        />
      </div>

      <fieldset>
        <legend className={legendClass}>
          <Trans>IP restriction</Trans>
        </legend>
        <div className="grid gap-3 sm:grid-cols-2">
          <SelectField
            label={t`Restriction type`}
            value={restriction}
            onChange={(event) => changeRestriction(event.target.value as IpExclusions["RestrictionType"])}
            options={[
              { value: "none", label: t`None` },
              { value: "RFC1918", label: t`Private ranges (RFC1918)` },
              { value: "allowList", label: t`Allow only these ranges` },
              { value: "denyList", label: t`Deny these ranges` },
            ]}
          />
          {restriction === "RFC1918" ? (
            <SelectField
              label={t`Private ranges are`}
              options={[
                { value: "allow", label: t`Allowed` },
                { value: "deny", label: t`Denied` },
              ]}
              {...form.register("IpExclusions.RfcType" as never)}
            />
          ) : null}
        </div>
        {restriction !== "none" ? (
          <div className="mt-3 space-y-2" data-testid="ip-ranges">
            {ranges.fields.map((row, index) => (
              <div key={row.id} className="flex items-end gap-3">
                <div className="flex-1">
                  <FormField
                    label={t`Range ${index + 1} start`}
                    readOnly={locked}
                    error={err(`IpExclusions.Ranges.${index}`) ?? err(`IpExclusions.Ranges.${index}.Start`)}
                    {...form.register(`IpExclusions.Ranges.${index}.Start` as never)}
                  />
                </div>
                <div className="flex-1">
                  <FormField
                    label={t`Range ${index + 1} end`}
                    readOnly={locked}
                    {...form.register(`IpExclusions.Ranges.${index}.End` as never)}
                  />
                </div>
                {locked ? null : (
                  <Button variant="quiet" onClick={() => ranges.remove(index)}>
                    <Trans>Remove</Trans>
                  </Button>
                )}
              </div>
            ))}
            {locked ? null : (
              <Button onClick={() => ranges.append({ Start: "", End: "" } as never)}>
                <Trans>Add range</Trans>
              </Button>
            )}
          </div>
        ) : null}
      </fieldset>

      <fieldset>
        <legend className={legendClass}>
          <Trans>Grant applies to</Trans>
        </legend>
        <div className="max-w-xs">
          <SelectField
            label={t`Addresses granted`}
            options={[
              { value: "userIp", label: t`The user's IP address` },
              { value: "specifiedIps", label: t`These IP addresses` },
            ]}
            {...form.register("GrantType.Type" as never)}
          />
        </div>
        {grantType === "specifiedIps" ? (
          <div className="mt-3 space-y-2">
            {ips.fields.map((row, index) => (
              <div key={row.id} className="flex items-end gap-3">
                <div className="flex-1">
                  <FormField
                    label={t`IP address ${index + 1}`}
                    error={err(`GrantType.Ips.${index}.Ip`)}
                    {...form.register(`GrantType.Ips.${index}.Ip` as never)}
                  />
                </div>
                <Button variant="quiet" onClick={() => ips.remove(index)}>
                  <Trans>Remove</Trans>
                </Button>
              </div>
            ))}
            {ipsError ? <p className="text-sm text-red-700 dark:text-red-300">{ipsError}</p> : null}
            <Button onClick={() => ips.append({ Ip: "" } as never)}>
              <Trans>Add IP address</Trans>
            </Button>
          </div>
        ) : null}
      </fieldset>
      <StepButtons onBack={nav.back} />
    </form>
  );
}

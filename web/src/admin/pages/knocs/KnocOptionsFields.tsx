/**
 * The Knoc options tab of Update Knoc (docs/reference.md admin-console §3 "Knoc (ACL)", §4 RFC1918 restriction, §5
 * "Description of a Knoc is required", MaximumGrantDuration 5–40320 minutes or empty for unlimited,
 * IP ranges and grant addresses): description, URL, category, the switches (click to grant, additional
 * client addresses, hidden from users, auto-browse), the maximum grant duration in minutes, the IP
 * restriction (RFC1918 with allow or deny, or an allow or deny list of IPv4 ranges) and whose
 * addresses a grant carries (the user's, or fixed ones).
 */
import { useFieldArray } from "react-hook-form";
import type { UseFormReturn } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";
import { CheckField, FormField, SelectField } from "../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../lib/form-errors.ts";
import type { FieldErrorLike } from "../../lib/form-errors.ts";
import type { UpdateKnocOutput, UpdateKnocValues } from "./update-form.ts";

type Form = UseFormReturn<UpdateKnocValues, unknown, UpdateKnocOutput>;

const legend = "mb-2 text-sm font-medium text-slate-700 dark:text-slate-200";

/** The IP ranges of an allow or deny list. */
function RangesField({ form }: { form: Form }) {
  const { t, i18n } = useLingui();
  const rows = useFieldArray({ control: form.control, name: "options.IpExclusions.Ranges" as never });
  const errors = (
    form.formState.errors.options?.IpExclusions as { Ranges?: (FieldErrorLike | undefined)[] } | undefined
  )?.Ranges;
  return (
    <div className="space-y-2">
      {rows.fields.map((row, index) => (
        <div key={row.id} className="flex items-end gap-3">
          <div className="flex-1">
            <FormField
              label={t`Start of range ${index + 1}`}
              placeholder="203.0.113.0"
              error={fieldErrorText(i18n, errors?.[index])}
              {...form.register(`options.IpExclusions.Ranges.${index}.Start` as never)}
            />
          </div>
          <div className="flex-1">
            <FormField
              label={t`End of range ${index + 1}`}
              placeholder="203.0.113.255"
              {...form.register(`options.IpExclusions.Ranges.${index}.End` as never)}
            />
          </div>
          <Button variant="quiet" onClick={() => rows.remove(index)}>
            <Trans>Remove</Trans>
          </Button>
        </div>
      ))}
      <Button onClick={() => rows.append({ Start: "", End: "" } as never)}>
        <Trans>Add range</Trans>
      </Button>
    </div>
  );
}

/** The fixed addresses a grant carries (GrantType specifiedIps). */
function IpsField({ form }: { form: Form }) {
  const { t, i18n } = useLingui();
  const rows = useFieldArray({ control: form.control, name: "options.GrantType.Ips" as never });
  const errors = form.formState.errors.options?.GrantType as
    { Ips?: ({ Ip?: FieldErrorLike } | undefined)[] & FieldErrorLike } | undefined;
  return (
    <div className="space-y-2">
      {rows.fields.map((row, index) => (
        <div key={row.id} className="flex items-end gap-3">
          <div className="flex-1">
            <FormField
              label={t`Address ${index + 1}`}
              error={fieldErrorText(i18n, errors?.Ips?.[index]?.Ip)}
              {...form.register(`options.GrantType.Ips.${index}.Ip` as never)}
            />
          </div>
          <Button variant="quiet" onClick={() => rows.remove(index)}>
            <Trans>Remove</Trans>
          </Button>
        </div>
      ))}
      {errors?.Ips?.message ? (
        <p className="text-sm text-red-700 dark:text-red-300">{fieldErrorText(i18n, errors.Ips)}</p>
      ) : null}
      <Button onClick={() => rows.append({ Ip: "" } as never)}>
        <Trans>Add address</Trans>
      </Button>
    </div>
  );
}

/** The Knoc options tab. */
export function KnocOptionsFields({ form }: { form: Form }) {
  const { t, i18n } = useLingui();
  const errors = form.formState.errors.options;
  const restriction = form.watch("options.IpExclusions.RestrictionType");
  const grantType = form.watch("options.GrantType.Type");
  return (
    <div className="space-y-6">
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField
          label={t`Description`}
          required
          error={fieldErrorText(i18n, errors?.Description)}
          hint={t`The Knoc's name, as users see it.`}
          {...form.register("options.Description")}
        />
        <FormField label={t`Category`} {...form.register("options.Category")} />
        <FormField
          label={t`URL`}
          hint={t`Where users go once access is granted (optional).`}
          {...form.register("options.URL")}
        />
        <FormField
          label={t`Maximum grant duration (minutes)`}
          inputMode="numeric"
          hint={t`5 to 40320 minutes; empty for no limit but the session's.`}
          error={fieldErrorText(i18n, errors?.MaxMinutes)}
          {...form.register("options.MaxMinutes")}
        />
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <CheckField label={t`Click to grant`} {...form.register("options.ClickToGrant")} />
        <CheckField label={t`Include additional IP addresses`} {...form.register("options.CGNATOpen")} />
        <CheckField label={t`Hide from users`} {...form.register("options.HideFromUsers")} />
        <CheckField label={t`Open the URL for users automatically`} {...form.register("options.AutoBrowseUsers")} />
      </div>
      <fieldset>
        <legend className={legend}>
          <Trans>IP restriction</Trans>
        </legend>
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label={t`Restriction`}
            options={[
              { value: "none", label: t`None` },
              { value: "RFC1918", label: t`Private addresses (RFC 1918)` },
              { value: "allowList", label: t`Allow only these ranges` },
              { value: "denyList", label: t`Deny these ranges` },
            ]}
            {...form.register("options.IpExclusions.RestrictionType")}
          />
          {restriction === "RFC1918" ? (
            <SelectField
              label={t`Private addresses`}
              options={[
                { value: "allow", label: t`Allow only private addresses` },
                { value: "deny", label: t`Deny private addresses` },
              ]}
              {...form.register("options.IpExclusions.RfcType")}
            />
          ) : null}
        </div>
        {restriction === "RFC1918" ? (
          <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
            <Trans>
              The private ranges are 10.0.0.0–10.255.255.255, 172.16.0.0–172.31.255.255 and 192.168.0.0–192.168.255.255.
            </Trans>
          </p>
        ) : null}
        {restriction === "allowList" || restriction === "denyList" ? (
          <div className="mt-3">
            <RangesField form={form} />
          </div>
        ) : null}
      </fieldset>
      <fieldset>
        <legend className={legend}>
          <Trans>Addresses granted</Trans>
        </legend>
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            label={t`Grant access to`}
            options={[
              { value: "userIp", label: t`The user's address` },
              { value: "specifiedIps", label: t`These addresses` },
            ]}
            {...form.register("options.GrantType.Type")}
          />
        </div>
        {grantType === "specifiedIps" ? (
          <div className="mt-3">
            <IpsField form={form} />
          </div>
        ) : null}
      </fieldset>
    </div>
  );
}

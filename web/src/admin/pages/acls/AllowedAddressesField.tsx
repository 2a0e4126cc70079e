/**
 * The source addresses allowed to read an allowlist ACL's list without an API key (docs/reference.md admin-console §3
 * allowlist "AllowAccessByIp, AllowedIpAddresses"; §7 "or by source IP if AllowAccessByIp"): one
 * row per prefix with its note, rows added and removed in place.
 */
import { useFieldArray } from "react-hook-form";
import type { Control, UseFormRegister } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";
import { FormField } from "../../../ui/kit/FormField.tsx";
import type { AclFormOutput, AclFormValues } from "./acl-form.ts";

/** The editor of `Config.allowlist.AllowedIpAddresses`; `legend` names it. */
export function AllowedAddressesField({
  legend,
  control,
  register,
}: {
  legend: string;
  control: Control<AclFormValues, unknown, AclFormOutput>;
  register: UseFormRegister<AclFormValues>;
}) {
  const { t } = useLingui();
  const rows = useFieldArray({ control, name: "Config.allowlist.AllowedIpAddresses" as never });
  return (
    <fieldset className="sm:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">{legend}</legend>
      <div className="space-y-2">
        {rows.fields.map((row, index) => (
          <div key={row.id} className="flex items-end gap-3">
            <div className="flex-1">
              <FormField
                label={t`Prefix ${index + 1}`}
                placeholder="203.0.113.0/24"
                {...register(`Config.allowlist.AllowedIpAddresses.${index}.Prefix` as never)}
              />
            </div>
            <div className="flex-1">
              <FormField
                label={t`Note ${index + 1}`}
                {...register(`Config.allowlist.AllowedIpAddresses.${index}.Note` as never)}
              />
            </div>
            <Button variant="quiet" onClick={() => rows.remove(index)}>
              <Trans>Remove</Trans>
            </Button>
          </div>
        ))}
      </div>
      <Button className="mt-2" onClick={() => rows.append({ Prefix: "", Note: "" } as never)}>
        <Trans>Add address</Trans>
      </Button>
    </fieldset>
  );
}

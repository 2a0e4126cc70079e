/**
 * The approval part of the ACL form (issue #14 item 1; docs/decisions.md "Approval requests"): "Requires
 * approval", and when it is on, how long a request waits for an answer (ApprovalTimeout, SECONDS, 5 s to
 * 7 days, err.invalidApprovalTimeout) and the groups whose members may approve besides the admins.
 */
import { useQuery } from "@tanstack/react-query";
import type { FieldErrors, UseFormRegister } from "react-hook-form";
import { Trans, useLingui } from "@lingui/react/macro";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { fieldErrorText } from "../../lib/form-errors.ts";
import { groupQueries } from "../../queries/groups.ts";
import { numberInput } from "./acl-form.ts";
import type { AclFormValues } from "./acl-form.ts";

/** Props: the form's `register` and `errors`, and whether Requires approval is on (`on`). */
export function ApprovalFields({
  register,
  errors,
  on,
}: {
  register: UseFormRegister<AclFormValues>;
  errors: FieldErrors<AclFormValues>;
  on: boolean;
}) {
  const { t, i18n } = useLingui();
  const groups = useQuery({ ...groupQueries.list(), enabled: on });
  return (
    <div className="space-y-3 border-t border-slate-200 pt-3 sm:col-span-2 dark:border-slate-700">
      <CheckField label={t`Requires approval`} {...register("RequiresApproval")} />
      {on ? (
        <div className="grid gap-4 sm:grid-cols-2">
          <FormField
            label={t`Time to answer (seconds)`}
            inputMode="numeric"
            hint={t`Unanswered requests expire after this time (5 seconds to 7 days).`}
            error={fieldErrorText(i18n, errors.ApprovalTimeout)}
            {...register("ApprovalTimeout", { setValueAs: numberInput })}
          />
          <fieldset>
            <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
              <Trans>Approver groups (admins always approve)</Trans>
            </legend>
            <div className="max-h-32 space-y-1 overflow-y-auto">
              {groups.data?.length === 0 ? <Trans>No groups yet.</Trans> : null}
              {groups.data?.map((g) => (
                <CheckField key={g.ID} label={g.Name} value={g.ID} {...register("ApproverGroupIDs")} />
              ))}
            </div>
          </fieldset>
        </div>
      ) : null}
    </div>
  );
}

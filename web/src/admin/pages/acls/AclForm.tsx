/**
 * Create or edit an ACL (docs/reference.md admin-console §2 "ACLs", §3 "Knoc (ACL)", §4 "ACL ... forms are in create
 * mode with nothing selected, otherwise update mode", §5 "ACL"): description, backend, URL,
 * category, maximum grant duration in minutes, click to grant, hide from users, approval (ApprovalFields), then the fields of
 * the chosen backend's type read from its shared ACL schema. Choosing a backend of another type
 * starts that type's fields afresh. Without any backend the dialog says to create one first. An
 * allowlist ACL being edited shows its public allowlist URL to copy. The server's refusals (no
 * licence: err.youDoNotHaveALicense) open the error dialog.
 */
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { NONE_ID } from "@postern/shared";
import type { Acl, AclConfig, Backend } from "@postern/shared";
import { CheckField, FormField, SelectField } from "../../../ui/kit/FormField.tsx";
import { Copyable } from "../../components/Copyable.tsx";
import { FormDialog } from "../../../ui/kit/FormDialog.tsx";
import { backendTypeLabel } from "../../lib/backend-labels.ts";
import { useFeedback } from "../../lib/feedback.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import { useCreateAcl, useUpdateAcl } from "../../queries/acls.ts";
import { apiKeyQueries } from "../../queries/api-keys.ts";
import { knocQueries } from "../../queries/knocs.ts";
import {
  aclFormSchema,
  backendType,
  existingAclValues,
  newAclValues,
  numberInput,
  sealedVariables,
  startConfig,
  toWrite,
} from "./acl-form.ts";
import type { AclFormOutput, AclFormValues } from "./acl-form.ts";
import { aclConfigFields, aclFieldLabel } from "./acl-labels.ts";
import { AclVariablesField } from "./AclVariablesField.tsx";
import { AllowedAddressesField } from "./AllowedAddressesField.tsx";
import { ApprovalFields } from "./ApprovalFields.tsx";

type FieldError = Parameters<typeof fieldErrorText>[1];

/** The ACL dialog; `acl` undefined creates one. `backends` are the backends to choose from (loaded). */
export function AclForm({
  acl,
  backends,
  onClose,
}: {
  acl: Acl | undefined;
  backends: readonly Backend[];
  onClose: () => void;
}) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateAcl();
  const update = useUpdateAcl();
  const editing = acl !== undefined;
  const sealed = sealedVariables(acl);
  const form = useForm<AclFormValues, unknown, AclFormOutput>({
    resolver: zodResolver(aclFormSchema(sealed)),
    defaultValues: acl
      ? existingAclValues(
          acl,
          backends.find((b) => b.ID === acl.BackendID),
        )
      : newAclValues(),
  });
  const [type, backendId, requiresApproval] = form.watch(["Type", "BackendID", "RequiresApproval"]);
  const errors = form.formState.errors;
  const configErrors = type
    ? (errors.Config as Record<string, Record<string, FieldError>> | undefined)?.[type]
    : undefined;
  const apiKeys = useQuery({ ...apiKeyQueries.list(), enabled: type === "allowlist" });
  const knoc = useQuery({ ...knocQueries.detail(acl?.ID ?? ""), enabled: editing && type === "allowlist" });

  const submit = form.handleSubmit((values) => {
    const body = toWrite(values);
    if (acl) update.mutate({ ...body, ID: acl.ID }, feedback(t`ACL updated`, onClose));
    else create.mutate(body, feedback(t`ACL created`, onClose));
  });
  const changeBackend = (id: string): void => {
    const next = backends.find((b) => b.ID === id);
    const values = form.getValues();
    const nextType = next ? backendType(next) : null;
    const keep = nextType !== null && nextType === values.Type ? (values.Config as AclConfig) : undefined;
    form.reset(
      {
        ...values,
        BackendID: next?.ID ?? NONE_ID,
        Type: nextType,
        Config: nextType ? startConfig(nextType, next, keep) : { UriToken: values.Config?.UriToken ?? "" },
      },
      { keepErrors: false },
    );
  };

  return (
    <FormDialog
      title={editing ? t`Edit ACL` : t`Create ACL`}
      size="lg"
      layout="grid"
      editing={editing}
      busy={create.isPending || update.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      {backends.length === 0 ? (
        <p role="note" className="text-sm text-amber-800 sm:col-span-2 dark:text-amber-200">
          <Trans>
            Create a backend before creating an ACL.{" "}
            <Link to="/admin/backends" className="font-medium underline">
              Go to backends
            </Link>
          </Trans>
        </p>
      ) : null}
      <FormField
        label={t`Description`}
        required
        autoFocus
        error={fieldErrorText(i18n, errors.Description)}
        {...form.register("Description")}
      />
      <SelectField
        label={t`Backend`}
        value={backendId}
        onChange={(event) => changeBackend(event.target.value)}
        error={fieldErrorText(i18n, errors.BackendID)}
        options={[
          { value: NONE_ID, label: t`Choose a backend` },
          ...backends.map((b) => ({ value: b.ID, label: `${b.Name} (${backendTypeLabel(i18n, backendType(b))})` })),
        ]}
      />
      <FormField label={t`URL`} type="url" error={fieldErrorText(i18n, errors.URL)} {...form.register("URL")} />
      <FormField label={t`Category`} {...form.register("Category")} />
      <FormField
        label={t`Maximum grant duration (minutes)`}
        inputMode="numeric"
        hint={t`5 to 40320 minutes; empty means unlimited.`}
        error={fieldErrorText(i18n, errors.MaximumGrantDuration)}
        {...form.register("MaximumGrantDuration")}
      />
      <div className="space-y-2 self-end pb-2">
        <CheckField label={t`Click to grant`} {...form.register("ClickToGrant")} />
        <CheckField label={t`Hide from users`} {...form.register("HideFromUsers")} />
      </div>
      <ApprovalFields register={form.register} errors={errors} on={requiresApproval === true} />
      {type ? (
        <h3 className="border-t border-slate-200 pt-3 text-sm font-semibold text-slate-900 sm:col-span-2 dark:border-slate-700 dark:text-white">
          {t`${backendTypeLabel(i18n, type)} settings`}
        </h3>
      ) : null}
      {type
        ? aclConfigFields(type).map((field) => {
            const path = `Config.${type}.${field.name}` as never;
            const label = aclFieldLabel(i18n, type, field.name);
            const error = fieldErrorText(i18n, configErrors?.[field.name]);
            if (field.kind === "envValues")
              return (
                <AclVariablesField
                  key={field.name}
                  variables={Object.entries(form.getValues("Config.script.EnvVars") ?? {}).map(([name, v]) => ({
                    name,
                    sensitive: v.Encrypted ?? false,
                  }))}
                  sealed={sealed}
                  register={form.register}
                  errors={errors}
                />
              );
            if (field.kind === "prefixes")
              return (
                <AllowedAddressesField
                  key={field.name}
                  legend={label}
                  control={form.control}
                  register={form.register}
                />
              );
            if (field.kind === "boolean") return <CheckField key={field.name} label={label} {...form.register(path)} />;
            if (field.name === "ApiKeyId")
              return (
                <SelectField
                  key={field.name}
                  label={label}
                  error={error}
                  options={[
                    { value: NONE_ID, label: t`No API key` },
                    ...(apiKeys.data ?? []).map((k) => ({ value: k.ID, label: k.Name })),
                  ]}
                  {...form.register(path)}
                />
              );
            if (field.kind === "enum")
              return (
                <SelectField
                  key={field.name}
                  label={label}
                  error={error}
                  options={(field.options ?? []).map((o) => ({ value: o, label: o === "" ? t`Choose` : o }))}
                  {...form.register(path)}
                />
              );
            return (
              <FormField
                key={field.name}
                label={label}
                inputMode={field.kind === "number" ? "numeric" : undefined}
                error={error}
                {...form.register(path, field.kind === "number" ? { setValueAs: numberInput } : {})}
              />
            );
          })
        : null}
      {editing && type === "allowlist" && knoc.data?.AllowlistURL ? (
        <div className="sm:col-span-2">
          <Copyable
            id="acl-allowlist-url"
            label={t`Allowlist URL`}
            what={t`allowlist URL`}
            value={knoc.data.AllowlistURL}
          />
        </div>
      ) : null}
    </FormDialog>
  );
}

/**
 * The Settings tab of Update Knoc (docs/reference.md admin-console §2 "Update Knoc", §3 table, §4 "On update, secret
 * fields show a RECORDED placeholder and are not required", "on update the old address is kept if
 * the protocol is unchanged"): the backend's name and agent (agents that cannot carry the type, or
 * never connected, are disabled), the backend fields of its type and the ACL fields of its type,
 * both read from the type's shared schemas. The type itself cannot change.
 */
import type { UseFormReturn } from "react-hook-form";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { BACKEND_DESCRIPTORS, BackendDefaults, NONE_ID, agentCapableOf } from "@postern/shared";
import type { Backend, BackendType } from "@postern/shared";
import { CheckField, FormField, SelectField } from "../../../ui/kit/FormField.tsx";
import { aclFieldLabel, backendTypeLabel, configFieldLabel } from "../../lib/backend-labels.ts";
import { configFields } from "../../lib/config-fields.ts";
import type { ConfigField } from "../../lib/config-fields.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import type { FieldErrorLike } from "../../lib/form-errors.ts";
import { agentQueries } from "../../queries/agents.ts";
import type { UpdateKnocOutput, UpdateKnocValues } from "./update-form.ts";

type Form = UseFormReturn<UpdateKnocValues, unknown, UpdateKnocOutput>;

/** ACL fields kept by the server, not edited here (the allowlist's token and key, the script's variables). */
const NOT_EDITED = new Set(["Token", "ApiKeyId", "AllowAccessByIp", "AllowedIpAddresses", "EnvVars"]);

/** A number typed as text: digits become a number, anything else stays text for the schema to refuse. */
const asNumber = (v: unknown): unknown =>
  typeof v === "string" ? (v.trim() === "" ? undefined : /^\d+$/.test(v.trim()) ? Number(v.trim()) : v) : v;

/** One configuration field of the form at `path`. */
function ConfigInput({
  form,
  field,
  path,
  label,
  error,
  recorded,
}: {
  form: Form;
  field: ConfigField;
  path: string;
  label: string;
  error: string | undefined;
  recorded: boolean;
}) {
  const { t } = useLingui();
  const name = path as never;
  if (field.kind === "boolean") return <CheckField label={label} {...form.register(name)} />;
  if (field.kind === "enum")
    return (
      <SelectField
        label={label}
        error={error}
        options={(field.options ?? []).map((o) => ({ value: o, label: o === "" ? t`Choose…` : o }))}
        {...form.register(name)}
      />
    );
  if (field.kind === "number")
    return (
      <FormField label={label} inputMode="numeric" error={error} {...form.register(name, { setValueAs: asNumber })} />
    );
  return (
    <FormField
      label={label}
      type={field.kind === "secret" ? "password" : "text"}
      placeholder={recorded ? t`RECORDED` : undefined}
      hint={recorded ? t`Leave empty to keep the recorded value.` : undefined}
      error={error}
      {...form.register(name)}
    />
  );
}

/** The Settings tab of a Knoc whose backend is `backend` (type `type`). */
export function KnocSettingsFields({ form, backend, type }: { form: Form; backend: Backend; type: BackendType }) {
  const { t, i18n } = useLingui();
  const agents = useQuery(agentQueries.header());
  const descriptor = BACKEND_DESCRIPTORS[type];
  const errors = form.formState.errors.form as
    | {
        Name?: FieldErrorLike;
        Config?: Record<string, Record<string, FieldErrorLike>>;
        AclConfig?: Record<string, Record<string, FieldErrorLike>>;
      }
    | undefined;
  const stored = (backend.Config as Record<string, Record<string, unknown>>)[type] ?? {};
  const onProtocol = (protocol: string): void => {
    // §4: the stored address when the protocol is back to the stored one, else the protocol's prefill.
    const agent = agents.data?.find((a) => a.ID === form.getValues("agentId"));
    const address =
      protocol === stored["Protocol"]
        ? String(stored["Address"] ?? "")
        : protocol === "unix"
          ? (agent?.Capabilities.haproxy?.socket_location ?? BackendDefaults.haproxyUnixSocket)
          : `127.0.0.1:${BackendDefaults.haproxyTcpPort}`;
    form.setValue(`form.Config.${type}.Address` as never, address as never);
  };
  const backendFields = configFields(descriptor.backendSchema, descriptor.secretFields).filter(
    (f) => f.kind !== "envVars",
  );
  const aclFields = configFields(descriptor.aclSchema, []).filter((f) => !NOT_EDITED.has(f.name));
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <FormField
        label={t`Name`}
        required
        error={fieldErrorText(i18n, errors?.Name)}
        hint={t`The name of the Knoc's backend.`}
        {...form.register("form.Name")}
      />
      <FormField label={t`Type`} value={backendTypeLabel(i18n, type)} disabled readOnly />
      {descriptor.agentless ? null : (
        <SelectField
          label={t`Agent`}
          error={fieldErrorText(i18n, form.formState.errors.agentId)}
          options={[
            { value: NONE_ID, label: t`Choose an agent` },
            ...(agents.data ?? []).map((a) => ({
              value: a.ID,
              label:
                a.Version === "" || !agentCapableOf(a.Capabilities, type)
                  ? t`${a.Name} (not capable of this Knoc type)`
                  : a.Name,
            })),
          ]}
          {...form.register("agentId")}
        />
      )}
      {backendFields.map((field) => {
        const path = `form.Config.${type}.${field.name}`;
        const error = fieldErrorText(i18n, errors?.Config?.[type]?.[field.name]);
        const label = configFieldLabel(i18n, field.name);
        if (field.name === "Protocol")
          return (
            <SelectField
              key={field.name}
              label={label}
              options={(field.options ?? []).map((o) => ({ value: o, label: o }))}
              {...form.register(path as never, { onChange: (event) => onProtocol(String(event.target.value)) })}
            />
          );
        return (
          <ConfigInput
            key={field.name}
            form={form}
            field={field}
            path={path}
            label={label}
            error={error}
            recorded={field.kind === "secret" && backend.SecretsSet.includes(field.name)}
          />
        );
      })}
      {aclFields.map((field) => (
        <ConfigInput
          key={`acl-${field.name}`}
          form={form}
          field={field}
          path={`form.AclConfig.${type}.${field.name}`}
          label={aclFieldLabel(i18n, field.name)}
          error={fieldErrorText(i18n, errors?.AclConfig?.[type]?.[field.name])}
          recorded={false}
        />
      ))}
      {type === "allowlist" ? (
        <p className="text-sm text-slate-700 sm:col-span-2 dark:text-slate-300">
          <Trans>Who may read this allowlist is set when the Knoc is created and with its API key.</Trans>
        </p>
      ) : null}
    </div>
  );
}

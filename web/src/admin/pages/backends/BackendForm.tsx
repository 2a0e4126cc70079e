/**
 * Create or edit a backend (docs/reference.md admin-console §2 "Backends", §3, §5): name, type (locked when editing),
 * agent (none for the allowlist), and the type's own fields from its shared schema. Secret fields are
 * write-only: a stored one shows RECORDED and stays when left empty.
 */
import { useQuery } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useLingui } from "@lingui/react/macro";
import { BACKEND_DESCRIPTORS, BACKEND_TYPES, NONE_ID, isAgentless } from "@postern/shared";
import type { Backend, BackendType } from "@postern/shared";
import { CheckField, FormField, SelectField } from "../../../ui/kit/FormField.tsx";
import { FormDialog } from "../../../ui/kit/FormDialog.tsx";
import { backendTypeLabel, configFieldLabel } from "../../lib/backend-labels.ts";
import { configFields } from "../../lib/config-fields.ts";
import { useFeedback } from "../../lib/feedback.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import { agentQueries } from "../../queries/agents.ts";
import { useCreateBackend, useUpdateBackend } from "../../queries/backends.ts";
import { BackendFormSchema, existingBackendValues, newBackendValues, toWrite } from "./backend-form.ts";
import type { BackendFormOutput, BackendFormValues } from "./backend-form.ts";
import { EnvVarsField } from "./EnvVarsField.tsx";

type FieldError = Parameters<typeof fieldErrorText>[1];

/** The backend dialog; `backend` undefined creates one. */
export function BackendForm({ backend, onClose }: { backend: Backend | undefined; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateBackend();
  const update = useUpdateBackend();
  const agents = useQuery(agentQueries.header());
  const editing = backend !== undefined;
  const form = useForm<BackendFormValues, unknown, BackendFormOutput>({
    resolver: zodResolver(BackendFormSchema),
    defaultValues: backend ? existingBackendValues(backend) : newBackendValues("haproxy"),
  });
  const type = form.watch("Type");
  const descriptor = BACKEND_DESCRIPTORS[type];
  const errors = form.formState.errors;
  const configErrors = (errors.Config as Record<string, Record<string, FieldError>> | undefined)?.[type];
  const submit = form.handleSubmit((values) => {
    const body = toWrite(values);
    if (backend) update.mutate({ ...body, ID: backend.ID }, feedback(t`Backend updated`, onClose));
    else create.mutate(body, feedback(t`Backend created`, onClose));
  });
  const changeType = (next: BackendType): void => {
    const { Name, AgentID } = form.getValues();
    form.reset(newBackendValues(next, Name, isAgentless(next) ? NONE_ID : AgentID));
  };
  return (
    <FormDialog
      title={editing ? t`Edit backend` : t`Create backend`}
      size="lg"
      layout="grid"
      editing={editing}
      busy={create.isPending || update.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormField
        label={t`Name`}
        required
        autoFocus
        error={fieldErrorText(i18n, errors.Name)}
        {...form.register("Name")}
      />
      <SelectField
        label={t`Type`}
        disabled={editing}
        value={type}
        onChange={(event) => changeType(event.target.value as BackendType)}
        options={BACKEND_TYPES.map((value) => ({ value, label: backendTypeLabel(i18n, value) }))}
      />
      {isAgentless(type) ? null : (
        <SelectField
          label={t`Agent`}
          error={fieldErrorText(i18n, errors.AgentID)}
          options={[
            { value: NONE_ID, label: t`Choose an agent` },
            ...(agents.data ?? []).map((a) => ({ value: a.ID, label: a.Name })),
          ]}
          {...form.register("AgentID")}
        />
      )}
      {configFields(descriptor.backendSchema, descriptor.secretFields).map((field) => {
        const path = `Config.${type}.${field.name}` as never;
        const label = configFieldLabel(i18n, field.name);
        const error = fieldErrorText(i18n, configErrors?.[field.name]);
        if (field.kind === "envVars")
          return <EnvVarsField key={field.name} control={form.control} register={form.register} errors={errors} />;
        if (field.kind === "boolean") return <CheckField key={field.name} label={label} {...form.register(path)} />;
        if (field.kind === "enum")
          return (
            <SelectField
              key={field.name}
              label={label}
              error={error}
              options={(field.options ?? []).map((o) => ({ value: o, label: o }))}
              {...form.register(path)}
            />
          );
        const recorded = field.kind === "secret" && backend?.SecretsSet.includes(field.name) === true;
        return (
          <FormField
            key={field.name}
            label={label}
            type={field.kind === "secret" ? "password" : "text"}
            placeholder={recorded ? t`RECORDED` : undefined}
            hint={recorded ? t`Leave empty to keep the recorded value.` : undefined}
            error={error}
            {...form.register(path)}
          />
        );
      })}
    </FormDialog>
  );
}

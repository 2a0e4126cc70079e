/**
 * The credentials dialog of Update Knoc (docs/reference.md admin-console §4 "Knoc update": "If a backend address or
 * host changed and no new credential was given ..., a dialog asks for the new API key,
 * authorization token, or username and password before saving continues"; §5 "Dialog credential
 * fields required"): one password field per secret the backend needs again; Continue hands them
 * over and the save goes on.
 */
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { FormField } from "../../../ui/kit/FormField.tsx";
import { FormDialog } from "../../../ui/kit/FormDialog.tsx";
import { configFieldLabel } from "../../lib/backend-labels.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";

/** Props: the secret fields to ask for, the save's running state, and what to do with the answers. */
export interface ReenterCredentialsDialogProps {
  fields: readonly string[];
  busy: boolean;
  onSubmit: (values: Record<string, string>) => void;
  onClose: () => void;
}

/** The open credentials dialog. */
export function ReenterCredentialsDialog({ fields, busy, onSubmit, onClose }: ReenterCredentialsDialogProps) {
  const { t, i18n } = useLingui();
  const schema = z.object(Object.fromEntries(fields.map((f) => [f, z.string().min(1, "required")])));
  const form = useForm<Record<string, string>>({
    resolver: zodResolver(schema),
    defaultValues: Object.fromEntries(fields.map((f) => [f, ""])),
  });
  return (
    <FormDialog
      title={t`Re-enter credentials`}
      editing
      submitLabel={t`Continue`}
      busy={busy}
      onClose={onClose}
      onSubmit={form.handleSubmit(onSubmit)}
    >
      <p className="text-sm text-slate-700 dark:text-slate-300">
        <Trans>
          The address or the agent of this Knoc&apos;s backend changed. Enter its credentials again to save.
        </Trans>
      </p>
      {fields.map((field, index) => (
        <FormField
          key={field}
          label={configFieldLabel(i18n, field)}
          type="password"
          required
          autoFocus={index === 0}
          error={fieldErrorText(i18n, form.formState.errors[field])}
          {...form.register(field)}
        />
      ))}
    </FormDialog>
  );
}

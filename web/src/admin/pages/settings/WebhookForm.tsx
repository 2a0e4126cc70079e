/**
 * The create and edit dialog of an event webhook (issue #14 item 4; docs/admin-guide.md "Webhooks"): URL,
 * description, enabled, and the event picker — "All events" (also those added later) or the event types of
 * GET /admin/webhooks/events, one checkbox each. Validates with the shared WebhookCreateSchema; the server's refusal
 * opens the error dialog. Creating answers the signing secret, which the caller shows once.
 */
import { useQuery } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { Trans, useLingui } from "@lingui/react/macro";
import { WEBHOOK_ALL_EVENTS, WebhookCreateSchema } from "@postern/shared";
import type { Webhook, WebhookCreate } from "@postern/shared";
import type { z } from "zod";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { FormDialog } from "../../../ui/kit/FormDialog.tsx";
import { useFeedback } from "../../lib/feedback.ts";
import { fieldErrorText } from "../../lib/form-errors.ts";
import { eventLabel } from "../../lib/webhook-labels.ts";
import { useCreateWebhook, useUpdateWebhook, webhookQueries } from "../../queries/webhooks.ts";

type WebhookFormInput = z.input<typeof WebhookCreateSchema>;

/** Props of WebhookForm: `webhook` to edit, or undefined to create; `onCreated` gets the answer with its Secret. */
export interface WebhookFormProps {
  webhook: Webhook | undefined;
  onClose: () => void;
  onCreated: (created: Webhook) => void;
}

/** The webhook dialog. */
export function WebhookForm({ webhook, onClose, onCreated }: WebhookFormProps) {
  const { t, i18n } = useLingui();
  const feedback = useFeedback();
  const create = useCreateWebhook();
  const update = useUpdateWebhook();
  const types = useQuery(webhookQueries.events());
  const editing = webhook !== undefined;
  const form = useForm<WebhookFormInput, unknown, WebhookCreate>({
    resolver: zodResolver(WebhookCreateSchema),
    defaultValues: {
      URL: webhook?.URL ?? "",
      Events: webhook?.Events ?? [WEBHOOK_ALL_EVENTS],
      Description: webhook?.Description ?? "",
      Enabled: webhook?.Enabled ?? true,
    },
  });
  const errors = form.formState.errors;
  const events = form.watch("Events");
  const all = events.includes(WEBHOOK_ALL_EVENTS);
  const setEvents = (next: string[]): void =>
    form.setValue("Events", next, { shouldDirty: true, shouldValidate: form.formState.isSubmitted });
  const toggle = (type: string, on: boolean): void =>
    setEvents(on ? [...events.filter((e) => e !== type), type] : events.filter((e) => e !== type));
  const eventsError =
    errors.Events?.message === "Choose at least one event" ? t`Choose at least one event` : errors.Events?.message;

  const submit = form.handleSubmit((values) => {
    if (webhook) {
      update.mutate({ ID: webhook.ID, ...values }, feedback(t`Webhook updated`, onClose));
      return;
    }
    create.mutate(values, feedback(t`Webhook created`, onCreated));
  });

  return (
    <FormDialog
      title={editing ? t`Edit webhook` : t`Add webhook`}
      size="lg"
      editing={editing}
      busy={create.isPending || update.isPending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormField
        label={t`URL`}
        required
        autoFocus
        type="url"
        placeholder="https://siem.example.com/postern"
        hint={t`http or https; Postern POSTs signed JSON to it`}
        error={fieldErrorText(i18n, errors.URL)}
        {...form.register("URL")}
      />
      <FormField
        label={t`Description`}
        error={fieldErrorText(i18n, errors.Description)}
        {...form.register("Description")}
      />
      <CheckField label={t`Enabled`} {...form.register("Enabled")} />
      <fieldset aria-describedby={eventsError ? "webhook-events-error" : undefined}>
        <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
          <Trans>Events</Trans>
        </legend>
        <CheckField
          label={t`All events (also those added later)`}
          checked={all}
          onChange={(event) => setEvents(event.target.checked ? [WEBHOOK_ALL_EVENTS] : [])}
        />
        <div className="mt-2 grid gap-1 sm:grid-cols-2">
          {(types.data ?? []).map((type) => (
            <CheckField
              key={type.Type}
              label={eventLabel(i18n, type.Type)}
              title={type.Type}
              disabled={all}
              checked={all || events.includes(type.Type)}
              onChange={(event) => toggle(type.Type, event.target.checked)}
            />
          ))}
        </div>
        {eventsError ? (
          <p id="webhook-events-error" role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300">
            {eventsError}
          </p>
        ) : null}
      </fieldset>
    </FormDialog>
  );
}

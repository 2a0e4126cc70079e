/**
 * The Webhooks section of Settings (issue #14 item 4; docs/admin-guide.md "Webhooks"): the registered endpoints —
 * URL, description, events, enabled, last result — with Add webhook, and per row Edit, Send test, Deliveries and
 * Delete. After creation the signing secret is shown once, to copy.
 */
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Webhook, WebhookDelivery } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { DataTable } from "../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../ui/kit/DataTable.tsx";
import { Dialog } from "../../../ui/kit/Dialog.tsx";
import { Copyable } from "../../components/Copyable.tsx";
import { DeleteConfirm } from "../../components/MutationConfirm.tsx";
import { actionsColumn, textColumn } from "../../lib/columns.tsx";
import { adminErrorText } from "../../lib/errors.ts";
import { useFeedback } from "../../lib/feedback.ts";
import { relativeTime } from "../../lib/relative-time.ts";
import { deliveryResultText, eventsText } from "../../lib/webhook-labels.ts";
import { useDeleteWebhook, useTestWebhook, webhookQueries } from "../../queries/webhooks.ts";
import { SectionHeading } from "./SettingsSection.tsx";
import { WebhookDeliveries } from "./WebhookDeliveries.tsx";
import { WebhookForm } from "./WebhookForm.tsx";

type Open =
  | { kind: "none" }
  | { kind: "create" }
  | { kind: "edit"; hook: Webhook }
  | { kind: "created"; hook: Webhook }
  | { kind: "deliveries"; hook: Webhook }
  | { kind: "delete"; hook: Webhook };

/** The Webhooks section. */
export function WebhooksSection() {
  const { t, i18n } = useLingui();
  const hooks = useQuery(webhookQueries.list());
  const [open, setOpen] = useState<Open>({ kind: "none" });
  const close = (): void => setOpen({ kind: "none" });
  const remove = useDeleteWebhook();
  const test = useTestWebhook();
  const feedback = useFeedback();
  const now = Date.now();

  const sendTest = (hook: Webhook): void =>
    test.mutate(
      hook.ID,
      feedback(t`Test sent`, (d: WebhookDelivery) =>
        setOpen({ kind: "deliveries", hook: { ...hook, LastDelivery: d } }),
      ),
    );

  const lastResult = (hook: Webhook): string => {
    const last = hook.LastDelivery;
    if (last === null) return t`No deliveries yet`;
    const when = last.LastAttemptAt ?? last.CreatedAt;
    return `${deliveryResultText(i18n, last)} · ${relativeTime(when, now, i18n.locale)}`;
  };

  const columns: Column<Webhook>[] = [
    textColumn("url", t`URL`, (h) => h.URL),
    textColumn("description", t`Description`, (h) => h.Description),
    textColumn("events", t`Events`, (h) => eventsText(i18n, h.Events)),
    textColumn("enabled", t`Enabled`, (h) => (h.Enabled ? t`Yes` : t`No`)),
    textColumn("last", t`Last result`, lastResult),
    actionsColumn(
      t`Actions`,
      (h) => h.URL,
      (h) => [
        { label: t`Edit`, onSelect: () => setOpen({ kind: "edit", hook: h }) },
        { label: t`Send test`, onSelect: () => sendTest(h) },
        { label: t`Deliveries`, onSelect: () => setOpen({ kind: "deliveries", hook: h }) },
        { label: t`Delete`, danger: true, onSelect: () => setOpen({ kind: "delete", hook: h }) },
      ],
    ),
  ];

  return (
    <section
      aria-labelledby="settings-webhooks-heading"
      data-testid="settings-webhooks"
      className="rounded-xl bg-white p-6 shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
    >
      <SectionHeading
        id="settings-webhooks-heading"
        title={t`Webhooks`}
        description={
          <Trans>
            Postern POSTs events (grants, sign-ins, admin changes) as signed JSON to these endpoints, retrying failed
            deliveries for about an hour.
          </Trans>
        }
      />
      <div className="mt-4">
        {hooks.error ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {adminErrorText(i18n, hooks.error)}
          </p>
        ) : null}
        <DataTable
          label={t`Webhooks`}
          testId="webhooks-table"
          columns={columns}
          rows={hooks.data}
          rowKey={(h) => h.ID}
          defaultSort={{ id: "url" }}
          empty={<Trans>No webhooks yet.</Trans>}
          toolbar={
            <Button variant="primary" onClick={() => setOpen({ kind: "create" })}>
              <Trans>Add webhook</Trans>
            </Button>
          }
        />
      </div>
      {open.kind === "create" ? (
        <WebhookForm webhook={undefined} onClose={close} onCreated={(hook) => setOpen({ kind: "created", hook })} />
      ) : null}
      {open.kind === "edit" ? <WebhookForm webhook={open.hook} onClose={close} onCreated={close} /> : null}
      {open.kind === "created" ? (
        <Dialog
          open
          onClose={close}
          size="lg"
          title={t`Your webhook's signing secret`}
          footer={
            <Button variant="primary" onClick={close}>
              <Trans>Done</Trans>
            </Button>
          }
        >
          <p>
            <Trans>
              Copy the secret now: it is shown only once. Receivers verify each delivery's webhook-signature with it
              (Standard Webhooks).
            </Trans>
          </p>
          <Copyable
            id="webhook-secret"
            label={t`Signing secret`}
            what={t`Signing secret`}
            value={open.hook.Secret ?? ""}
          />
        </Dialog>
      ) : null}
      {open.kind === "deliveries" ? <WebhookDeliveries webhook={open.hook} onClose={close} /> : null}
      {open.kind === "delete" ? (
        <DeleteConfirm
          title={t`Delete webhook`}
          success={t`Webhook deleted`}
          name={open.hook.URL}
          mutation={remove}
          variables={open.hook.ID}
          onClose={close}
        />
      ) : null}
    </section>
  );
}

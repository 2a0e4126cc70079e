/**
 * The deliveries of one event webhook (issue #14 item 4; GET /admin/webhooks/{id}/deliveries): the latest 100,
 * latest first — when, event, result (status code or error, attempts), next attempt and the webhook-id every
 * attempt carried — with Refresh.
 */
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { Webhook, WebhookDelivery } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { DataTable } from "../../../ui/kit/DataTable.tsx";
import type { Column } from "../../../ui/kit/DataTable.tsx";
import { Dialog } from "../../../ui/kit/Dialog.tsx";
import { adminErrorText } from "../../lib/errors.ts";
import { deliveryResultText, eventLabel } from "../../lib/webhook-labels.ts";
import { webhookQueries } from "../../queries/webhooks.ts";

/** The deliveries dialog of `webhook`. */
export function WebhookDeliveries({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const deliveries = useQuery(webhookQueries.deliveries(webhook.ID));
  const time = (at: string | null): string => (at === null ? "–" : new Date(at).toLocaleString(i18n.locale));
  const columns: Column<WebhookDelivery>[] = [
    { id: "at", header: t`Time`, sortValue: (d) => Date.parse(d.CreatedAt), cell: (d) => time(d.CreatedAt) },
    {
      id: "event",
      header: t`Event`,
      searchText: (d) => `${d.EventType} ${eventLabel(i18n, d.EventType)}`,
      cell: (d) => eventLabel(i18n, d.EventType),
    },
    {
      id: "result",
      header: t`Result`,
      searchText: (d) => deliveryResultText(i18n, d),
      cell: (d) => deliveryResultText(i18n, d),
    },
    { id: "next", header: t`Next attempt`, cell: (d) => time(d.NextAttemptAt) },
    { id: "id", header: t`Webhook ID`, searchText: (d) => d.WebhookID, cell: (d) => d.WebhookID },
  ];
  return (
    <Dialog
      open
      onClose={onClose}
      size="lg"
      title={t`Deliveries to ${webhook.URL}`}
      footer={
        <>
          <Button busy={deliveries.isFetching} onClick={() => void deliveries.refetch()}>
            <Trans>Refresh</Trans>
          </Button>
          <Button variant="primary" onClick={onClose}>
            <Trans>Close</Trans>
          </Button>
        </>
      }
    >
      {deliveries.error ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {adminErrorText(i18n, deliveries.error)}
        </p>
      ) : null}
      <DataTable
        label={t`Deliveries`}
        testId="webhook-deliveries-table"
        columns={columns}
        rows={deliveries.data}
        rowKey={(d) => d.ID}
        defaultSort={{ id: "at", desc: true }}
        empty={<Trans>No deliveries yet.</Trans>}
      />
    </Dialog>
  );
}

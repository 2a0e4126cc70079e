/**
 * Event webhooks (issue #14 item 4, /api/admin/webhooks): the list (each with its last delivery), the event types,
 * one webhook's deliveries, and the writes — create (answers the signing Secret once), update, delete and a test
 * delivery — each refreshing the list and the deliveries.
 */
import { queryOptions } from "@tanstack/react-query";
import type { Webhook, WebhookCreate, WebhookDelivery, WebhookEventTypes, WebhookUpdate } from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";

const enc = encodeURIComponent;

/** Query options of the webhooks. */
export const webhookQueries = {
  all: ["admin", "webhooks"] as const,
  list: () =>
    queryOptions({
      queryKey: webhookQueries.all,
      queryFn: () => apiRequest<Webhook[]>("GET", "/admin/webhooks"),
      staleTime: StaleMs.adminList,
    }),
  events: () =>
    queryOptions({
      queryKey: ["admin", "webhook-events"] as const,
      queryFn: () => apiRequest<WebhookEventTypes>("GET", "/admin/webhooks/events"),
      staleTime: StaleMs.default,
    }),
  deliveries: (id: string) =>
    queryOptions({
      queryKey: [...webhookQueries.all, id, "deliveries"] as const,
      queryFn: () => apiRequest<WebhookDelivery[]>("GET", `/admin/webhooks/${enc(id)}/deliveries`),
      staleTime: StaleMs.adminList,
    }),
};

const useHookWrite = <V, R>(call: (vars: V) => Promise<R>) => useInvalidatingMutation(call, [webhookQueries.all]);

/** POST /api/admin/webhooks (the answer carries Secret, once). */
export const useCreateWebhook = () =>
  useHookWrite((body: WebhookCreate) => apiRequest<Webhook>("POST", "/admin/webhooks", { body }));
/** PATCH /api/admin/webhooks/{id}: the fields given change. */
export const useUpdateWebhook = () =>
  useHookWrite(({ ID, ...body }: WebhookUpdate & { ID: string }) =>
    apiRequest<Webhook>("PATCH", `/admin/webhooks/${enc(ID)}`, { body }),
  );
/** DELETE /api/admin/webhooks/{id}. */
export const useDeleteWebhook = () =>
  useHookWrite((id: string) => apiRequest<void>("DELETE", `/admin/webhooks/${enc(id)}`));
/** POST /api/admin/webhooks/{id}/test: answers the test delivery after its first attempt. */
export const useTestWebhook = () =>
  useHookWrite((id: string) => apiRequest<WebhookDelivery>("POST", `/admin/webhooks/${enc(id)}/test`));

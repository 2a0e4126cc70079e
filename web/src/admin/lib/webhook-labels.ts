/**
 * Labels of the event webhooks' event types and delivery results (issue #14 item 4; docs/admin-guide.md
 * "Webhooks"). Types are strings on the wire so that a newer server's types still show: unknown ones show as sent.
 */
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { WEBHOOK_ALL_EVENTS } from "@postern/shared";
import type { WebhookDelivery } from "@postern/shared";

const EVENT_LABELS: Record<string, MessageDescriptor> = {
  "grant.granted": msg`Access granted`,
  "grant.revoked": msg`Access revoked or expired`,
  "grant.error": msg`Grant or revoke failed`,
  "user.signin": msg`User signed in`,
  "user.signin_failed": msg`User sign-in refused`,
  "admin.signin": msg`Admin signed in`,
  "admin.signin_failed": msg`Admin sign-in refused`,
  "approval.requested": msg`Approval requested`,
  "approval.decided": msg`Approval decided`,
  "admin.change": msg`Admin change`,
  "webhook.test": msg`Test delivery`,
};

/** The translated label of an event type (the type itself when unknown). */
export function eventLabel(i18n: I18n, type: string): string {
  const descriptor = Object.hasOwn(EVENT_LABELS, type) ? EVENT_LABELS[type] : undefined;
  return descriptor === undefined ? type : i18n._(descriptor);
}

/** A webhook's events as one line: "All events", or the labels joined by commas. */
export function eventsText(i18n: I18n, events: readonly string[]): string {
  if (events.includes(WEBHOOK_ALL_EVENTS)) return i18n._(msg`All events`);
  return events.map((e) => eventLabel(i18n, e)).join(", ");
}

/**
 * A delivery's result in a few words: "Delivered (HTTP 200)", "Retrying: HTTP 500 (attempt 2)",
 * "Failed: ECONNREFUSED … (6 attempts)", or "Waiting" before its first attempt.
 */
export function deliveryResultText(i18n: I18n, d: WebhookDelivery): string {
  const answer = d.LastStatusCode !== null ? `HTTP ${d.LastStatusCode}` : d.LastError;
  const attempts = d.Attempts;
  if (d.Status === "delivered") return i18n._(msg`Delivered (${answer})`);
  if (d.Status === "failed") return i18n._(msg`Failed: ${answer} (${attempts} attempts)`);
  if (attempts === 0) return i18n._(msg`Waiting`);
  return i18n._(msg`Retrying: ${answer} (attempt ${attempts})`);
}

/**
 * Event webhooks (issue #14 item 4; docs/admin-guide.md "Webhooks", docs/decisions.md "Event webhooks"): endpoints
 * admins register at /api/admin/webhooks, the event types they subscribe to, and the deliveries Postern made.
 * Deliveries are signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature).
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { Errors } from "../errors.ts";

/**
 * The event types a webhook can subscribe to, with what raises each one (docs/decisions.md "Event webhooks").
 */
export const WEBHOOK_EVENT_TYPES = [
  "grant.granted",
  "grant.revoked",
  "grant.error",
  "user.signin",
  "user.signin_failed",
  "admin.signin",
  "admin.signin_failed",
  "approval.requested",
  "approval.decided",
  "admin.change",
] as const;
/** One event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** The type of the deliveries `POST /admin/webhooks/{id}/test` sends; no webhook subscribes to it. */
export const WEBHOOK_TEST_EVENT = "webhook.test";
/** Events: ["*"] subscribes to every event type, including those added later. */
export const WEBHOOK_ALL_EVENTS = "*";

/** Longest webhook URL accepted, characters. */
export const MAX_WEBHOOK_URL = 2048;
/** Longest description, characters. */
export const MAX_WEBHOOK_DESCRIPTION = 256;
/** Most webhooks the server keeps. */
export const MAX_WEBHOOKS = 100;
/** Most deliveries GET /admin/webhooks/{id}/deliveries lists (the latest), and most kept per webhook. */
export const MAX_WEBHOOK_DELIVERIES = 100;

/**
 * A webhook URL: absolute http:// or https:// with a host, at most MAX_WEBHOOK_URL characters; anything else fails
 * with Errors.urlMustBeHttp. Loopback and private addresses are allowed (an admin configures it).
 */
export const WebhookUrlSchema = z
  .string()
  .trim()
  .min(1, "required")
  .max(MAX_WEBHOOK_URL)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
    } catch {
      return false;
    }
  }, Errors.urlMustBeHttp.err);

/**
 * The events list: one or more distinct event types of WEBHOOK_EVENT_TYPES, or exactly ["*"] for all. An unknown
 * type fails with "Unknown event type".
 */
export const WebhookEventsSchema = z
  .array(z.string().trim())
  .min(1, "Choose at least one event")
  .refine(
    (events) => events.every((e) => e === WEBHOOK_ALL_EVENTS || (WEBHOOK_EVENT_TYPES as readonly string[]).includes(e)),
    "Unknown event type",
  )
  .refine((events) => !events.includes(WEBHOOK_ALL_EVENTS) || events.length === 1, "* must be the only entry")
  .transform((events) => [...new Set(events)]);

/** POST /api/admin/webhooks body. Description defaults to ""; Enabled to true. */
export const WebhookCreateSchema = z.object({
  URL: WebhookUrlSchema,
  Events: WebhookEventsSchema,
  Description: z.string().trim().max(MAX_WEBHOOK_DESCRIPTION).default(""),
  Enabled: z.boolean().default(true),
});
/** POST /api/admin/webhooks body. */
export type WebhookCreate = z.infer<typeof WebhookCreateSchema>;

/**
 * PATCH or PUT /api/admin/webhooks/{id} body: the fields to change (omitted ones stay). ID, when echoed, must be
 * the path's (Errors.mismatchingIds). The secret never changes; delete and create again for a new one.
 */
export const WebhookUpdateSchema = z.object({
  ID: IdSchema.optional(),
  URL: WebhookUrlSchema.optional(),
  Events: WebhookEventsSchema.optional(),
  Description: z.string().trim().max(MAX_WEBHOOK_DESCRIPTION).optional(),
  Enabled: z.boolean().optional(),
});
/** PATCH or PUT /api/admin/webhooks/{id} body. */
export type WebhookUpdate = z.infer<typeof WebhookUpdateSchema>;

/** Where a delivery stands: waiting for its next attempt, delivered (a 2xx answer), or failed for good. */
export const WebhookDeliveryStatusSchema = z.enum(["pending", "delivered", "failed"]);
/** Where a delivery stands. */
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;

/**
 * One delivery (one event to one webhook) as admins read it. WebhookID is the `webhook-id` header every attempt
 * carries (`msg_…`). Attempts counts the attempts made; LastStatusCode the last HTTP status (null: no answer),
 * LastError why the last attempt failed ("" after success), LastAttemptAt / NextAttemptAt ISO 8601 UTC (null:
 * none yet / none left). CreatedAt is when the event happened.
 */
export const WebhookDeliverySchema = z.object({
  ID: IdSchema,
  WebhookID: z.string(),
  EventType: z.string(),
  Status: WebhookDeliveryStatusSchema,
  Attempts: z.number().int(),
  LastStatusCode: z.number().int().nullable(),
  LastError: z.string(),
  LastAttemptAt: z.string().nullable(),
  NextAttemptAt: z.string().nullable(),
  CreatedAt: z.string(),
});
/** One delivery as admins read it. */
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/**
 * A webhook as admins read it. LastDelivery is its latest delivery (null: none yet). `Secret` (`whsec_` + base64
 * of 32 random bytes) is present only in the create response: it is stored sealed and never shown again.
 */
export const WebhookSchema = z.object({
  ID: IdSchema,
  URL: z.string(),
  Events: z.array(z.string()),
  Description: z.string(),
  Enabled: z.boolean(),
  CreatedAt: z.string(),
  LastDelivery: WebhookDeliverySchema.nullable(),
  Secret: z.string().optional(),
});
/** A webhook as admins read it. */
export type Webhook = z.infer<typeof WebhookSchema>;

/** GET /api/admin/webhooks/events: every event type a webhook can subscribe to, with a one-line description. */
export const WebhookEventTypesSchema = z.array(z.object({ Type: z.string(), Description: z.string() }));
/** GET /api/admin/webhooks/events answer. */
export type WebhookEventTypes = z.infer<typeof WebhookEventTypesSchema>;

/**
 * The JSON body of every delivery (Standard Webhooks payload shape): `type` the event type, `timestamp` ISO 8601
 * UTC of the event, `data` what the audit entry says (PascalCase fields; empty ones left out).
 */
export const WebhookPayloadSchema = z.object({
  type: z.string(),
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
});
/** The JSON body of a delivery. */
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

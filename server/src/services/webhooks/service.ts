/**
 * Event webhooks as admins manage them (issue #14 item 4; /api/admin/webhooks; docs/admin-guide.md "Webhooks"):
 * list with the last delivery, create (answers the signing secret once; stored sealed), change, delete, the event
 * types, a test delivery, and the deliveries of one webhook. Every change is audited (webhookCreated/Updated/
 * Deleted, which raise `admin.change`). Deliveries themselves are the dispatcher's (dispatcher.ts).
 */
import { randomBytes } from "node:crypto";
import { Errors, MAX_WEBHOOK_DELIVERIES, MAX_WEBHOOKS, WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from "@postern/shared";
import type {
  Webhook,
  WebhookCreate,
  WebhookDelivery,
  WebhookEventTypes,
  WebhookPayload,
  WebhookUpdate,
} from "@postern/shared";
import type { Db, Tx } from "../../db/index.ts";
import type { Clock } from "../../clock.ts";
import { iso } from "../../clock.ts";
import { AppError } from "../../errors.ts";
import * as auditRepo from "../../repositories/audit.ts";
import * as auditOutbox from "../../repositories/audit-outbox.ts";
import * as repo from "../../repositories/webhooks.ts";
import type { WebhookDeliveryRow, WebhookRow } from "../../repositories/webhooks.ts";
import { AuditAction, writeAudit } from "../audit.ts";
import type { Actor } from "../agents.ts";
import { newId } from "../auth/tokens.ts";
import type { SecretBox } from "../secrets/at-rest.ts";
import { EVENT_DESCRIPTIONS } from "./events.ts";
import { newMessageId, secretPurpose } from "./dispatcher.ts";
import type { WebhookDispatcher } from "./dispatcher.ts";

/** Random bytes of a new signing secret (Standard Webhooks recommends 24–64). */
export const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of SECRET_BYTES random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** A delivery row on the wire. */
export function deliveryView(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    ID: row.id,
    WebhookID: row.messageId,
    EventType: row.eventType,
    Status: row.status,
    Attempts: row.attempts,
    LastStatusCode: row.lastStatusCode,
    LastError: row.lastError,
    LastAttemptAt: iso(row.lastAttemptAt),
    NextAttemptAt: row.status === "pending" ? iso(row.nextAttemptAt) : null,
    CreatedAt: iso(row.createdAt)!,
  };
}

/** The scheme, host and port of a URL: what the audit log names (a path or query may carry a token). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

/** The admin side of event webhooks. */
export class WebhookService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly secrets: SecretBox;
  private readonly dispatcher: WebhookDispatcher;

  constructor(deps: { db: Db; clock: Clock; secrets: SecretBox; dispatcher: WebhookDispatcher }) {
    this.db = deps.db;
    this.clock = deps.clock;
    this.secrets = deps.secrets;
    this.dispatcher = deps.dispatcher;
  }

  /** GET /admin/webhooks/events: every event type with what raises it. */
  eventTypes(): WebhookEventTypes {
    return WEBHOOK_EVENT_TYPES.map((Type) => ({ Type, Description: EVENT_DESCRIPTIONS[Type] }));
  }

  /** GET /admin/webhooks: every webhook, oldest first, each with its latest delivery. */
  async list(): Promise<Webhook[]> {
    const rows = await repo.listWebhooks(this.db);
    return await Promise.all(rows.map((row) => this.view(row)));
  }

  /** One webhook; throws 404 when unknown. */
  async get(id: string): Promise<Webhook> {
    return await this.view(await this.require(id));
  }

  /**
   * POST /admin/webhooks: registers an endpoint and answers it with its `Secret` (shown this once). It is sent only
   * events raised after it exists. Throws 400 beyond MAX_WEBHOOKS.
   */
  async create(body: WebhookCreate, actor: Actor): Promise<Webhook> {
    const id = newId();
    const secret = newWebhookSecret();
    const now = this.clock.now();
    await this.db.transaction(async (tx) => {
      if ((await repo.countWebhooks(tx)) >= MAX_WEBHOOKS)
        throw new AppError(Errors.badRequest, `at most ${MAX_WEBHOOKS} webhooks`);
      await repo.insertWebhook(tx, {
        id,
        url: body.URL,
        events: body.Events,
        description: body.Description,
        enabled: body.Enabled,
        secretSealed: this.secrets.seal(secretPurpose(id), secret),
        sinceAuditId: await auditRepo.maxAuditId(tx),
        createdAt: now,
      });
      await this.followIfEnabled(tx);
      await this.audit(tx, AuditAction.webhookCreated, actor, body.URL, body.Description);
    });
    return { ...(await this.get(id)), Secret: secret };
  }

  /** PATCH/PUT /admin/webhooks/{id}: changes the fields given. Throws 404 when unknown. */
  async update(id: string, body: WebhookUpdate, actor: Actor): Promise<Webhook> {
    const row = await this.require(id);
    await this.db.transaction(async (tx) => {
      await repo.updateWebhook(tx, row.id, {
        ...(body.URL !== undefined ? { url: body.URL } : {}),
        ...(body.Events !== undefined ? { events: body.Events } : {}),
        ...(body.Description !== undefined ? { description: body.Description } : {}),
        ...(body.Enabled !== undefined ? { enabled: body.Enabled } : {}),
      });
      await this.followIfEnabled(tx);
      await this.audit(tx, AuditAction.webhookUpdated, actor, body.URL ?? row.url, body.Description ?? row.description);
    });
    return await this.get(row.id);
  }

  /** DELETE /admin/webhooks/{id}: deletes it with its deliveries (pending ones are not sent). 404 when unknown. */
  async delete(id: string, actor: Actor): Promise<void> {
    const row = await this.require(id);
    await this.db.transaction(async (tx) => {
      await repo.deleteWebhook(tx, row.id);
      await this.followIfEnabled(tx);
      await this.audit(tx, AuditAction.webhookDeleted, actor, row.url, row.description);
    });
  }

  /**
   * POST /admin/webhooks/{id}/test: queues a `webhook.test` delivery (retried like any other) and makes its first
   * attempt now, answering the delivery as it stands after that attempt (at most the delivery timeout). Works for
   * a disabled webhook too. 404 when unknown.
   */
  async test(id: string, actor: Actor): Promise<WebhookDelivery> {
    const row = await this.require(id);
    const now = this.clock.now();
    const payload: WebhookPayload = {
      type: WEBHOOK_TEST_EVENT,
      timestamp: new Date(now).toISOString(),
      data: { WebhookID: row.id, AdminName: actor.adminName, Description: "A test delivery from Postern" },
    };
    const deliveryId = newId();
    // Inserted already claimed (nextAttemptAt is the attempt's lease), so the background run leaves it to us.
    await repo.insertDeliveries(this.db, [
      {
        id: deliveryId,
        webhookId: row.id,
        auditId: null,
        messageId: newMessageId(),
        eventType: WEBHOOK_TEST_EVENT,
        payload: JSON.stringify(payload),
        status: "pending",
        nextAttemptAt: this.dispatcher.leaseUntil(now),
        createdAt: now,
      },
    ]);
    const claimed = await repo.getDelivery(this.db, deliveryId);
    const after =
      (claimed && (await this.dispatcher.deliver(claimed))) ?? (await repo.getDelivery(this.db, deliveryId));
    if (!after) throw new AppError(Errors.notFound, "webhook");
    return deliveryView(after);
  }

  /** GET /admin/webhooks/{id}/deliveries: its latest MAX_WEBHOOK_DELIVERIES deliveries, latest first. */
  async deliveries(id: string): Promise<WebhookDelivery[]> {
    const row = await this.require(id);
    return (await repo.latestDeliveries(this.db, row.id, MAX_WEBHOOK_DELIVERIES)).map(deliveryView);
  }

  private async require(id: string): Promise<WebhookRow> {
    const row = await repo.getWebhook(this.db, id.toLowerCase());
    if (!row) throw new AppError(Errors.notFound, "webhook");
    return row;
  }

  private async view(row: WebhookRow): Promise<Webhook> {
    const last = (await repo.latestDeliveries(this.db, row.id, 1))[0];
    return {
      ID: row.id,
      URL: row.url,
      Events: row.events,
      Description: row.description,
      Enabled: row.enabled,
      CreatedAt: iso(row.createdAt)!,
      LastDelivery: last ? deliveryView(last) : null,
    };
  }

  /**
   * Follows the audit log for the webhooks while one is enabled (docs/decisions.md "Following the audit log"), in
   * the change's transaction `tx`, before its audit entry: so that entry is queued too.
   */
  private async followIfEnabled(tx: Tx): Promise<void> {
    await auditOutbox.setFollowerActive(tx, "webhooks", await repo.anyEnabledWebhook(tx));
  }

  /**
   * The audit entry of a change, written in the change's transaction `tx`.
   */
  private async audit(
    tx: Tx,
    action: (typeof AuditAction)[keyof typeof AuditAction],
    actor: Actor,
    url: string,
    description: string,
  ): Promise<void> {
    await writeAudit(tx, {
      action,
      at: this.clock.now(),
      adminName: actor.adminName,
      ipAddress: actor.ip,
      description: description === "" ? originOf(url) : `${description} (${originOf(url)})`,
    });
  }
}

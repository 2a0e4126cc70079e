/**
 * The event webhook dispatcher (issue #14 item 4; docs/decisions.md "Event webhooks"). Two steps, both off the
 * request path:
 *
 * 1. Collect: it takes the audit entries queued for it (repositories/audit-outbox.ts: while a webhook is enabled, a
 *    trigger queues every entry in the entry's own transaction; docs/decisions.md "Following the audit log") and
 *    turns each that raises an event (events.ts) into one outbox row per enabled webhook that subscribes to it,
 *    in one transaction. A rolled-back change wrote no entry, so it raises no event; an entry that commits after
 *    a higher one was taken is still taken. The outbox rows are unique per (webhook, entry): collecting again
 *    inserts nothing twice.
 * 2. Deliver: every pending row that is due is claimed (its next attempt moved out by a lease, so a crash mid-
 *    attempt retries it later), POSTed as JSON signed the Standard Webhooks way with a bounded timeout, and its
 *    outcome recorded: a 2xx answer delivers it; anything else (another status, a redirect, a timeout, a refused
 *    connection) schedules the next attempt after the retry schedule, under the same `webhook-id`, until the
 *    attempts are used up (then it is failed).
 *
 * The audit writer's `auditWritten` signal wakes it at once (on the next turn of the event loop, after the
 * writer's transaction); otherwise it polls every `pollIntervalMs`. Requests never wait for it.
 */
import { randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { MAX_WEBHOOK_DELIVERIES } from "@postern/shared";
import type { Db } from "../../db/index.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import type { SecretBox } from "../secrets/at-rest.ts";
import { auditWritten } from "../audit.ts";
import * as auditOutbox from "../../repositories/audit-outbox.ts";
import * as repo from "../../repositories/webhooks.ts";
import type { NewWebhookDelivery, WebhookDeliveryRow } from "../../repositories/webhooks.ts";
import { eventTypeOf, payloadOf, subscribes } from "./events.ts";
import { claimJob } from "../../repositories/jobs.ts";

/** The delays before the retries, ms: 5 s, 30 s, 2 min, 10 min, 1 h (so at most 6 attempts). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000];
/** How long one attempt may take, ms (connect, send, answer). */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/** The SecretBox purpose a webhook's signing secret is sealed for. */
export function secretPurpose(webhookId: string): string {
  return `webhook.secret:${webhookId}`;
}

/** The `webhook-id` of a new delivery: `msg_` and 32 hex digits. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}

/** Options of the dispatcher. Durations in milliseconds. */
export interface WebhookDispatcherOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  secrets: SecretBox;
  /** Delays before each retry (default DEFAULT_RETRY_SCHEDULE_MS); attempts = its length + 1. */
  retryScheduleMs?: readonly number[];
  /** Timeout of one attempt (default DEFAULT_DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** Poll interval when nothing wakes it (default 1000). */
  pollIntervalMs?: number;
  /** Audit entries read per batch (default 500). */
  batchSize?: number;
  /** Deliveries attempted at once (default 8). */
  concurrency?: number;
}

/** The outcome of one attempt: the status answered (null: none) and the error ("" on success). */
interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string;
}

/** Collects events from the audit log into the outbox and delivers them. Start once; stop before closing the db. */
export class WebhookDispatcher {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly secrets: SecretBox;
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborted by `stop`: attempts in flight end at once and are not recorded. */
  private stopping = new AbortController();
  private readonly wake = () => this.kick();

  constructor(opts: WebhookDispatcherOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.log = opts.log;
    this.secrets = opts.secrets;
    this.schedule = opts.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1000;
    this.batchSize = opts.batchSize ?? 500;
    this.concurrency = opts.concurrency ?? 8;
  }

  /** Most attempts one delivery gets. */
  get maxAttempts(): number {
    return this.schedule.length + 1;
  }

  /** Starts following the audit log and delivering (idempotent). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    auditWritten.add(this.wake);
    this.kick();
  }

  /** Stops; aborts the attempts in progress (they are retried after the next start) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    auditWritten.delete(this.wake);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Runs a collect-and-deliver step soon (coalesced). */
  private kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runOnce().then(() => this.scheduleNext());
    }, 0).unref();
  }

  private scheduleNext(): void {
    if (this.stopped || this.timer) return;
    if (this.again) {
      this.again = false;
      this.kick();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runOnce().then(() => this.scheduleNext());
    }, this.pollIntervalMs).unref();
  }

  /**
   * One step: collects new events into the outbox, then starts the attempts that are due (without waiting for
   * them). Never throws (failures are logged). Concurrent calls share one run.
   */
  runOnce(): Promise<void> {
    this.running ??= this.step().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Collects, starts the due attempts and waits for them: for tests that need the outcome. */
  async settle(): Promise<void> {
    await this.runOnce();
    await Promise.allSettled([...this.inFlight]);
  }

  private async step(): Promise<void> {
    try {
      await this.collect();
      await this.startDue();
    } catch (err) {
      this.log.warn({ err }, "webhook dispatch failed; retrying");
    }
  }

  /**
   * Turns the audit entries queued for the webhooks into outbox rows (see the module comment), in one
   * transaction that replicas take in turn (repositories/jobs.ts): returns how many were queued, 0 when
   * another replica is collecting. With nothing queued (no webhook enabled, or all taken) it opens no transaction.
   */
  async collect(): Promise<number> {
    if (!(await auditOutbox.anyQueued(this.db, "webhooks"))) return 0;
    return await this.db.transaction(async (tx) =>
      (await claimJob(tx, "webhook-collect")) ? await this.collectBatches() : 0,
    );
  }

  /** `collect`'s work, inside its transaction (the root handle's statements run in it). */
  private async collectBatches(): Promise<number> {
    const hooks = await repo.listEnabledWebhooks(this.db);
    let queued = 0;
    for (;;) {
      const rows = await auditOutbox.takeQueued(this.db, "webhooks", this.batchSize);
      const deliveries: NewWebhookDelivery[] = [];
      for (const row of rows) {
        const type = eventTypeOf(row.action);
        if (!type) continue;
        const payload = JSON.stringify(payloadOf(type, row));
        for (const hook of hooks) {
          // An entry numbered before the webhook existed (a transaction older than it) is not its event.
          if (row.id <= hook.sinceAuditId || !subscribes(hook.events, type)) continue;
          deliveries.push({
            id: randomUUID(),
            webhookId: hook.id,
            auditId: row.id,
            messageId: newMessageId(),
            eventType: type,
            payload,
            status: "pending",
            nextAttemptAt: row.at,
            createdAt: row.at,
          });
        }
      }
      await repo.insertDeliveries(this.db, deliveries);
      queued += deliveries.length;
      if (rows.length < this.batchSize) return queued;
    }
  }

  private async startDue(): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    for (const id of await repo.dueDeliveryIds(this.db, this.clock.now(), free)) {
      const p = this.attempt(id).finally(() => {
        this.inFlight.delete(p);
        this.kick();
      });
      this.inFlight.add(p);
    }
  }

  /**
   * Makes one attempt of delivery `id` if it is pending and due (claiming it first); returns the delivery as it
   * stands afterwards, or undefined when it was not due or no longer exists. Never throws.
   */
  async attempt(id: string): Promise<WebhookDeliveryRow | undefined> {
    const now = this.clock.now();
    const claimed = await repo.claimDelivery(this.db, id, now, this.leaseUntil(now));
    if (!claimed) return undefined;
    return await this.deliver(claimed);
  }

  /** Until when an attempt starting at `now` (epoch ms) holds its delivery: the timeout and 5 s. */
  leaseUntil(now: number): number {
    return now + this.timeoutMs + 5_000;
  }

  /**
   * Makes one attempt of a delivery already claimed (its nextAttemptAt set to a lease, e.g. inserted so by a
   * test delivery) and records the outcome; returns the delivery as it stands afterwards, undefined when its
   * webhook is gone or the dispatcher stopped during the attempt (then the lease lets the next start retry it).
   * Never throws.
   */
  async deliver(claimed: WebhookDeliveryRow): Promise<WebhookDeliveryRow | undefined> {
    const id = claimed.id;
    const hook = await repo.getWebhook(this.db, claimed.webhookId);
    if (!hook) return undefined;
    let outcome: AttemptOutcome;
    try {
      const secret = this.secrets.open(secretPurpose(hook.id), hook.secretSealed);
      outcome = await this.post(hook.url, secret, claimed.messageId, claimed.payload);
    } catch (err) {
      outcome = { ok: false, statusCode: null, error: err instanceof Error ? err.message : String(err) };
    }
    if (this.stopping.signal.aborted) return undefined;
    const attempts = claimed.attempts + 1;
    const done = this.clock.now();
    const retry = !outcome.ok && attempts < this.maxAttempts;
    const status = outcome.ok ? "delivered" : retry ? "pending" : "failed";
    const next = retry ? done + (this.schedule[attempts - 1] ?? 0) : null;
    await repo.recordAttempt(this.db, id, {
      status,
      attempts,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.error,
      lastAttemptAt: done,
      nextAttemptAt: next,
    });
    if (!outcome.ok) {
      const fields = { webhook: hook.url, delivery: id, attempts, status: outcome.statusCode, error: outcome.error };
      if (retry) this.log.debug(fields, "webhook delivery failed; retrying");
      else this.log.warn(fields, "webhook delivery failed for good");
    }
    await repo.pruneDeliveries(this.db, hook.id, MAX_WEBHOOK_DELIVERIES);
    return await repo.getDelivery(this.db, id);
  }

  /** POSTs one signed delivery; resolves to its outcome (throws only when the secret cannot be used). */
  private async post(url: string, secret: string, messageId: string, body: string): Promise<AttemptOutcome> {
    const seconds = Math.floor(this.clock.now() / 1000);
    const signature = new Webhook(secret).sign(messageId, new Date(seconds * 1000), body);
    const headers = {
      "content-type": "application/json",
      "user-agent": "Postern-Webhooks/1",
      "webhook-id": messageId,
      "webhook-timestamp": String(seconds),
      "webhook-signature": signature,
    };
    try {
      const res = await fetch(url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stopping.signal]),
      });
      await res.body?.cancel().catch(() => undefined);
      if (res.status >= 200 && res.status < 300) return { ok: true, statusCode: res.status, error: "" };
      return { ok: false, statusCode: res.status, error: `HTTP ${res.status}` };
    } catch (err) {
      return { ok: false, statusCode: null, error: describeFetchError(err, this.timeoutMs) };
    }
  }
}

/** A short reason for a failed fetch: "timed out after N ms", or the cause's code and message. */
function describeFetchError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError"))
    return `timed out after ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.message) return cause.code ? `${cause.code}: ${cause.message}` : cause.message;
  return err instanceof Error ? err.message : String(err);
}

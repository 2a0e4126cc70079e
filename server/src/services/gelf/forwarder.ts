/**
 * GELF forwarding of the audit log (docs/reference.md admin-console §3 GELFListenerURL, §5 "Logging ... log
 * listener"). While GELFListenerURL is set, every audit entry is sent to that listener as a GELF 1.1
 * message (see message.ts), lowest sequence number first.
 *
 * The forwarder follows the audit log through its queue (repositories/audit-outbox.ts; docs/decisions.md
 * "Following the audit log"): while forwarding is on, a trigger queues every entry for it in the entry's own
 * transaction, so an entry is sent only once its transaction committed (a rolled-back change is never sent),
 * none is skipped when transactions commit out of order, and a restart resumes with what is still queued. Every
 * second it claims a bounded batch (a lease of LEASE_MS; while one replica's batch is leased the others send
 * nothing, so one replica sends at a time, in order, and each entry once), sends it, and removes it from the
 * queue; GELFForwardedID keeps the highest number sent. Delivery is at-most-once past the hand-over to the
 * operating system (GELF has no acknowledgements): a connection that breaks may lose what was in flight; a
 * listener that cannot be reached delays forwarding (the batch goes back to the queue, retried with backoff)
 * but loses nothing, and a replica that dies mid-send leaves its batch to the others once the lease runs out.
 *
 * Enabling (a URL appears while GELFForwardedID is -1, "not forwarding") starts the queue with the entries of
 * the last `startWindowMs` (the change that set the URL and anything written since); clearing the URL
 * stops forwarding, drops the queue and resets GELFForwardedID to -1. Changing the URL or GELFCACertificate
 * reconnects and continues with the queue.
 */
import { hostname } from "node:os";
import type { Db } from "../../db/index.ts";
import type { Clock } from "../../clock.ts";
import type { Logger } from "../../logger.ts";
import * as auditRepo from "../../repositories/audit.ts";
import * as outbox from "../../repositories/audit-outbox.ts";
import { getSetting, setSetting } from "../settings.ts";
import { encodeGelf, gelfMessage } from "./message.ts";
import { openTransport, parseGelfUrl } from "./transport.ts";
import type { GelfTarget, GelfTransport, TransportTimeouts } from "./transport.ts";

/** GELFForwardedID while forwarding is off. */
const NOT_FORWARDING = -1;
/** How long a claimed batch is this replica's to send, ms (more than a connect and a write take at most). */
export const LEASE_MS = 60_000;

/** Options of the forwarder. Every duration is in milliseconds. */
export interface GelfForwarderOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  /** Poll interval (default 1000). */
  intervalMs?: number;
  /** Entries per batch (default 200). */
  batchSize?: number;
  /** Batches per poll before yielding to the event loop (default 10; more waiting → next poll at once). */
  maxBatchesPerPoll?: number;
  /** Reconnect backoff after a failure: `initial`, doubling up to `max` (default 1000 → 30000). */
  backoffMs?: { initial: number; max: number };
  /** Connect and write timeouts (default 5000 and 10000). */
  timeouts?: TransportTimeouts;
  /** How far back enabling starts (default 5000). */
  startWindowMs?: number;
  /** The GELF `host` field (default the machine's host name). */
  host?: string;
}

/** Forwards the audit log to the GELF listener of the settings. Start once; stop before closing the database. */
export class GelfForwarder {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly maxBatchesPerPoll: number;
  private readonly backoff: { initial: number; max: number };
  private readonly timeouts: TransportTimeouts;
  private readonly startWindowMs: number;
  private readonly host: string;

  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<number> | null = null;
  /** More entries were waiting when the last poll ended. */
  private behind = false;

  /** URL and CA the current transport was opened for ("" when none). */
  private connectedFor = "";
  private transport: GelfTransport | null = null;
  private failures = 0;
  private retryAt = 0;
  private warnedUrl = "";

  constructor(opts: GelfForwarderOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.log = opts.log;
    this.intervalMs = opts.intervalMs ?? 1000;
    this.batchSize = opts.batchSize ?? 200;
    this.maxBatchesPerPoll = opts.maxBatchesPerPoll ?? 10;
    this.backoff = opts.backoffMs ?? { initial: 1000, max: 30_000 };
    this.timeouts = opts.timeouts ?? { connectMs: 5000, writeMs: 10_000 };
    this.startWindowMs = opts.startWindowMs ?? 5000;
    this.host = opts.host ?? hostname();
  }

  /** Starts polling (idempotent). */
  start(): void {
    if (this.timer || this.stopped) return;
    const loop = () => {
      this.timer = null;
      if (this.stopped) return;
      void this.poll().then(() => {
        if (!this.stopped) this.timer = setTimeout(loop, this.behind ? 0 : this.intervalMs).unref();
      });
    };
    this.timer = setTimeout(loop, 0).unref();
  }

  /** Stops polling, waits for a poll in progress and closes the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.disconnect();
  }

  /**
   * Forwards what is waiting now (at most `maxBatchesPerPoll` batches) and returns how many entries
   * were sent. Never throws: failures are logged and retried after the backoff. Concurrent calls
   * share one run.
   */
  poll(): Promise<number> {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private disconnect(): void {
    this.transport?.close();
    this.transport = null;
    this.connectedFor = "";
  }

  private async run(): Promise<number> {
    this.behind = false;
    let sent = 0;
    try {
      const url = (await getSetting(this.db, "GELFListenerURL")).trim();
      if (url === "") {
        this.disconnect();
        this.failures = 0;
        this.retryAt = 0;
        if ((await getSetting(this.db, "GELFForwardedID")) !== NOT_FORWARDING) await this.stopForwarding();
        return 0;
      }
      const target = parseGelfUrl(url);
      if (!target) {
        this.disconnect();
        if (this.warnedUrl !== url)
          this.log.warn(
            { url },
            "GELFListenerURL is not udp://, tcp:// or tls://host:port: audit entries are not forwarded",
          );
        this.warnedUrl = url;
        return 0;
      }
      const ca = await getSetting(this.db, "GELFCACertificate");
      const wanted = `${url}\n${ca}`;
      if (this.connectedFor !== wanted && this.transport) this.disconnect();
      if ((await getSetting(this.db, "GELFForwardedID")) < 0 || !(await outbox.followerActive(this.db, "gelf")))
        await this.startForwarding();
      if (Date.now() < this.retryAt) return 0;
      for (let batch = 0; batch < this.maxBatchesPerPoll; batch++) {
        if (!(await outbox.anyQueued(this.db, "gelf"))) return sent;
        const now = this.clock.now();
        const rows = await this.db.transaction(
          async (tx) => await outbox.claimQueued(tx, "gelf", now, now + LEASE_MS, this.batchSize),
        );
        const last = rows.at(-1);
        if (!last) return sent;
        const ids = rows.map((row) => row.id);
        try {
          const transport = await this.connect(target, ca, wanted);
          await transport.send(rows.map((row) => encodeGelf(gelfMessage(row, this.host))));
        } catch (err) {
          await outbox.unclaimQueued(this.db, "gelf", ids);
          throw err;
        }
        await this.db.transaction(async (tx) => {
          await outbox.removeQueued(tx, "gelf", ids);
          const highest = Math.max(...ids);
          if (highest > (await getSetting(tx, "GELFForwardedID"))) await setSetting(tx, "GELFForwardedID", highest);
        });
        sent += rows.length;
        if (this.failures > 0) this.log.info({ url }, "GELF forwarding resumed");
        this.failures = 0;
        if (rows.length < this.batchSize) return sent;
        if (this.stopped) return sent;
      }
      this.behind = true;
      return sent;
    } catch (err) {
      this.disconnect();
      this.failures += 1;
      const delay = Math.min(this.backoff.max, this.backoff.initial * 2 ** Math.min(this.failures - 1, 20));
      this.retryAt = Date.now() + delay;
      const fields = { err, failures: this.failures, retryInMs: delay };
      if (this.failures === 1) this.log.warn(fields, "GELF forwarding failed; retrying");
      else this.log.debug(fields, "GELF forwarding failed again");
      return sent;
    }
  }

  /**
   * Turns forwarding on: queues the entries numbered after the last one written before the start window (so a
   * forwarder turned off and on again within the window sends those again); the trigger queues every later one.
   */
  private async startForwarding(): Promise<void> {
    const since = this.clock.now() - this.startWindowMs;
    await this.db.transaction(async (tx) => {
      const forwarded = await getSetting(tx, "GELFForwardedID");
      const activated = await outbox.setFollowerActive(tx, "gelf", true);
      if (forwarded >= 0 && !activated) return; // another replica turned it on
      const start = await auditRepo.maxAuditIdBefore(tx, since);
      await outbox.queueEntriesAfter(tx, "gelf", start);
      if (forwarded < 0) await setSetting(tx, "GELFForwardedID", start);
    });
  }

  /** Turns forwarding off: nothing more is queued, the queue is dropped, GELFForwardedID is -1. */
  private async stopForwarding(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await outbox.setFollowerActive(tx, "gelf", false);
      await setSetting(tx, "GELFForwardedID", NOT_FORWARDING);
    });
  }

  private async connect(target: GelfTarget, ca: string, wanted: string): Promise<GelfTransport> {
    if (this.transport?.usable) return this.transport;
    this.disconnect();
    this.transport = await openTransport(target, this.timeouts, ca);
    this.connectedFor = wanted;
    return this.transport;
  }
}

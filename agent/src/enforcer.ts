/**
 * The reconciler (docs/reference.md design "Agent protocol"): holds the desired state the server pushed — targets with
 * their entries, each entry an address with an absolute expiry — and makes the backends match it.
 *
 * - `sync` replaces the desired state wholesale and reconciles every target against what it holds
 *   (`backend.forEachListed`, streamed, when the backend has it; `backend.list()` otherwise): every
 *   desired entry is (re-)added (which refreshes native timeouts), every extra address is removed,
 *   targets that left the desired state are emptied; a backend with `settle` finishes its deferred
 *   work (HAProxy's ACL file rewrite) before the sync is acknowledged.
 * - `apply` processes incremental ops in order, batched per target (one `add` and one `remove` call).
 * - Every message (and every internal task: expiry, drift repair, startup) updates the desired state
 *   strictly one after the other through one queue; the backend calls it causes run on a queue per
 *   driver (issue #10 item 3: a slow vendor commit never delays an ipset grant), first in first out
 *   per target, at most the driver's `concurrency` at once. `sync`/`apply` resolve to the `ack` with
 *   one EntryResult per (key, ip, op) once their calls are done.
 * - Expiry fails closed: a timer removes entries at their `expiresAt` with or without a server, and an
 *   entry whose expiry has passed is never added.
 * - Drift repair: every `driftCheckSeconds` each target is re-read (no more often than its driver's
 *   `driftIntervalMs`) and missing entries re-added, extra ones removed (e.g. after an HAProxy reload
 *   dropped runtime entries). A driver with `replace` gets the whole content at once on a full
 *   reconcile; a driver with `commit` has it run after each batch that changed something.
 * - The desired state is persisted (atomic write, mode 0600) so that after a restart without a server the
 *   agent still enforces and expires; `start()` loads it and reconciles.
 *
 * Targets are compared by what they physically address (backend config + ACL config, not the ACL key):
 * two keys on the same HAProxy ACL or ipset share it, an address leaves it only when no key holds it,
 * and a key whose target configuration changed has its old target emptied.
 */
import { readFile, rename } from "node:fs/promises";
import { pino } from "pino";
import type { Logger } from "pino";
import { z } from "zod";
import { TargetSchema } from "@postern/shared";
import type { AgentToServer, Entry, EntryResult, Op, Target, TargetState } from "@postern/shared";
import type { AddHints, Backend, EntryOutcome } from "./backends/backend.ts";
import type { Driver, DriverResolver } from "./backends/driver.ts";
import { GroupQueues } from "./backends/queues.ts";
import { StaticDrivers, stableStringify } from "./backends/registry.ts";
import { writeFileAtomic } from "./config.ts";
import { EntryTable, liveEntries, StringPool } from "./entry-table.ts";
import type { WantedEntries } from "./entry-table.ts";
import { canonicalIp } from "./ip.ts";

/** A cancellable timer handle. */
export interface TimerHandle {
  cancel(): void;
}

/** The clock the enforcer reads: `now()` in epoch milliseconds, and one-shot timers (`ms` milliseconds). */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): TimerHandle;
}

/** The real clock: Date.now and setTimeout. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** The `ack` message the enforcer produces for `sync` and `apply`. */
export type AckMessage = Extract<AgentToServer, { type: "ack" }>;

/** Options of {@link Enforcer}. */
export interface EnforcerOptions {
  /** The drivers (a `DriverSet`), or fixed backends by BackendConfig key (`haproxy`, `ipset`, ...). */
  readonly backends: ReadonlyMap<string, Backend> | DriverResolver;
  /** Where the desired state is persisted; none when omitted (tests). */
  readonly stateFile?: string;
  /** Seconds between two drift checks (default 5); 0 disables the periodic check. */
  readonly driftCheckSeconds?: number;
  /** Clock (default {@link systemClock}). */
  readonly clock?: Clock;
  /** Logger (default silent). */
  readonly logger?: Logger;
  /** Milliseconds after which a change that only adds is persisted (default 200); removals are persisted at once. */
  readonly persistDelayMs?: number;
  /**
   * Called after each drift check with how many addresses the targets listed in it (the daemon gives
   * the listings' memory back after a large one: reclaim.ts). Errors it throws are logged.
   */
  readonly onDriftChecked?: (listed: number) => void;
}

/** Longest single timer wait in milliseconds (setTimeout overflows past 2^31-1; wall clock may jump). */
const MAX_TIMER_MS = 60_000;
const STATE_VERSION = 1;

const StateFileSchema = z.object({
  version: z.literal(STATE_VERSION),
  savedAt: z.number(),
  targets: z.array(
    z.object({ target: TargetSchema, entries: z.array(z.object({ ip: z.string(), expiresAt: z.number() })) }),
  ),
  retired: z.array(TargetSchema).default([]),
});

interface KeyState {
  target: Target;
  /** Physical id of `target`. */
  pid: string;
  /** Normalised address → absolute expiry (epoch ms), with the user names the server gave. */
  entries: EntryTable;
}

/** Outcomes of one physical target's backend calls, by normalised address. */
interface PhysicalOutcome {
  added: Map<string, EntryOutcome>;
  removed: Map<string, EntryOutcome>;
  listError?: string;
}

/** The physical identity of a target: what it addresses on this host, independent of the ACL key. */
export function physicalId(target: Target): string {
  return stableStringify({ backend: target.backend, acl: target.acl });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function normalise(ip: string): string | null {
  return canonicalIp(ip);
}

/** Collects ack rows, one per (key, ip, op), in first-seen order. */
class ResultRows {
  readonly #rows = new Map<string, EntryResult>();
  set(key: string, ip: string, op: "add" | "del", ok: boolean, error?: string): void {
    const row: EntryResult = error === undefined ? { key, ip, op, ok } : { key, ip, op, ok, error };
    this.#rows.set(`${key}\u0000${ip}\u0000${op}`, row);
  }
  get(key: string, ip: string, op: "add" | "del"): EntryResult | undefined {
    return this.#rows.get(`${key}\u0000${ip}\u0000${op}`);
  }
  list(): EntryResult[] {
    return [...this.#rows.values()];
  }
}

/**
 * The reconciler. Create it, `await start()`, feed it `sync`/`apply` messages, `await stop()` at the end.
 * All public operations are serialised through one queue.
 */
export class Enforcer {
  readonly #drivers: DriverResolver;
  readonly #queues = new GroupQueues();
  /** The queue group of targets without a driver (their calls fail at once). */
  readonly #noDriver = {};
  /** Physical id → when drift was last re-read (epoch ms). */
  readonly #lastDrift = new Map<string, number>();
  readonly #onDriftChecked: ((listed: number) => void) | undefined;
  /** Addresses the targets listed in the drift check under way. */
  #driftListed = 0;
  readonly #stateFile: string | undefined;
  readonly #driftMs: number;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #persistDelayMs: number;

  /** ACL key → desired target state. */
  #desired = new Map<string, KeyState>();
  /** pid → how many reconciles of it have finished (AddHints: what an apply believed absent may be stale). */
  readonly #reconciled = new Map<string, number>();
  /** Physical id → target that no key uses any more and that still has to be emptied. */
  #retired = new Map<string, Target>();

  #queue: Promise<unknown> = Promise.resolve();
  #started = false;
  #stopped = false;
  #expiryTimer: TimerHandle | undefined;
  #driftTimer: TimerHandle | undefined;
  #persistTimer: TimerHandle | undefined;
  #dirty = false;
  #writes: Promise<void> = Promise.resolve();

  constructor(options: EnforcerOptions) {
    this.#drivers =
      options.backends instanceof Map ? new StaticDrivers(options.backends) : (options.backends as DriverResolver);
    this.#stateFile = options.stateFile;
    this.#driftMs = Math.max(0, (options.driftCheckSeconds ?? 5) * 1000);
    this.#clock = options.clock ?? systemClock;
    this.#log = options.logger ?? pino({ level: "silent" });
    this.#persistDelayMs = options.persistDelayMs ?? 200;
    this.#onDriftChecked = options.onDriftChecked;
  }

  /**
   * Loads the persisted desired state (if any; a corrupt file is moved aside as `<file>.corrupt-<ms>` and
   * logged), drops expired entries, reconciles every target, and arms the expiry and drift timers.
   * @throws Error when called twice or after stop.
   */
  async start(): Promise<void> {
    if (this.#started || this.#stopped) throw new Error("enforcer already started");
    this.#started = true;
    const { done } = await this.#enqueue(async () => {
      await this.#load();
      await this.#drivers.prepare?.([...[...this.#desired.values()].map((s) => s.target), ...this.#retired.values()]);
      const now = this.#clock.now();
      for (const state of this.#desired.values()) {
        state.entries.dropExpired(now);
      }
      await this.#persistNow();
      const work = this.#allPids().map((pid) => this.#onTarget(pid, undefined, () => this.#reconcile(pid, "full")));
      this.#armExpiry();
      return { done: Promise.all(work) };
    });
    await done;
    this.#armDrift();
  }

  /**
   * Stops the timers, waits for queued work to finish, and flushes the state file. Entries stay on
   * their targets (native timeouts keep expiring them). Idempotent.
   */
  async stop(): Promise<void> {
    if (this.#stopped) {
      await this.#queue.catch(() => undefined);
      await this.#writes;
      return;
    }
    this.#stopped = true;
    this.#expiryTimer?.cancel();
    this.#driftTimer?.cancel();
    await this.idle();
    this.#persistTimer?.cancel();
    this.#persistTimer = undefined;
    if (this.#dirty) await this.#persistNow();
    await this.#writes;
  }

  /**
   * Handles a `sync`: the full desired state replaces the current one, then every affected target is
   * reconciled. Ack rows: `add` for each desired entry (failed with "expired" / "invalid IP address"
   * when not added), `del` for each extra address removed (under each key of that target).
   * @throws Error when the enforcer is stopped.
   */
  sync(message: { seq: number; targets: readonly TargetState[] }): Promise<AckMessage> {
    return this.#enqueue(() => this.#sync(message)).then((r) => r.done);
  }

  /**
   * Handles an `apply`: ops in order (the last op on an address wins), then one add and one remove
   * call per target. Ack rows: one per (key, ip, op); an op superseded by a later one on the same
   * address, or a `del` of an address another key on the same target still holds, reports ok.
   * @throws Error when the enforcer is stopped.
   */
  apply(message: { seq: number; ops: readonly Op[] }): Promise<AckMessage> {
    return this.#enqueue(() => this.#apply(message)).then((r) => r.done);
  }

  /**
   * Removes every entry whose expiry has passed (also run by the expiry timer). Resolves to how many
   * were dropped, once their removal calls are done.
   */
  checkExpiry(): Promise<number> {
    return this.#enqueue(() => this.#expire()).then(async (r) => {
      await r.done;
      return r.count;
    });
  }

  /**
   * Re-reads every target whose driver's `driftIntervalMs` has passed and repairs drift (also run
   * every driftCheckSeconds). Resolves when every re-read is done.
   */
  repairDrift(): Promise<void> {
    return this.#enqueue(async () => {
      const expired = await this.#expire();
      const now = this.#clock.now();
      const work: Promise<unknown>[] = [expired.done];
      for (const pid of this.#allPids()) {
        const target = this.#targetOf(pid);
        const driver = target ? this.#backendOf(target) : undefined;
        const interval = typeof driver === "object" ? (driver.driftIntervalMs ?? 0) : 0;
        const last = this.#lastDrift.get(pid);
        if (last !== undefined && now - last < interval) continue;
        this.#lastDrift.set(pid, now);
        work.push(this.#onTarget(pid, undefined, () => this.#reconcile(pid, "drift")));
      }
      return { done: Promise.all(work) };
    }).then(async (r) => {
      await r.done;
      const listed = this.#driftListed;
      this.#driftListed = 0;
      try {
        this.#onDriftChecked?.(listed);
      } catch (err) {
        this.#log.warn({ err }, "onDriftChecked failed");
      }
    });
  }

  /** A snapshot of the desired state: every known target with its live entries, sorted by address. */
  desiredState(): TargetState[] {
    return [...this.#desired.entries()].map(([, s]) => ({
      target: s.target,
      entries: [...s.entries.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([ip, expiresAt]) => ({ ip, expiresAt })),
    }));
  }

  /** Resolves when every queued task so far, and every backend call it caused, has run. */
  async idle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.#queue.catch(() => undefined);
      await this.#queues.idle();
      if (this.#queues.size === 0) {
        const q = this.#queue;
        await q.catch(() => undefined);
        if (q === this.#queue && this.#queues.size === 0) return;
      }
    }
  }

  /** Runs `fn` on the queue of the driver of `pid`'s target (or `named` when this agent holds no such target). */
  #onTarget<T>(pid: string, named: Target | undefined, fn: () => Promise<T>): Promise<T> {
    const target = this.#targetOf(pid) ?? named;
    const driver = target ? this.#backendOf(target) : undefined;
    const group = typeof driver === "object" ? driver : this.#noDriver;
    const limit = typeof driver === "object" ? (driver.concurrency ?? 1) : 1;
    return this.#queues.run(group, limit, pid, fn);
  }

  // ---------------------------------------------------------------- queue and timers

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.#stopped) return Promise.reject(new Error("enforcer stopped"));
    const run = this.#queue.then(task, task);
    // The queue keeps no result: a sync's `{ done }` resolves to its ack (100,000 results), which would
    // otherwise stay referenced until the next task.
    this.#queue = run.then(
      () => undefined,
      (err: unknown) => {
        this.#log.error({ err }, "enforcer task failed");
      },
    );
    return run;
  }

  #armExpiry(): void {
    this.#expiryTimer?.cancel();
    this.#expiryTimer = undefined;
    if (this.#stopped) return;
    let earliest = Infinity;
    for (const s of this.#desired.values()) for (const exp of s.entries.values()) if (exp < earliest) earliest = exp;
    if (earliest === Infinity) return;
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, earliest - this.#clock.now()));
    this.#expiryTimer = this.#clock.setTimer(() => {
      this.#expiryTimer = undefined;
      if (this.#stopped) return;
      this.checkExpiry().catch((err: unknown) => this.#log.error({ err }, "expiry check failed"));
    }, wait);
  }

  #armDrift(): void {
    if (this.#driftMs <= 0 || this.#stopped) return;
    this.#driftTimer = this.#clock.setTimer(() => {
      this.#driftTimer = undefined;
      if (this.#stopped) return;
      this.repairDrift()
        .catch((err: unknown) => this.#log.error({ err }, "drift check failed"))
        .finally(() => this.#armDrift());
    }, this.#driftMs);
  }

  // ---------------------------------------------------------------- message handling

  async #sync(message: { seq: number; targets: readonly TargetState[] }): Promise<{ done: Promise<AckMessage> }> {
    await this.#drivers.prepare?.(message.targets.map((t) => t.target));
    const now = this.#clock.now();
    const rows = new ResultRows();
    const oldKeysByPid = this.#keysByPid();
    const oldTargets = new Map<string, Target>();
    for (const s of this.#desired.values()) oldTargets.set(s.pid, s.target);

    const next = new Map<string, KeyState>();
    /** key → normalised ip → ip text as the server sent it, when that differs from the normalised text. */
    const sent = new Map<string, Map<string, string>>();
    const strings = new StringPool();
    for (const { target, entries } of message.targets) {
      const pid = physicalId(target);
      let state = next.get(target.key);
      if (!state || state.pid !== pid) {
        state = { target, pid, entries: state?.pid === pid ? state.entries : new EntryTable() };
        next.set(target.key, state);
      }
      const texts = sent.get(target.key) ?? new Map<string, string>();
      sent.set(target.key, texts);
      for (const entry of entries) {
        const ip = normalise(entry.ip);
        if (ip === null) {
          rows.set(target.key, entry.ip, "add", false, "invalid IP address");
          continue;
        }
        if (entry.expiresAt <= now) {
          rows.set(
            target.key,
            entry.ip,
            "add",
            false,
            `expired at ${new Date(entry.expiresAt).toISOString()} (agent clock ${new Date(now).toISOString()})`,
          );
          continue;
        }
        if (entry.ip !== ip) texts.set(ip, entry.ip);
        const user = entry.user === undefined ? undefined : strings.intern(entry.user);
        state.entries.set(strings.intern(ip), Math.max(entry.expiresAt, state.entries.get(ip) ?? 0), user);
      }
    }
    this.#desired = next;
    const newPids = new Set([...next.values()].map((s) => s.pid));
    for (const [pid, target] of oldTargets) if (!newPids.has(pid)) this.#retired.set(pid, target);
    for (const pid of newPids) this.#retired.delete(pid);

    await this.#persistNow();

    const keysByPid = this.#keysByPid();
    /** key → the addresses it holds now (the ack reports on these, whatever later messages change). */
    const held = new Map([...this.#desired].map(([key, st]) => [key, [...st.entries.keys()]]));
    // Empty the targets that left first (a renamed set must lose the old before the new one fills).
    const order = [...this.#retired.keys(), ...newPids];
    const work = order.map((pid) => ({
      pid,
      outcome: this.#onTarget(pid, undefined, () => this.#reconcile(pid, "full")),
    }));
    this.#armExpiry();
    const done = (async (): Promise<AckMessage> => {
      for (const { pid, outcome: pending } of work) {
        const outcome = await pending;
        const keys = keysByPid.get(pid) ?? oldKeysByPid.get(pid) ?? [];
        for (const key of keysByPid.get(pid) ?? []) {
          for (const ip of held.get(key) ?? []) {
            const o = outcome.added.get(ip) ?? { ip, ok: false, error: outcome.listError ?? "not processed" };
            rows.set(key, sent.get(key)?.get(ip) ?? ip, "add", o.ok, o.error);
          }
        }
        for (const [ip, o] of outcome.removed) for (const key of keys) rows.set(key, ip, "del", o.ok, o.error);
      }
      return { type: "ack", seq: message.seq, results: rows.list() };
    })();
    return { done };
  }

  async #apply(message: { seq: number; ops: readonly Op[] }): Promise<{ done: Promise<AckMessage> }> {
    await this.#drivers.prepare?.([...new Map(message.ops.map((op) => [op.target.key, op.target])).values()]);
    const now = this.#clock.now();
    const rows = new ResultRows();
    /** pid → normalised ip (addresses touched by the ops). */
    const touched = new Map<string, Set<string>>();
    /** pid → touched addresses no key on it held before this message (AddHints: believed absent). */
    const fresh = new Map<string, Set<string>>();
    /** pid → its count of finished reconciles now (a reconcile finishing before the apply runs voids `fresh`). */
    const reconciled = (pid: string): number => this.#reconciled.get(pid) ?? 0;
    const epochs = new Map<string, number>();
    const fullReconcile = new Set<string>();
    /** pid → the target an op named (a `del` may name a target this agent does not hold). */
    const opTargets = new Map<string, Target>();
    /** `${key}\0${ip}` → the last op on it, with the text the server sent. */
    const last = new Map<string, { key: string; ip: string; text: string; op: "add" | "del"; pid: string }>();
    let removals = false;

    for (const op of message.ops) {
      const key = op.target.key;
      const ip = normalise(op.ip);
      if (ip === null) {
        rows.set(key, op.ip, op.op, false, "invalid IP address");
        continue;
      }
      const pid = physicalId(op.target);
      if (!opTargets.has(pid)) opTargets.set(pid, op.target);
      if (!epochs.has(pid)) epochs.set(pid, reconciled(pid));
      if (!touched.get(pid)?.has(ip) && !this.#holds(pid, ip)) {
        let news = fresh.get(pid);
        if (!news) fresh.set(pid, (news = new Set()));
        news.add(ip);
      }
      let state = this.#desired.get(key);
      if (state && state.pid !== pid) {
        // The key's target configuration changed: move its entries, empty the old target.
        fullReconcile.add(state.pid).add(pid);
        const oldPid = state.pid;
        const oldTarget = state.target;
        state.target = op.target;
        state.pid = pid;
        if (![...this.#desired.values()].some((s) => s.pid === oldPid)) this.#retired.set(oldPid, oldTarget);
        this.#retired.delete(pid);
        removals = true;
      }
      // Same physical target, maybe new sealed secrets: later calls use the target as last sent.
      if (state && state.pid === pid) state.target = op.target;
      if (!state && op.op === "add") {
        state = { target: op.target, pid, entries: new EntryTable() };
        this.#desired.set(key, state);
        this.#retired.delete(pid);
      }
      if (op.op === "add") {
        if (op.expiresAt <= now) {
          state?.entries.delete(ip);
          removals = true;
          rows.set(
            key,
            op.ip,
            "add",
            false,
            `expired at ${new Date(op.expiresAt).toISOString()} (agent clock ${new Date(now).toISOString()})`,
          );
        } else {
          state?.entries.set(ip, op.expiresAt, op.user);
          rows.set(key, op.ip, "add", true); // provisional: replaced by the backend's outcome below
        }
      } else {
        state?.entries.delete(ip);
        removals = true;
        rows.set(key, op.ip, "del", true);
      }
      let set = touched.get(pid);
      if (!set) touched.set(pid, (set = new Set()));
      set.add(ip);
      last.set(`${key}\u0000${ip}`, { key, ip, text: op.ip, op: op.op, pid });
    }

    if (removals) await this.#persistNow();
    else this.#persistSoon();

    const pending = new Map<string, Promise<PhysicalOutcome>>();
    const full = (pid: string): void =>
      void pending.set(
        pid,
        this.#onTarget(pid, opTargets.get(pid), () => this.#reconcile(pid, "full")),
      );
    for (const pid of [...this.#retired.keys()].filter((p) => fullReconcile.has(p))) full(pid);
    for (const pid of fullReconcile) if (!pending.has(pid)) full(pid);
    for (const [pid, ips] of touched) {
      if (pending.has(pid)) continue;
      pending.set(
        pid,
        this.#onTarget(pid, opTargets.get(pid), () =>
          // A reconcile that finished since this message (one already running then, e.g. a drift check
          // whose listing streams while messages arrive) may have added these addresses itself.
          this.#applyTouched(
            pid,
            ips,
            opTargets.get(pid),
            reconciled(pid) === epochs.get(pid) ? fresh.get(pid) : undefined,
          ),
        ),
      );
    }
    this.#armExpiry();

    const done = (async (): Promise<AckMessage> => {
      const outcomes = new Map<string, PhysicalOutcome>();
      for (const [pid, p] of pending) outcomes.set(pid, await p);
      for (const { key, ip, text, op, pid } of last.values()) {
        const outcome = outcomes.get(pid);
        if (!outcome) continue;
        if (rows.get(key, text, op)?.ok === false) continue; // invalid or expired: never sent to the backend
        const o = op === "add" ? outcome.added.get(ip) : outcome.removed.get(ip);
        if (o) rows.set(key, text, op, o.ok, o.error);
        else if (op === "add") rows.set(key, text, op, false, outcome.listError ?? "not applied");
      }
      return { type: "ack", seq: message.seq, results: rows.list() };
    })();
    return { done };
  }

  /** Adds the touched addresses still desired on `pid`, removes the touched ones no key holds any more. */
  async #applyTouched(
    pid: string,
    ips: ReadonlySet<string>,
    named: Target | undefined,
    fresh: ReadonlySet<string> | undefined,
  ): Promise<PhysicalOutcome> {
    const want = this.#wanted(pid, this.#clock.now());
    const target = this.#targetOf(pid) ?? named;
    const result: PhysicalOutcome = { added: new Map(), removed: new Map() };
    if (!target) return result;
    const toAdd: Entry[] = [];
    const toRemove: string[] = [];
    for (const ip of ips) {
      const exp = want.get(ip);
      if (exp !== undefined) toAdd.push(this.#entry(pid, ip, exp));
      else toRemove.push(ip);
    }
    result.added = await this.#callAdd(target, toAdd, { absent: (ip) => fresh?.has(ip) === true });
    result.removed = await this.#callRemove(target, toRemove);
    await this.#commit(target, result);
    return result;
  }

  /** Whether a key on `pid` holds `ip` (normalised) in its table. */
  #holds(pid: string, ip: string): boolean {
    for (const s of this.#desired.values()) if (s.pid === pid && s.entries.has(ip)) return true;
    return false;
  }

  /** An entry to add, with the user name the server gave for it under any key of `pid`. */
  #entry(pid: string, ip: string, expiresAt: number): Entry {
    for (const s of this.#desired.values()) {
      if (s.pid !== pid) continue;
      const user = s.entries.user(ip);
      if (user !== undefined) return { ip, expiresAt, user };
    }
    return { ip, expiresAt };
  }

  /**
   * Runs the driver's commit step after a batch that changed something; when it fails, every change
   * of the batch is reported failed with the commit's error.
   */
  async #commit(target: Target, result: PhysicalOutcome): Promise<void> {
    const driver = this.#backendOf(target);
    if (typeof driver === "string" || !driver.commit) return;
    const changed = [...result.added.values(), ...result.removed.values()].some((o) => o.ok);
    if (!changed) return;
    try {
      await driver.commit(target);
    } catch (err) {
      const error = `commit failed: ${errorText(err)}`;
      for (const map of [result.added, result.removed])
        for (const [ip, o] of map) if (o.ok) map.set(ip, { ip: o.ip, ok: false, error });
    }
  }

  /** Drops expired entries and removes the addresses no key on their target holds any more. */
  async #expire(): Promise<{ count: number; done: Promise<unknown> }> {
    const now = this.#clock.now();
    const expired = new Map<string, Set<string>>();
    let count = 0;
    for (const state of this.#desired.values()) {
      const dropped = state.entries.dropExpired(now);
      if (dropped.length === 0) continue;
      count += dropped.length;
      let set = expired.get(state.pid);
      if (!set) expired.set(state.pid, (set = new Set()));
      for (const ip of dropped) set.add(ip);
    }
    const work: Promise<unknown>[] = [];
    if (count > 0) {
      await this.#persistNow();
      for (const [pid, ips] of expired) {
        work.push(
          this.#onTarget(pid, undefined, async () => {
            // Judged when the call runs: a later message may have granted the address again.
            const want = this.#wanted(pid, this.#clock.now());
            const target = this.#targetOf(pid);
            const gone = [...ips].filter((ip) => !want.has(ip));
            if (!target || gone.length === 0) return;
            const outcomes = await this.#callRemove(target, gone);
            await this.#commit(target, { added: new Map(), removed: outcomes });
            const failed = [...outcomes.values()].filter((o) => !o.ok);
            this.#log.info({ target: target.key, removed: gone.length - failed.length }, "expired entries removed");
            if (failed.length > 0)
              this.#log.warn({ target: target.key, failed }, "could not remove expired entries (drift repair retries)");
          }),
        );
      }
    }
    this.#armExpiry();
    return { count, done: Promise.all(work) };
  }

  /**
   * Makes one physical target hold exactly its desired addresses. `full` (re-)adds every desired entry,
   * refreshing native timeouts; `drift` adds only what the listing lacks. Both remove what the listing
   * shows but nothing desires (judged once it is read). When listing fails, `full` still adds and
   * nothing is removed. `full` ends with the backend's `settle`.
   */
  async #reconcile(pid: string, mode: "full" | "drift"): Promise<PhysicalOutcome> {
    try {
      return await this.#reconcileOnce(pid, mode);
    } finally {
      // An apply queued behind this reconcile no longer knows what is absent (see #applyTouched).
      this.#reconciled.set(pid, (this.#reconciled.get(pid) ?? 0) + 1);
    }
  }

  async #reconcileOnce(pid: string, mode: "full" | "drift"): Promise<PhysicalOutcome> {
    const result: PhysicalOutcome = { added: new Map(), removed: new Map() };
    const target = this.#targetOf(pid);
    if (!target) return result;
    const backend = this.#backendOf(target);
    const want = this.#wanted(pid, this.#clock.now());
    if (typeof backend === "string") {
      const error = backend;
      for (const ip of want.keys()) result.added.set(ip, { ip, ok: false, error });
      result.listError = error;
      return result;
    }
    // Loops rather than map/filter/spread and entry iterators: a drift check re-reads every target
    // every few seconds, and with 100,000 entries each intermediate array or per-entry object was
    // megabytes of garbage that V8 kept as resident heap until its next full collection (issue #13 item 4).
    let read = await this.#readTarget(target, backend, want);
    // A streamed listing runs while messages change the desired state: when the table grew or was
    // renumbered meanwhile, its slot marks are stale, and a drift check reads the target once more
    // (a full reconcile adds every wanted address anyway), or leaves it to the next check.
    if (read.stale && mode === "drift") read = await this.#readTarget(target, backend, want);
    if (read.error !== undefined) {
      result.listError = read.error;
      this.#log.warn({ target: target.key, err: result.listError }, "cannot read target");
    }
    if (mode === "drift" && read.stale) this.#log.debug({ target: target.key }, "desired state changed while listing");
    if (mode === "drift" && (read.error !== undefined || read.stale)) return result;
    if (mode === "drift") this.#driftListed += read.count;
    const { marks, present, slotOf } = read;
    // Judged now: an address the server granted while the listing was read stays.
    const toRemove = read.extra.filter((ip) => !want.has(ip));
    const held = (ip: string): boolean =>
      marks && slotOf ? marks[slotOf(ip)] === 1 : present !== null && present.has(ip);
    const toAdd: Entry[] = [];
    want.forEach((expiresAt, ip) => {
      if (mode === "full" || !held(ip)) toAdd.push(this.#entry(pid, ip, expiresAt));
    });
    if (mode === "full" && backend.replace) {
      // The driver sets the whole content at once (flush and fill, prepare and commit).
      let outcomes: EntryOutcome[];
      let error: string | undefined;
      try {
        outcomes = await backend.replace(target, toAdd, this.#clock.now());
      } catch (err) {
        error = errorText(err);
        outcomes = toAdd.map((e) => ({ ip: e.ip, ok: false, error }));
      }
      result.added = this.#byIp(
        toAdd.map((e) => e.ip),
        outcomes,
        new Map(),
      );
      for (const ip of toRemove)
        result.removed.set(ip, error === undefined ? { ip, ok: true } : { ip, ok: false, error });
    } else {
      // What a sound listing showed missing is believed absent (AddHints); after a failed or stale
      // listing nothing is.
      const sound = read.error === undefined && !read.stale;
      result.added = await this.#callAdd(target, toAdd, { absent: (ip) => sound && !held(ip) });
      result.removed = await this.#callRemove(target, toRemove);
    }
    await this.#commit(target, result);
    // A full reconcile (a sync) is acknowledged with the backend's deferred work done: its garbage then
    // goes with the sync's (reclaim.ts), not after it (issue #13 item 7).
    if (mode === "full")
      await backend.settle?.(target).catch((err: unknown) => this.#log.warn({ err }, "settle failed"));
    if (mode === "drift" && (toAdd.length > 0 || toRemove.length > 0)) {
      this.#log.warn({ target: target.key, readded: toAdd.map((e) => e.ip), removed: toRemove }, "drift repaired");
    }
    const isRetired = !this.#keysByPid().has(pid);
    if (isRetired && read.error === undefined && [...result.removed.values()].every((o) => o.ok))
      this.#retired.delete(pid);
    return result;
  }

  /**
   * Reads what `target` holds (`forEachListed` when the backend streams its listing, issue #13 item 7;
   * `list` otherwise), one address at a time, never as a list: the wanted addresses it holds are marked
   * by slot in `marks` (a view of one key's table, `want.slotOf`) or kept in `present` (several keys),
   * the others collected once each in `extra`. `count` is how many addresses were listed. When the
   * listing fails, `error` says why and nothing is marked or extra. `stale`: `want`'s table grew or was
   * renumbered while the listing was read, so its slot marks cannot be trusted.
   */
  async #readTarget(
    target: Target,
    backend: Backend,
    want: WantedEntries,
  ): Promise<{
    marks: Uint8Array | null;
    present: Set<string> | null;
    slotOf: ((ip: string) => number) | undefined;
    extra: string[];
    count: number;
    error?: string;
    stale: boolean;
  }> {
    const { slotOf, slots } = want;
    const capacity = slotOf && slots ? slots() : -1;
    const marks = capacity >= 0 ? new Uint8Array(capacity) : null;
    const present = marks ? null : new Set<string>();
    const extra: string[] = [];
    const seen = new Set<string>();
    let count = 0;
    const onListed = (text: string): void => {
      count++;
      const ip = normalise(text) ?? text;
      if (marks && slotOf) {
        const slot = slotOf(ip);
        if (slot >= 0) {
          marks[slot] = 1;
          return;
        }
      } else if (present && want.has(ip)) {
        present.add(ip);
        return;
      }
      if (!seen.has(ip)) extra.push(ip);
      seen.add(ip);
    };
    try {
      if (backend.forEachListed) await backend.forEachListed(target, onListed);
      else for (const text of await backend.list(target)) onListed(text);
    } catch (err) {
      return { marks: null, present: null, slotOf, extra: [], count, error: errorText(err), stale: false };
    }
    return { marks, present, slotOf, extra, count, stale: capacity >= 0 && slots?.() !== capacity };
  }

  async #callAdd(target: Target, entries: Entry[], hints: AddHints): Promise<Map<string, EntryOutcome>> {
    const out = new Map<string, EntryOutcome>();
    if (entries.length === 0) return out;
    const backend = this.#backendOf(target);
    let outcomes: EntryOutcome[];
    try {
      if (typeof backend === "string") throw new Error(backend);
      outcomes = await backend.add(target, entries, this.#clock.now(), hints);
    } catch (err) {
      outcomes = entries.map((e) => ({ ip: e.ip, ok: false, error: errorText(err) }));
    }
    return this.#byIp(
      entries.map((e) => e.ip),
      outcomes,
      out,
    );
  }

  async #callRemove(target: Target, ips: string[]): Promise<Map<string, EntryOutcome>> {
    const out = new Map<string, EntryOutcome>();
    if (ips.length === 0) return out;
    const backend = this.#backendOf(target);
    let outcomes: EntryOutcome[];
    try {
      if (typeof backend === "string") throw new Error(backend);
      outcomes = await backend.remove(target, ips);
    } catch (err) {
      outcomes = ips.map((ip) => ({ ip, ok: false, error: errorText(err) }));
    }
    return this.#byIp(ips, outcomes, out);
  }

  #byIp(requested: string[], outcomes: EntryOutcome[], out: Map<string, EntryOutcome>): Map<string, EntryOutcome> {
    for (const o of outcomes) {
      const ip = normalise(o.ip) ?? o.ip;
      // Drivers answer with the address as given, usually normalised already: keep their object then.
      out.set(ip, o.ip === ip ? o : o.error === undefined ? { ip, ok: o.ok } : { ip, ok: o.ok, error: o.error });
    }
    for (const ip of requested)
      if (!out.has(ip)) out.set(ip, { ip, ok: false, error: "the backend reported no outcome" });
    return out;
  }

  // ---------------------------------------------------------------- state helpers

  /** The driver enforcing `target`, or why there is none. */
  #backendOf(target: Target): Driver | string {
    return this.#drivers.driverFor(target);
  }

  #keysByPid(): Map<string, string[]> {
    const map = new Map<string, string[]>();
    for (const [key, s] of this.#desired) {
      const keys = map.get(s.pid) ?? [];
      keys.push(key);
      map.set(s.pid, keys);
    }
    return map;
  }

  #allPids(): string[] {
    return [...new Set([...this.#retired.keys(), ...[...this.#desired.values()].map((s) => s.pid)])];
  }

  #targetOf(pid: string): Target | undefined {
    for (const s of this.#desired.values()) if (s.pid === pid) return s.target;
    return this.#retired.get(pid);
  }

  /** Union of the live entries of every key on `pid` (latest expiry wins). */
  #wanted(pid: string, now: number): WantedEntries {
    let only: EntryTable | undefined;
    let keys = 0;
    for (const s of this.#desired.values()) {
      if (s.pid !== pid) continue;
      only = s.entries;
      keys++;
    }
    // One key on the target (the usual case): its own table, without a copy.
    if (keys === 1 && only) return liveEntries(only, now);
    const want = new Map<string, number>();
    for (const s of this.#desired.values()) {
      if (s.pid !== pid) continue;
      for (const [ip, exp] of s.entries) if (exp > now && exp > (want.get(ip) ?? 0)) want.set(ip, exp);
    }
    return want;
  }

  // ---------------------------------------------------------------- persistence

  async #load(): Promise<void> {
    const file = this.#stateFile;
    if (!file) return;
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT")
        this.#log.error({ err: errorText(err), file }, "cannot read state file");
      return;
    }
    try {
      const state = StateFileSchema.parse(JSON.parse(text));
      const strings = new StringPool();
      for (const { target, entries } of state.targets) {
        const map = new EntryTable();
        for (const e of entries) {
          const ip = normalise(e.ip);
          if (ip !== null) map.set(strings.intern(ip), e.expiresAt);
        }
        this.#desired.set(target.key, { target, pid: physicalId(target), entries: map });
      }
      for (const target of state.retired) this.#retired.set(physicalId(target), target);
      this.#log.info({ file, targets: this.#desired.size }, "desired state loaded");
    } catch (err) {
      const aside = `${file}.corrupt-${this.#clock.now()}`;
      this.#log.error({ file, aside, err: errorText(err) }, "state file is unreadable; moved aside, starting empty");
      await rename(file, aside).catch(() => undefined);
    }
  }

  #persistSoon(): void {
    if (!this.#stateFile) return;
    this.#dirty = true;
    if (this.#persistTimer) return;
    this.#persistTimer = this.#clock.setTimer(() => {
      this.#persistTimer = undefined;
      if (this.#dirty) void this.#persistNow();
    }, this.#persistDelayMs);
  }

  /**
   * The state file's JSON (`StateFileSchema`) as one string per target, built straight from the
   * entry tables: a sync of 100,000 entries persisted through `desiredState()` and one
   * `JSON.stringify` made an object per entry and one string of the whole file (issue #13 item 4).
   * Addresses are normalised (digits, hex, dots and colons), so they need no JSON escaping.
   */
  #stateChunks(): string[] {
    const chunks = [`{"version":${STATE_VERSION},"savedAt":${this.#clock.now()},"targets":[`];
    for (const s of this.#desired.values()) {
      const entries: string[] = [];
      for (const [ip, expiresAt] of s.entries) entries.push(`{"ip":"${ip}","expiresAt":${expiresAt}}`);
      const comma = chunks.length > 1 ? "," : "";
      chunks.push(`${comma}{"target":${JSON.stringify(s.target)},"entries":[${entries.join(",")}]}`);
    }
    chunks.push(`],"retired":${JSON.stringify([...this.#retired.values()])}}`);
    return chunks;
  }

  /** Writes the desired state now (serialised with earlier writes). Failures are logged, not thrown. */
  #persistNow(): Promise<void> {
    const file = this.#stateFile;
    if (!file) return Promise.resolve();
    this.#persistTimer?.cancel();
    this.#persistTimer = undefined;
    this.#dirty = false;
    const data = this.#stateChunks();
    this.#writes = this.#writes.then(() =>
      writeFileAtomic(file, data, 0o600).catch((err: unknown) => {
        this.#log.error({ file, err: errorText(err) }, "cannot write state file");
      }),
    );
    return this.#writes;
  }
}

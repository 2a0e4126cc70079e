/**
 * Membership probes of the grant latency benchmarks (`bench/grant-latency.ts`, `bench/grant-floor.ts`),
 * run in a worker thread so that polling neither waits on nor loads the benchmark's main event loop (its
 * HTTP client). The main thread starts and asks one through `WorkerProbe` (below).
 *
 * The worker (`workerData: ProbeSpec`) answers `poll` messages: it asks its target back to back,
 * sleeping `intervalMs` between probe starts (Atomics.wait, so sub-millisecond and without spinning),
 * until the target does or does not hold the address, and replies with the time the deciding answer
 * arrived (`performance.timeOrigin + performance.now()`, comparable across threads), when the last
 * probe with the opposite answer was sent (the change happened between the two), and every probe's
 * round trip. Probes:
 * - `haproxy`: `get acl #ID <ip>` on one runtime API session in prompt mode over the unix socket
 *   (reopened once when HAProxy closed it, e.g. after `stats timeout`);
 * - `ipset-interactive`: `test SET <ip>` written to ONE long-lived `ip netns exec NS ipset -` process
 *   (one answer line per test on stderr), so no process is spawned per probe;
 * - `ipset-spawn`: one `ip netns exec NS ipset test SET <ip>` process per probe (exit code 0: present),
 *   a few milliseconds each, which limits the resolution to that;
 * - `nft-spawn`: one `ip netns exec NS nft get element TABLE SET { <ip> }` process per probe (exit code
 *   0: present), likewise a few milliseconds each;
 * - `file`: the lines of the file the benchmark's script backend keeps (read directly, microseconds).
 * The interactive ipset process is stopped by its PID on `close` (its PID is also reported to the main
 * thread, which kills it again at clean-up in case the worker was terminated first).
 */
import { readFileSync } from "node:fs";
import { spawn } from "node:child_process";
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { isMainThread, parentPort, workerData, Worker } from "node:worker_threads";
import { RuntimeSession } from "../agent/src/backends/haproxy/driver.ts";
import { ExecaRunner } from "../agent/src/process/execa-runner.ts";

/** What a probe worker polls. */
export type ProbeSpec =
  | { readonly kind: "haproxy"; readonly socketPath: string; readonly aclId: number; readonly intervalMs: number }
  | {
      readonly kind: "ipset-interactive" | "ipset-spawn";
      readonly ns: string;
      readonly set: string;
      readonly intervalMs: number;
    }
  | {
      readonly kind: "nft-spawn";
      readonly ns: string;
      readonly table: string;
      readonly set: string;
      readonly intervalMs: number;
    }
  | { readonly kind: "file"; readonly path: string; readonly intervalMs: number };

/** Main thread → worker. */
export type ProbeRequest =
  | {
      readonly type: "poll";
      readonly id: number;
      readonly ip: string;
      readonly want: boolean;
      readonly timeoutMs: number;
    }
  | { readonly type: "close" };

/** Worker → main thread. `at` is `performance.timeOrigin + performance.now()` in milliseconds. */
export type ProbeReply =
  | { readonly type: "ready"; readonly how: string; readonly pid: number | null }
  | {
      readonly type: "result";
      readonly id: number;
      readonly at: number;
      readonly lastMissStart: number | null;
      readonly rtts: number[];
    }
  | { readonly type: "error"; readonly id: number; readonly message: string }
  | { readonly type: "failed"; readonly message: string };

/** A time comparable across threads: `performance.timeOrigin + performance.now()` (milliseconds). */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

/** One membership probe of a target. */
interface Probe {
  readonly how: string;
  readonly pid: number | null;
  /** Does the target hold `ip` right now? One round trip. */
  has(ip: string): Promise<boolean>;
  /** Frees the connection or process. Never throws. */
  close(): Promise<void>;
}

class HaproxyProbe implements Probe {
  readonly how: string;
  readonly pid = null;
  readonly #socketPath: string;
  readonly #aclId: number;
  #session: RuntimeSession | null = null;

  constructor(socketPath: string, aclId: number) {
    this.#socketPath = socketPath;
    this.#aclId = aclId;
    this.how = `"get acl #${aclId} <ip>" on one persistent runtime API session (unix socket)`;
  }

  async has(ip: string): Promise<boolean> {
    let retried = false;
    for (;;) {
      try {
        this.#session ??= await RuntimeSession.open(
          { path: this.#socketPath },
          { connectTimeoutMs: 2_000, readTimeoutMs: 2_000 },
        );
        const [answer = ""] = await this.#session.send([`get acl #${this.#aclId} ${ip}`]);
        if (/match=yes/.test(answer)) return true;
        if (/match=no/.test(answer)) return false;
        throw new Error(`unexpected answer to get acl: ${answer.slice(0, 200)}`);
      } catch (e) {
        this.#session?.close();
        this.#session = null;
        if (retried) throw e;
        retried = true; // HAProxy may have closed an idle session: one retry on a fresh one
      }
    }
  }

  async close(): Promise<void> {
    this.#session?.close();
    this.#session = null;
  }
}

class IpsetInteractiveProbe implements Probe {
  readonly how: string;
  readonly pid: number | null;
  readonly #set: string;
  readonly #child: ChildProcessByStdio<Writable, Readable, Readable>;
  #waiter: ((line: string | null) => void) | null = null;
  #exited = false;

  constructor(ns: string, set: string) {
    this.#set = set;
    this.how = `"ipset test ${set} <ip>" through one interactive "ipset -" process in the namespace`;
    // `ip netns exec` execs ipset in place, so this PID is ipset's own.
    this.#child = spawn("ip", ["netns", "exec", ns, "ipset", "-"], { stdio: ["pipe", "pipe", "pipe"] });
    this.pid = this.#child.pid ?? null;
    this.#child.stdout.resume(); // the "ipset> " prompts
    this.#child.on("error", () => this.#onExit());
    this.#child.on("exit", () => this.#onExit());
    createInterface({ input: this.#child.stderr }).on("line", (line) => {
      const w = this.#waiter;
      this.#waiter = null;
      w?.(line); // a line nobody waits for (none expected) is dropped
    });
  }

  #onExit(): void {
    this.#exited = true;
    const w = this.#waiter;
    this.#waiter = null;
    w?.(null);
  }

  async has(ip: string): Promise<boolean> {
    if (this.#exited) throw new Error("the interactive ipset process exited");
    if (this.#waiter) throw new Error("ipset probe used concurrently");
    const answer = new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiter = null;
        resolve(null);
      }, 2_000);
      this.#waiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
    this.#child.stdin.write(`test ${this.#set} ${ip}\n`);
    const line = await answer;
    if (line === null) throw new Error("no answer from the interactive ipset process within 2 s");
    if (/is NOT in set/.test(line)) return false;
    if (/is in set/.test(line)) return true;
    throw new Error(`unexpected answer from ipset test: ${line}`);
  }

  async close(): Promise<void> {
    const pid = this.pid;
    if (this.#exited || pid === null) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#child.stdin.end();
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
    if (!this.#exited) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

class IpsetSpawnProbe implements Probe {
  readonly how: string;
  readonly pid = null;
  readonly #runner = new ExecaRunner({ defaultTimeoutMs: 5_000 });
  readonly #ns: string;
  readonly #set: string;

  constructor(ns: string, set: string) {
    this.#ns = ns;
    this.#set = set;
    this.how = `one "ip netns exec … ipset test ${set} <ip>" process per probe`;
  }

  async has(ip: string): Promise<boolean> {
    const r = await this.#runner.run("ip", ["netns", "exec", this.#ns, "ipset", "test", this.#set, ip], {
      timeoutMs: 5_000,
    });
    if (r.exitCode === 0) return true;
    if (/is NOT in set/.test(r.stderr)) return false;
    throw new Error(`ipset test failed (${r.exitCode}): ${r.stderr.trim()}`);
  }

  async close(): Promise<void> {}
}

class NftSpawnProbe implements Probe {
  readonly how: string;
  readonly pid = null;
  readonly #args: string[];
  readonly #runner = new ExecaRunner();

  constructor(ns: string, table: string, set: string) {
    this.#args = ["netns", "exec", ns, "nft", "get", "element", ...table.split(" "), set];
    this.how = `one "ip netns exec … nft get element ${table} ${set} { <ip> }" process per probe`;
  }

  async has(ip: string): Promise<boolean> {
    const r = await this.#runner.run("ip", [...this.#args, `{ ${ip} }`], { timeoutMs: 5_000 });
    if (r.exitCode === 0) return true;
    if (/No such file or directory|does not exist/i.test(r.stderr)) return false;
    throw new Error(`nft get element failed (${r.exitCode}): ${r.stderr.trim()}`);
  }

  async close(): Promise<void> {}
}

class FileProbe implements Probe {
  readonly how: string;
  readonly pid = null;
  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
    this.how = `the lines of ${path}, the file the benchmark's script keeps`;
  }

  async has(ip: string): Promise<boolean> {
    let text = "";
    try {
      text = readFileSync(this.#path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    return text.split("\n").includes(ip);
  }

  async close(): Promise<void> {}
}

/** Blocks this (worker) thread for `ms` milliseconds without spinning; sub-millisecond capable. */
function pause(ms: number): void {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

async function runWorker(spec: ProbeSpec): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const send = (m: ProbeReply): void => port.postMessage(m);
  let probe: Probe;
  try {
    probe =
      spec.kind === "haproxy"
        ? new HaproxyProbe(spec.socketPath, spec.aclId)
        : spec.kind === "ipset-spawn"
          ? new IpsetSpawnProbe(spec.ns, spec.set)
          : spec.kind === "nft-spawn"
            ? new NftSpawnProbe(spec.ns, spec.table, spec.set)
            : spec.kind === "file"
              ? new FileProbe(spec.path)
              : new IpsetInteractiveProbe(spec.ns, spec.set);
    await probe.has("192.0.2.1"); // the target answers (TEST-NET address, never granted)
  } catch (e) {
    send({ type: "failed", message: e instanceof Error ? e.message : String(e) });
    return;
  }
  send({ type: "ready", how: probe.how, pid: probe.pid });

  // Requests are handled one at a time, in order.
  let chain: Promise<void> = Promise.resolve();
  port.on("message", (m: ProbeRequest) => {
    chain = chain.then(async () => {
      if (m.type === "close") {
        await probe.close();
        port.close();
        return;
      }
      const rtts: number[] = [];
      let lastMissStart: number | null = null;
      const deadline = preciseNow() + m.timeoutMs;
      try {
        for (;;) {
          const start = preciseNow();
          const has = await probe.has(m.ip);
          const end = preciseNow();
          rtts.push(end - start);
          if (has === m.want) {
            send({ type: "result", id: m.id, at: end, lastMissStart, rtts });
            return;
          }
          lastMissStart = start;
          if (end > deadline) throw new Error(`${m.ip} still ${m.want ? "absent" : "present"} after ${m.timeoutMs} ms`);
          pause(spec.intervalMs - (preciseNow() - start));
        }
      } catch (e) {
        send({ type: "error", id: m.id, message: e instanceof Error ? e.message : String(e) });
      }
    });
  });
}

// ------------------------------------------------------------------------------ the main thread's side

/** The outcome of one poll. Times are `preciseNow()` values, durations milliseconds. */
export interface PollResult {
  /** When the deciding answer arrived. */
  readonly at: number;
  /** When the last probe with the opposite answer was sent (null: the first probe decided). */
  readonly lastMissStart: number | null;
  /** Every probe's round trip. */
  readonly rtts: number[];
}

/**
 * A target's membership probe, polled in a worker thread (`grant-latency-probe.ts`) so that polling
 * neither waits on nor loads the benchmark's main event loop. Times are `preciseNow()` values. Used by
 * bench/grant-latency.ts and bench/grant-floor.ts.
 */
export class WorkerProbe {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (r: PollResult) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #exited = false;
  /** How the target is read (from the worker). */
  how = "";
  /** PID of a process the worker started (the interactive ipset), killed again at close. */
  pid: number | null = null;

  private constructor(worker: Worker) {
    this.#worker = worker;
  }

  /**
   * Starts the worker and waits (bounded: 15 s) until its first probe of the target answered.
   * @throws Error when the probe cannot reach the target.
   */
  static async start(spec: ProbeSpec): Promise<WorkerProbe> {
    const worker = new Worker(new URL("./grant-latency-probe.ts", import.meta.url), { workerData: spec });
    const probe = new WorkerProbe(worker);
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${spec.kind} probe did not start within 15 s`)), 15_000);
      worker.on("message", (m: ProbeReply) => {
        if (m.type === "ready") {
          clearTimeout(timer);
          probe.how = m.how;
          probe.pid = m.pid;
          resolve();
        } else if (m.type === "failed") {
          clearTimeout(timer);
          reject(new Error(`${spec.kind} probe cannot read its target: ${m.message}`));
        } else {
          const p = probe.#pending.get(m.id);
          probe.#pending.delete(m.id);
          if (m.type === "result") p?.resolve({ at: m.at, lastMissStart: m.lastMissStart, rtts: m.rtts });
          else p?.reject(new Error(m.message));
        }
      });
      const onGone = (why: string): void => {
        probe.#exited = true;
        clearTimeout(timer);
        reject(new Error(`${spec.kind} probe worker ${why}`));
        for (const p of probe.#pending.values()) p.reject(new Error(`probe worker ${why}`));
        probe.#pending.clear();
      };
      worker.on("error", (e) => onGone(`failed: ${e.message}`));
      worker.on("exit", (code) => onGone(`exited (${code})`));
    });
    try {
      await ready;
    } catch (e) {
      await probe.close();
      throw e;
    }
    return probe;
  }

  /**
   * Polls until the target does (`want` true) or does not hold `ip`; see {@link PollResult}. Bounded
   * by `timeoutMs` (+2 s slack).
   * @throws Error on timeout or probe failure.
   */
  poll(ip: string, want: boolean, timeoutMs: number): Promise<PollResult> {
    if (this.#exited) return Promise.reject(new Error("probe worker is gone"));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`probe worker gave no answer within ${timeoutMs + 2_000} ms`));
      }, timeoutMs + 2_000);
      this.#pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#worker.postMessage({ type: "poll", id, ip, want, timeoutMs } satisfies ProbeRequest);
    });
  }

  /** Asks the worker to close its probe, terminates it (bounded), and kills its process by PID. Never throws. */
  async close(): Promise<void> {
    if (!this.#exited) {
      const exited = new Promise<void>((resolve) => this.#worker.once("exit", () => resolve()));
      this.#worker.postMessage({ type: "close" } satisfies ProbeRequest);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3_000))]);
      if (!this.#exited) await this.#worker.terminate();
    }
    if (this.pid !== null) {
      try {
        process.kill(this.pid, "SIGKILL");
      } catch {
        // already gone: the normal case
      }
    }
  }
}

if (!isMainThread) void runWorker(workerData as ProbeSpec);

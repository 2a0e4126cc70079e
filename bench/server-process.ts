/**
 * Helpers shared by bench/status-throughput.ts, bench/memory.ts and bench/grant-latency.ts (not a
 * benchmark itself):
 *
 * - `Cleanup`: closers run once, newest first, also on SIGINT / SIGTERM / SIGHUP and when a whole-run
 *   watchdog fires (`guardRun`);
 * - `migrateDataDir`: a fresh data directory migrated by the real CLI (`node cli/src/main.ts db migrate`
 *   with POSTERN_DATA_DIR), as an operator would;
 * - `startServerProcess`: the REAL server entry (`node server/src/main.ts`) as a child process with
 *   POSTERN_DATA_DIR / POSTERN_LISTEN / POSTERN_LOG_LEVEL, optionally pinned to one CPU with
 *   `taskset -c N` (taskset execs node, so the PID is the server's), stopped by PID (SIGTERM, SIGKILL
 *   after 10 s);
 * - `procMemory` / `procCpuSeconds`: VmRSS, VmHWM (peak RSS) and CPU time of any PID from /proc;
 * - `seedBatches`: runs seeding work in transactions of a bounded size and, between them, collects
 *   garbage and yields to the event loop. Every drizzle call prepares a better-sqlite3 statement whose
 *   native memory is freed by a finaliser that runs only after a GC and a turn of the event loop;
 *   without both, synchronous seeding grows the process by gigabytes.
 */
import { spawn, execFile } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import type { Db, Tx } from "../server/src/db/index.ts";

/** The repository root (bench/..). */
export const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

v8.setFlagsFromString("--expose-gc");
/** A full garbage collection (the `gc` function of a fresh context, available after --expose-gc). */
export const collectGarbage = vm.runInNewContext("gc") as () => void;

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Collects garbage and lets two turns of the event loop pass (statement finalisers run then). */
export async function settle(): Promise<void> {
  collectGarbage();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

// ------------------------------------------------------------------------------------- clean-up

/** Closers run once, newest first; a failing closer is reported and the others still run. */
export class Cleanup {
  readonly #steps: { name: string; fn: () => Promise<void> | void }[] = [];
  #running: Promise<void> | null = null;

  /** Registers a closer. */
  add(name: string, fn: () => Promise<void> | void): void {
    this.#steps.push({ name, fn });
  }

  /** Runs every closer (newest first) once; later calls wait for the same run. */
  run(): Promise<void> {
    this.#running ??= (async () => {
      while (this.#steps.length > 0) {
        const step = this.#steps.pop()!;
        try {
          await step.fn();
        } catch (e) {
          console.error(`clean-up of ${step.name} failed: ${(e as Error).message}`);
        }
      }
    })();
    return this.#running;
  }
}

/**
 * Runs `main` with `cleanup` run at the end, on SIGINT / SIGTERM / SIGHUP (exit 130 / 143 / 129) and
 * when the run takes longer than `timeoutMinutes` (exit 1). Resolves with `main`'s exit code.
 */
export async function guardRun(
  name: string,
  cleanup: Cleanup,
  timeoutMinutes: number,
  main: () => Promise<number>,
): Promise<number> {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = true;
    console.error(`\n${name}: ${signal}, cleaning up`);
    void cleanup.run().finally(() => process.exit(signal === "SIGINT" ? 130 : signal === "SIGHUP" ? 129 : 143));
  };
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, onSignal);
  const watchdog = setTimeout(() => {
    console.error(`${name}: watchdog: the run took longer than ${timeoutMinutes} minutes; cleaning up`);
    void cleanup.run().finally(() => process.exit(1));
  }, timeoutMinutes * 60_000);
  try {
    return await main();
  } finally {
    clearTimeout(watchdog);
    await cleanup.run();
  }
}

// ------------------------------------------------------------------------------------------ /proc

/** Memory of a process from /proc/PID/status, in bytes; null when it is gone. */
export interface ProcMemory {
  /** VmRSS: resident set size now. */
  readonly rss: number;
  /** VmHWM: the peak resident set size so far. */
  readonly hwm: number;
}

/** Reads VmRSS and VmHWM of `pid`; null when the process is gone. */
export function procMemory(pid: number): ProcMemory | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

/** Clock ticks per second of /proc/PID/stat times (USER_HZ; 100 on Linux). */
const CLK_TCK = 100;

/** User + system CPU seconds `pid` has used so far (all threads); NaN when it is gone. */
export function procCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which is in parentheses and may contain spaces): state is field 3.
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(rest[11]) + Number(rest[12])) / CLK_TCK; // utime (14), stime (15)
  } catch {
    return Number.NaN;
  }
}

/** Megabytes with no decimals ("123 MB"). */
export function mb(bytes: number): string {
  return Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(0)} MB` : "-";
}

// ------------------------------------------------------------------------------------- processes

/** Runs `node cli/src/main.ts db migrate` with POSTERN_DATA_DIR=`dataDir` (bounded: 60 s). */
export function migrateDataDir(dataDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["cli/src/main.ts", "db", "migrate"],
      { cwd: REPO_ROOT, env: { ...process.env, POSTERN_DATA_DIR: dataDir }, timeout: 60_000, killSignal: "SIGKILL" },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`postern db migrate failed: ${err.message}\n${stderr}`));
        else resolve(`${stdout}${stderr}`.trim());
      },
    );
  });
}

/** A child process stopped by PID: SIGTERM, SIGKILL after `graceMs`, bounded waits. Idempotent. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return resolve();
    const pid = child.pid;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(hard);
      clearTimeout(giveUp);
      resolve();
    };
    const hard = setTimeout(() => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, graceMs);
    const giveUp = setTimeout(finish, graceMs + 3_000);
    child.once("exit", finish);
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      finish();
    }
  });
}

/** The last `limit` characters of a child's stdout and stderr, for error messages. */
export function captureTail(child: ChildProcess, limit = 8_000): () => string {
  let text = "";
  const add = (d: Buffer): void => {
    text = (text + d.toString("utf8")).slice(-limit);
  };
  child.stdout?.on("data", add);
  child.stderr?.on("data", add);
  return () => text;
}

/** One GET over loopback with a fresh connection; resolves the status code, or 0 on a socket error. */
export function getStatusCode(url: string, timeoutMs = 2_000): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(0));
    req.end();
  });
}

/** The real server as a child process. */
export interface ServerProcess {
  readonly pid: number;
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** The CPU it is pinned to, or null. */
  readonly cpu: number | null;
  /** What it printed last. */
  output(): string;
  /** SIGTERM by PID (SIGKILL after 10 s); waits for the exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `node server/src/main.ts` on 127.0.0.1:`port` for `dataDir` (already migrated), pinned to
 * `cpu` with taskset when given, and waits (bounded: 30 s) until GET /api/system_status answers 200.
 * `env` adds variables (e.g. POSTERN_TRUSTED_PROXIES); `entry` runs another entry file (e.g. the
 * packaged bundle's server.mjs) and `nodeArgs` puts Node/V8 flags before it.
 * @throws Error when it exits or does not answer in time (its output included); it is stopped then.
 */
export async function startServerProcess(opts: {
  dataDir: string;
  port: number;
  cpu?: number | null;
  env?: Record<string, string>;
  entry?: string;
  nodeArgs?: readonly string[];
}): Promise<ServerProcess> {
  const cpu = opts.cpu ?? null;
  const argv = [process.execPath, ...(opts.nodeArgs ?? []), opts.entry ?? "server/src/main.ts"];
  const [cmd, ...args] = cpu === null ? argv : ["taskset", "-c", String(cpu), ...argv];
  const child = spawn(cmd!, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      ...opts.env,
      POSTERN_DATA_DIR: opts.dataDir,
      POSTERN_LISTEN: `127.0.0.1:${opts.port}`,
      POSTERN_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = captureTail(child);
  const url = `http://127.0.0.1:${opts.port}`;
  const stop = (): Promise<void> => stopChild(child);
  if (child.pid === undefined) throw new Error(`the server did not start: ${output()}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    if ((await getStatusCode(`${url}/api/system_status`)) === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not answer within 30 s:\n${output()}`);
    }
    await sleep(100);
  }
  return { pid: child.pid, url, port: opts.port, cpu, output, stop };
}

/** True when `taskset` can run here (util-linux). */
export function haveTaskset(): Promise<boolean> {
  return new Promise((resolve) => execFile("taskset", ["-V"], { timeout: 5_000 }, (err) => resolve(!err)));
}

/** Pins every thread of this process to `cpu` (`taskset -a -p -c`); false when that failed. */
export function pinSelf(cpu: number): Promise<boolean> {
  return new Promise((resolve) =>
    execFile("taskset", ["-a", "-p", "-c", String(cpu), String(process.pid)], { timeout: 5_000 }, (err) =>
      resolve(!err),
    ),
  );
}

// ------------------------------------------------------------------------------------- seeding

/**
 * Calls `fill(tx, from, to)` for [0, total) in slices of `batch`, one transaction each, and collects
 * garbage and yields between slices (see the module documentation).
 */
export async function seedBatches(
  db: Db,
  total: number,
  batch: number,
  fill: (tx: Tx, from: number, to: number) => Promise<void>,
): Promise<void> {
  for (let from = 0; from < total; from += batch) {
    const to = Math.min(total, from + batch);
    await db.transaction((tx) => fill(tx, from, to));
    await settle();
  }
}

/** Nearest-rank percentile `q` (0–1) of ascending values; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

// ------------------------------------------------------------------------------------- CPU profiles

/** A node of a V8 .cpuprofile (what `node --cpu-prof` writes). */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

/** Where a profile frame's code lives: a package, a file of ours, node internals, native code or V8. */
function frameOwner(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (url === "") return functionName.startsWith("(") ? functionName : `native: ${functionName || "(anonymous)"}`;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith("node:")) return "node internals";
  const ours = /\/(server|shared|agent|cli)\/src\/(.*)$/.exec(url);
  if (ours) return `${ours[1]}/src/${ours[2]}`;
  return url;
}

/**
 * Self time of a .cpuprofile grouped by owner (package, our file, node internals, native function,
 * GC) and by function, as "share of samples" lines, the top `limit` of each.
 */
export function summariseCpuProfile(file: string, limit = 15): string[] {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples?: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  if (profile.samples && profile.samples.length > 0)
    for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  else for (const n of profile.nodes) hits.set(n.id, n.hitCount ?? 0);
  let total = 0;
  let idle = 0;
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, h] of hits) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === "(idle)") {
      idle += h;
      continue;
    }
    total += h;
    const owner = frameOwner(frame);
    owners.set(owner, (owners.get(owner) ?? 0) + h);
    const where = frame.url.includes("/node_modules/")
      ? frame.url.slice(frame.url.lastIndexOf("/node_modules/") + 14)
      : frame.url.startsWith(`file://${REPO_ROOT}`)
        ? frame.url.slice(7 + REPO_ROOT.length)
        : frame.url;
    const fn = `${frame.functionName || "(anonymous)"} ${where ? `${where}:${frame.lineNumber + 1}` : ""}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + h);
  }
  const pct = (h: number): string => `${((h / Math.max(1, total)) * 100).toFixed(1).padStart(5)} %`;
  const top = (m: Map<string, number>): string[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([k, h]) => `    ${pct(h)}  ${k}`);
  return [
    `  busy samples ${total} (idle ${idle}); self time by owner:`,
    ...top(owners),
    "  self time by function:",
    ...top(functions),
  ];
}

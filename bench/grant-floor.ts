/**
 * The floor of the grant path on this machine (issue #13 "Close to the machine's limits"): the time
 * from a POST to the address being present in HAProxy when every hop of a real grant is made and
 * nothing else is done. `bench/grant-latency.ts` measures Postern on the same hops; the difference
 * between its HAProxy `present` and this benchmark's is Postern's own work (database transaction,
 * session, validation, frame authentication, enforcer), the rest is the machine's.
 *
 * Run from the repository root: `node bench/grant-floor.ts [--samples N] [--warmup N]`. Needs
 * `haproxy` (installed by scripts/setup.sh --test); no root.
 *
 * The hops, each process as in a deployment:
 * - this process: an HTTP/1.1 client on a keep-alive connection (as the grant benchmark's measuring
 *   session), `POST /grant {"ip": ...}` to
 * - a bare server process (this file, `--role server`): node:http, reads and JSON-parses the body,
 *   sends one WebSocket text frame `{"type":"apply","ops":[{"op":"add","ip":...}]}` (the `ws` package,
 *   as the real server) to the agent process, then answers `{"ok":true}`;
 * - a bare agent process (`--role agent`): JSON-parses the frame and sends `add acl #0 <ip>` on one
 *   kept runtime API session (unix socket, prompt mode: agent/src/backends/haproxy/driver.ts
 *   `RuntimeSession`, as the real agent) to
 * - a real HAProxy (`haproxy -W`, test/support/haproxy.ts).
 * Nothing else: no database, session, signature, schema validation or look-up before the add.
 *
 * One sample, paced as the grant benchmark's: t0 just before the POST; `present` = the first answer
 * of the same membership probe (`get acl #0 <ip>` every `--poll-interval-ms`, default 0.2 ms, on a
 * runtime API session of its own, from a worker thread: bench/grant-latency-probe.ts) that shows the
 * address; `response` = the POST's answer arrived. Then `POST /revoke` (the same hops with `del acl`),
 * a wait until the probe shows the address gone, and a pause of 5–15 ms, as the grant benchmark's
 * revoke, status reads and pause between samples. The first `--warmup` samples (default 50) are not
 * counted, as in bench/grant-latency.ts.
 *
 * Figures are printed (`BENCH-FIGURES`: a reference, no target), never asserted. The child
 * processes and HAProxy are stopped by PID at the end, on a signal and after `--timeout-minutes`.
 */
import { fork } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { WebSocket, WebSocketServer } from "ws";
import { RuntimeSession } from "../agent/src/backends/haproxy/driver.ts";
import { startHaproxy } from "../test/support/haproxy.ts";
import { preciseNow, WorkerProbe } from "./grant-latency-probe.ts";
import { runBenchmark } from "./lib/cleanup.ts";
import type { Cleanup } from "./lib/cleanup.ts";
import { reportFigures } from "./lib/report.ts";
import { formatMs as ms, percentile, printTable } from "./lib/stats.ts";
import { intOption, numberOption } from "./lib/options.ts";

/** Command-line options of the main process. */
export interface FloorOptions {
  /** Counted samples (default 50). */
  readonly samples: number;
  /** Samples run first and not counted (default 50). */
  readonly warmup: number;
  /** Pause between the starts of two probes, in milliseconds (default 0.2). */
  readonly pollIntervalMs: number;
  /** Whole-run watchdog in minutes (default 10). */
  readonly timeoutMinutes: number;
}

/**
 * Parses `--samples N --warmup N --poll-interval-ms X --timeout-minutes N` (`--role` is the child
 * processes' own). @throws Error on an unknown option or an invalid value.
 */
export function parseFloorOptions(argv: readonly string[]): FloorOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      samples: { type: "string", default: "50" },
      warmup: { type: "string", default: "50" },
      "poll-interval-ms": { type: "string", default: "0.2" },
      "timeout-minutes": { type: "string", default: "10" },
    },
    strict: true,
  });
  const poll = numberOption("poll-interval-ms", values["poll-interval-ms"], 0, 100);
  return {
    samples: intOption("samples", values.samples, 1, 100_000),
    warmup: intOption("warmup", values.warmup, 0, 10_000),
    pollIntervalMs: poll,
    timeoutMinutes: intOption("timeout-minutes", values["timeout-minutes"], 1, 24 * 60),
  };
}

// ------------------------------------------------------------------------------ the bare processes

/** The bare server: POST /grant and /revoke forward `{ip}` to the agent as one WebSocket frame. */
function serveBare(): void {
  const wss = new WebSocketServer({ noServer: true });
  let agent: WebSocket | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { ip } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { ip: string };
      const op = req.url === "/revoke" ? "del" : "add";
      agent?.send(JSON.stringify({ type: "apply", ops: [{ op, ip }] }));
      const body = JSON.stringify({ ok: agent !== null });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.on("upgrade", (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      agent = ws;
      process.send?.({ type: "agent" });
    }),
  );
  server.listen(0, "127.0.0.1", () => process.send?.({ type: "port", port: (server.address() as AddressInfo).port }));
}

/** The bare agent: each frame's ops become `add acl` / `del acl` on one kept runtime API session. */
async function enforceBare(port: string, socketPath: string): Promise<void> {
  const session = await RuntimeSession.open({ path: socketPath });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
  let chain = Promise.resolve();
  ws.on("message", (data: Buffer) => {
    const { ops } = JSON.parse(data.toString("utf8")) as { ops: { op: "add" | "del"; ip: string }[] };
    chain = chain.then(async () => {
      await session.send(ops.map((o) => `${o.op} acl #0 ${o.ip}`));
    });
  });
  ws.on("close", () => process.exit(0));
}

// ------------------------------------------------------------------------------------------ the run

/** Starts this file as a child in `role`; stopped by PID at clean-up. */
function child(cleanup: Cleanup, role: string, args: readonly string[]): ChildProcess {
  const proc = fork(fileURLToPath(import.meta.url), ["--role", role, ...args], { stdio: "inherit" });
  cleanup.add(`bare ${role}`, async () => {
    if (proc.exitCode === null && proc.pid !== undefined) process.kill(proc.pid, "SIGKILL");
  });
  return proc;
}

/** Resolves with the first IPC message of `proc` that `pick` accepts (bounded: 15 s). */
function message<T>(proc: ChildProcess, pick: (m: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("child process did not report within 15 s")), 15_000);
    const on = (m: unknown): void => {
      const got = pick(m);
      if (got === undefined) return;
      clearTimeout(timer);
      proc.off("message", on);
      resolve(got);
    };
    proc.on("message", on);
    proc.once("exit", (code) => reject(new Error(`child process exited (${code})`)));
  });
}

async function run(options: FloorOptions, cleanup: Cleanup): Promise<number> {
  console.log(
    `grant path floor: bare node HTTP → WebSocket → bare agent → HAProxy "add acl", ${options.samples} samples (+${options.warmup} warm-up)`,
  );
  const haproxy = await startHaproxy();
  cleanup.add("haproxy", () => haproxy.stop());
  const server = child(cleanup, "server", []);
  const port = await message(server, (m) =>
    (m as { type?: string }).type === "port" ? (m as { port: number }).port : undefined,
  );
  const connected = message(server, (m) => ((m as { type?: string }).type === "agent" ? true : undefined));
  child(cleanup, "agent", [String(port), haproxy.socketPath]);
  await connected;
  const probe = await WorkerProbe.start({
    kind: "haproxy",
    socketPath: haproxy.socketPath,
    aclId: 0,
    intervalMs: options.pollIntervalMs,
  });
  cleanup.add("probe", () => probe.close());

  const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
  cleanup.add("keep-alive agent", async () => keepAlive.destroy());
  const post = (path: string, ip: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ ip });
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: "POST",
          agent: keepAlive,
          headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(preciseNow()));
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  const present: number[] = [];
  const response: number[] = [];
  const ip = "10.250.0.1";
  for (let i = 0; i < options.warmup + options.samples; i++) {
    const t0 = preciseNow();
    const [seen, answered] = await Promise.all([probe.poll(ip, true, 5_000), post("/grant", ip)]);
    if (i >= options.warmup) {
      present.push(seen.at - t0);
      response.push(answered - t0);
    }
    await post("/revoke", ip);
    await probe.poll(ip, false, 5_000);
    await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
  }

  const rows = [
    ["present", present],
    ["response", response],
  ].map(([name, values]) => {
    const sorted = [...(values as number[])].sort((a, b) => a - b);
    return [name as string, String(sorted.length), ...[0.5, 0.9, 0.99, 1].map((q) => ms(percentile(sorted, q)))];
  });
  printTable(["figure", "samples", "p50", "p90", "p99", "max"], rows, 1);
  const sorted = [...present].sort((a, b) => a - b);
  reportFigures([
    {
      figure: "grant path floor (bare HTTP → WebSocket → HAProxy add acl) → present, p50 / p99",
      target: "reference",
      result: `${ms(percentile(sorted, 0.5))} / ${ms(percentile(sorted, 0.99))} ms`,
      met: null,
    },
  ]);
  return 0;
}

const { values: role } = parseArgs({
  args: process.argv.slice(2),
  options: { role: { type: "string" } },
  strict: false,
  allowPositionals: true,
});
if (role.role === "server") serveBare();
else if (role.role === "agent") {
  const [port, socketPath] = process.argv.slice(4);
  void enforceBare(port ?? "", socketPath ?? "");
} else if (import.meta.main) {
  const options = parseFloorOptions(process.argv.slice(2));
  runBenchmark(options.timeoutMinutes, (cleanup) => run(options, cleanup));
}

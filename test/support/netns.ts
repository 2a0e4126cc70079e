/**
 * Test helpers for real network parts in Linux network namespaces (docs/reference.md design "Testing with real parts").
 *
 * `createNetnsPair()` makes two namespaces (server, client) joined by one veth pair, with addresses
 * 10.213.N.1/30 (server) and 10.213.N.2/30 (client), plus fd00:213:N::1/64 and ::2/64. Nothing is
 * added to the host's own namespace, so no traffic ever leaves the pair. `destroy()` stops every process
 * started through the pair (by PID) and deletes both namespaces, which also deletes the veth, the ipset
 * sets and the iptables rules made inside them.
 *
 * Needs root and iproute2 (`ip netns`). Use `netnsSupport()` to skip tests cleanly otherwise.
 */
import { execa } from "execa";
import type { ResultPromise } from "execa";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import type { CommandResult, CommandRunner, RunOptions } from "../../agent/src/process/runner.ts";

/** One end of a namespace pair. `ip` / `ip6` are the addresses of `dev` inside `ns`. */
export interface NetnsEnd {
  readonly ns: string;
  readonly dev: string;
  readonly ip: string;
  readonly ip6: string;
}

/** A process started inside a namespace, stopped by its PID. */
export interface NetnsProcess {
  readonly pid: number;
  /** Sends SIGTERM (then SIGKILL after 2 s) to the PID and waits for it to exit. Idempotent. */
  stop(): Promise<void>;
}

/** A small HTTP server (answers 200 `ok` to every request) listening on all addresses of a namespace. */
export interface NetnsHttpServer extends NetnsProcess {
  readonly port: number;
}

/** Two namespaces joined by a veth pair. */
export interface NetnsPair {
  readonly server: NetnsEnd;
  readonly client: NetnsEnd;
  /** The N of 10.213.N.0/30. */
  readonly subnet: number;
  /** Runs a command inside a namespace of this pair (`ip netns exec NS command args`). */
  run(ns: string, command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
  /** Like `run`, but throws with the command's stderr when it exits non-zero. */
  runOk(ns: string, command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
  /** Starts an HTTP server in `ns` (default the server end) on `port` (0 = any free port). */
  startHttpServer(port?: number, ns?: string): Promise<NetnsHttpServer>;
  /**
   * Makes one HTTP GET from the client namespace (default) to `url`, bounded by `timeoutMs`
   * (milliseconds, default 1,500). See `httpRequestFrom`.
   */
  request(url: string, timeoutMs?: number, ns?: string): Promise<HttpProbe>;
  /** Stops every process started through this pair and deletes both namespaces. Idempotent; never throws. */
  destroy(): Promise<void>;
}

/** Result of a bounded HTTP request: `ok` with the status, or the reason it failed (`timeout`, `ECONNREFUSED`, ...). */
export type HttpProbe = { readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string };

const baseRunner = new ExecaRunner({ defaultTimeoutMs: 20_000 });
let counter = 0;

/** Whether tests on namespaces can run here: root and a working `ip netns`. `reason` says why not. */
export async function netnsSupport(): Promise<{ ok: boolean; reason: string }> {
  if (process.getuid?.() !== 0) return { ok: false, reason: "needs root (ip netns, iptables, ipset)" };
  try {
    const r = await baseRunner.run("ip", ["netns", "list"], { timeoutMs: 5_000 });
    if (r.exitCode !== 0) return { ok: false, reason: `ip netns does not work: ${r.stderr.trim()}` };
  } catch (e) {
    return { ok: false, reason: `iproute2 missing: ${(e as Error).message}` };
  }
  return { ok: true, reason: "" };
}

/** Runs `command args` inside namespace `ns` through `runner` (`ip netns exec NS command args`). */
export function runInNetns(
  runner: CommandRunner,
  ns: string,
  command: string,
  args: readonly string[],
  options?: RunOptions,
): Promise<CommandResult> {
  return runner.run("ip", ["netns", "exec", ns, command, ...args], options);
}

/** A CommandRunner that runs every command of `base` inside namespace `ns` (prefix `ip netns exec NS`). */
export function netnsRunner(base: CommandRunner, ns: string): CommandRunner {
  const spawnIn = base.spawn?.bind(base);
  return {
    run: (command, args, options) => runInNetns(base, ns, command, args, options),
    ...(spawnIn
      ? { spawn: (command, args, options) => spawnIn("ip", ["netns", "exec", ns, command, ...args], options) }
      : {}),
  };
}

/**
 * Creates a namespace pair with unique names (`pstn-PID-K-s`, `pstn-PID-K-c`) and addresses
 * 10.213.N.1/30 (server) / 10.213.N.2/30 (client). On failure everything created so far is deleted.
 * @throws Error when a step fails (not root, iproute2 missing).
 */
export async function createNetnsPair(): Promise<NetnsPair> {
  const k = ++counter;
  const subnet = ((process.pid * 7 + k) % 250) + 1;
  const tag = `${process.pid}-${k}`;
  const server: NetnsEnd = {
    ns: `pstn-${tag}-s`,
    dev: `pv${process.pid % 100000}x${k}s`,
    ip: `10.213.${subnet}.1`,
    ip6: `fd00:213:${subnet.toString(16)}::1`,
  };
  const client: NetnsEnd = {
    ns: `pstn-${tag}-c`,
    dev: `pv${process.pid % 100000}x${k}c`,
    ip: `10.213.${subnet}.2`,
    ip6: `fd00:213:${subnet.toString(16)}::2`,
  };
  const processes = new Set<NetnsProcess>();
  let destroyed = false;

  const ipCmd = async (args: readonly string[]): Promise<void> => {
    const r = await baseRunner.run("ip", args, { timeoutMs: 10_000 });
    if (r.exitCode !== 0) throw new Error(`ip ${args.join(" ")} failed: ${r.stderr.trim()}`);
  };

  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    destroyed = true;
    for (const p of [...processes]) await p.stop().catch(() => undefined);
    for (const end of [server, client]) {
      // Anything still running inside our own namespaces was started by this test: stop it by PID.
      const pids = await baseRunner.run("ip", ["netns", "pids", end.ns], { timeoutMs: 5_000 }).catch(() => null);
      for (const pid of (pids?.stdout ?? "").split(/\s+/).filter(Boolean).map(Number)) {
        if (Number.isInteger(pid) && pid > 1) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
      }
      await baseRunner.run("ip", ["netns", "del", end.ns], { timeoutMs: 10_000 }).catch(() => undefined);
    }
  };

  const run = (ns: string, command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult> =>
    runInNetns(baseRunner, ns, command, args, options);
  const runOk = async (
    ns: string,
    command: string,
    args: readonly string[],
    options?: RunOptions,
  ): Promise<CommandResult> => {
    const r = await run(ns, command, args, options);
    if (r.exitCode !== 0)
      throw new Error(`[${ns}] ${command} ${args.join(" ")} failed (${r.exitCode}): ${r.stderr.trim()}`);
    return r;
  };

  try {
    await ipCmd(["netns", "add", server.ns]);
    await ipCmd(["netns", "add", client.ns]);
    await ipCmd([
      "link",
      "add",
      server.dev,
      "netns",
      server.ns,
      "type",
      "veth",
      "peer",
      "name",
      client.dev,
      "netns",
      client.ns,
    ]);
    for (const end of [server, client]) {
      await ipCmd(["-n", end.ns, "link", "set", "lo", "up"]);
      await ipCmd(["-n", end.ns, "addr", "add", `${end.ip}/30`, "dev", end.dev]);
      await ipCmd(["-n", end.ns, "-6", "addr", "add", `${end.ip6}/64`, "dev", end.dev, "nodad"]);
      await ipCmd(["-n", end.ns, "link", "set", end.dev, "up"]);
    }
  } catch (e) {
    await destroy();
    throw e;
  }

  const pair: NetnsPair = {
    server,
    client,
    subnet,
    run,
    runOk,
    async startHttpServer(port = 0, ns = server.ns) {
      const srv = await startHttpServerIn(ns, port);
      processes.add(srv);
      return {
        pid: srv.pid,
        port: srv.port,
        stop: async () => {
          processes.delete(srv);
          await srv.stop();
        },
      };
    },
    request: (url, timeoutMs = 1_500, ns = client.ns) => httpRequestFrom(ns, url, timeoutMs),
    destroy,
  };
  return pair;
}

const HTTP_SERVER_SCRIPT = `
const http = require("node:http");
const server = http.createServer((req, res) => { res.writeHead(200, { "content-type": "text/plain" }); res.end("ok"); });
server.listen({ port: Number(process.argv[1]), host: "::", ipv6Only: false }, () => { console.log("listening " + server.address().port); });
process.on("SIGTERM", () => { server.close(); process.exit(0); });
`;

/**
 * Starts a node HTTP server inside namespace `ns`, listening on every address (IPv4 and IPv6) on
 * `port` (0 = any free port), answering 200 `ok`. Resolves once it listens (bounded: 10 s).
 * @throws Error when it does not start in time.
 */
export async function startHttpServerIn(ns: string, port = 0): Promise<NetnsHttpServer> {
  const child = execa("ip", ["netns", "exec", ns, process.execPath, "-e", HTTP_SERVER_SCRIPT, String(port)], {
    reject: false,
    stdin: "ignore",
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("HTTP server did not start");
  const stop = stopper(child, pid);
  try {
    const listening = await waitForLine(child, /^listening (\d+)/m, 10_000);
    return { pid, port: Number(listening[1]), stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

const HTTP_CLIENT_SCRIPT = `
const http = require("node:http");
const [url, t] = process.argv.slice(1);
const timeout = Number(t);
const done = (text) => { console.log(text); process.exit(0); };
const timer = setTimeout(() => done("error timeout"), timeout);
const req = http.get(url, { timeout }, (res) => { res.resume(); res.on("end", () => { clearTimeout(timer); done("status " + res.statusCode); }); });
req.on("timeout", () => { req.destroy(); done("error timeout"); });
req.on("error", (e) => done("error " + (e.code || e.message)));
`;

/**
 * Makes one HTTP GET from inside namespace `ns` to `url` with a node one-liner, bounded by `timeoutMs`
 * (milliseconds; the process itself is killed after timeoutMs + 5 s). Resolves `{ok: true, status}` when
 * an answer came, `{ok: false, error}` otherwise (`timeout` when packets were dropped,
 * `ECONNREFUSED` when rejected). Never throws.
 */
export async function httpRequestFrom(ns: string, url: string, timeoutMs = 1_500): Promise<HttpProbe> {
  const r = await runInNetns(baseRunner, ns, process.execPath, ["-e", HTTP_CLIENT_SCRIPT, url, String(timeoutMs)], {
    timeoutMs: timeoutMs + 5_000,
  }).catch((e: unknown) => ({ exitCode: -1, stdout: "", stderr: (e as Error).message }));
  const status = /^status (\d+)/m.exec(r.stdout);
  if (status?.[1]) return { ok: true, status: Number(status[1]) };
  const error = /^error (.+)$/m.exec(r.stdout);
  return { ok: false, error: error?.[1] ?? `client failed (${r.exitCode}): ${r.stderr.trim()}` };
}

function stopper(child: ResultPromise, pid: number): () => Promise<void> {
  let stopped: Promise<void> | null = null;
  return () => {
    stopped ??= (async () => {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        // already gone
      }
      const exited = await Promise.race([
        child.then(
          () => true,
          () => true,
        ),
        sleep(2_000).then(() => false),
      ]);
      if (!exited) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
        await Promise.race([
          child.then(
            () => undefined,
            () => undefined,
          ),
          sleep(2_000),
        ]);
      }
    })();
    return stopped;
  };
}

/** Waits (bounded by `timeoutMs`) for `pattern` to appear on the child's stdout; returns the match. */
async function waitForLine(child: ResultPromise, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  const stdout = child.stdout;
  if (!stdout) throw new Error("child has no stdout");
  let text = "";
  return new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output: ${text}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const m = pattern.exec(text);
      if (m) finish(null, m);
    };
    let settled = false;
    function finish(error: Error | null, m?: RegExpExecArray): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stdout?.off("data", onData);
      if (error) reject(error);
      else if (m) resolve(m);
    }
    stdout.on("data", onData);
    const onExit = (): void => finish(new Error(`process exited before ${pattern}; output: ${text}`));
    child.then(onExit, onExit);
  });
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Drops TCP traffic to `port` in the pair's server namespace unless its source is in the ipset `set`
 * (`iptables`, or `ip6tables` for an inet6 set): the rule every ipset test protects its server with.
 */
export async function dropUnlessInSet(
  pair: NetnsPair,
  port: number,
  set: string,
  family: "inet" | "inet6" = "inet",
): Promise<void> {
  const tool = family === "inet6" ? "ip6tables" : "iptables";
  await pair.runOk(pair.server.ns, tool, [
    "-A",
    "INPUT",
    "-p",
    "tcp",
    "--dport",
    String(port),
    "-m",
    "set",
    "!",
    "--match-set",
    set,
    "src",
    "-j",
    "DROP",
  ]);
}

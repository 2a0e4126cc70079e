/**
 * Grant latency benchmark (issue #13 "Close to the machine's limits": POST /api/grant → address
 * present in HAProxy / ipset, p50 ≤ 2 ms and p99 ≤ 10 ms with 1,000 live sessions; docs/reference.md
 * design "Performance targets": p50 ≤ 10 ms, p99 ≤ 50 ms). It measures the deployment a user has:
 * the server and the agent each in its own process, as their systemd units run them.
 *
 * Run as root from the repository root: `node bench/grant-latency.ts [--samples N]`.
 *
 * Set-up (everything real, each in its own process):
 * - the REAL server as a child process (`node server/src/main.ts`, test/support/replicas.ts with one
 *   replica): its data directory prepared through the real CLI as an operator would (`postern db
 *   migrate`, `postern admin create --password-stdin`, `postern license install` of the roomy test
 *   licence), POSTERN_TRUSTED_PROXIES=127.0.0.1 so that every user session gets its own address
 *   through X-Forwarded-For, log level info (the packaged default); on 127.0.0.1. With `--database
 *   postgres` it runs on a fresh database of a throw-away PostgreSQL cluster (bench/lib/database.ts).
 * - the REAL agent as a child process (bench/lib/agent-process.ts, as bench/memory.ts): created through
 *   the admin API, enrolled through the server's real endpoint, then `node agent/src/main.ts run
 *   --config FILE` (default log level info and drift check every 5 s; `--agent-packaged`: the
 *   esbuild program tree as packaged with packaging/bin/postern-agent's node flags and environment).
 *   It holds the backends: HAProxy (a real `haproxy -W` on loopback, reached over its unix runtime
 *   socket) and ipset (a real set inside a network namespace this run creates). One ACL on each,
 *   ClickToGrant, no MaximumGrantDuration. Also, where they run: nftables (a set with `flags
 *   timeout` in table `inet postern` of the same namespace, probed with one `nft get element` process
 *   per probe, so its resolution is a few milliseconds) and a script backend (a shell script that
 *   keeps the addresses as lines of a file under flock, run by the agent like any custom script;
 *   probed by reading the file).
 * - How the agent process reaches the namespace: the agent stays in the host's network namespace
 *   (the server's WebSocket on 127.0.0.1 is only reachable from there, and the agent refuses http://
 *   to anything but loopback), and the commands it starts by name, `ipset` and `nft`, are wrappers
 *   first on its PATH that exec the real command inside the namespace (`ip netns exec NS
 *   /usr/sbin/ipset "$@"`; `agentNetnsShims`). The agent runs as root with `useSudo: false`, as
 *   packaging's postern-agent.service does; its ipset backend starts its one long-lived `ipset
 *   -exist -` process through the wrapper once, so a grant costs a line on that process's stdin as
 *   for a user. HAProxy's runtime socket is a file, reachable from either namespace.
 * - Levels of live sessions (default 1, 100, 1000). Level N = one measuring session plus N − 1
 *   background sessions of one user with SessionLimit null, each signed in from its own address
 *   10.1.x.y (8 sign-ins at a time: Argon2id costs ~30–50 ms each), each granted on every ACL, so the
 *   HAProxy ACL and the ipset hold N entries while measuring (checked before measuring).
 *
 * One sample, for one target (HAProxy or ipset), on the measuring session (address 10.250.0.1):
 * 1. revoke its grant on that ACL, wait until GET /api/status shows it Revoked (9: the agent's
 *    acknowledgement of the `del` was handled), and for the address to be gone from the target, then
 *    pause 5–15 ms;
 * 2. t0 = just before POST /api/grant is sent; then, concurrently:
 *    - `present`: the target is polled until it holds the address, from a worker thread
 *      (`bench/grant-latency-probe.ts`, so that polling does not wait on this process's event loop),
 *      one probe every `--poll-interval-ms` (default 0.2 ms) or back to back when a probe takes
 *      longer. HAProxy: `get acl #ID <ip>` on a persistent runtime API session (prompt mode) over the
 *      unix socket. ipset: `ipset test SET <ip>` inside the namespace, by default through ONE
 *      long-lived interactive `ipset -` process (no spawn per probe), or with `--ipset-probe spawn`
 *      one `ip netns exec … ipset test` process per probe, which costs a few milliseconds each and so
 *      limits the resolution to that. The time recorded is when the first positive answer arrived;
 *      the entry appeared after the last negative probe was sent. That window (per sample) and the
 *      probe round trips are printed as the "resolution".
 *    - `response`: when the POST /api/grant answer arrived.
 * 3. `acked`: once both have arrived, GET /api/status of the measuring session is polled, one request
 *    at a time (bounded), until the entry's Status is 0 (Granted: the agent applied the entry and its
 *    `ack` was committed by the server); the time is when that answer arrived. Polling starts only
 *    after `present` and `response`, so that it does not load the server while those are measured;
 *    when the ack was committed before that, the figure is late by up to one status round trip (the
 *    acked window, printed like the probes', says how much).
 *    All times are `performance.timeOrigin + performance.now()`, comparable across threads.
 * The first `--warmup` samples (default 50) of every level and target are run but not counted: V8
 * optimises the code of the grant path (server and agent) only after some tens of grants, and a running
 * server has long done so; the first 50 grants after a start took 1.5–2× as long (median 6.8 ms against
 * 3.4–4.4 ms for the next 350, 2026-11-26). bench/grant-floor.ts measures the same hops without Postern.
 *
 * Caveats:
 * - Server, agent, HAProxy, ipset, this script and its probe workers share the machine's CPUs (two
 *   on the machine the figures of bench/README.md come from), so figures vary with load; run it on an
 *   otherwise idle machine. The RSS printed is each process's own (server, agent, this script).
 * - The agent keeps its default drift check (every 5 s it re-reads each target: `show acl #ID`,
 *   `ipset list`, `nft list set`, 1,000 entries at the top level). A grant arriving during one waits
 *   for it in that target's queue, which shows in the tail figures; the agent being its own process,
 *   those re-reads are no longer traced per sample (they were while it ran in this process).
 * - The HAProxy backend adds the entry over the runtime API and answers; the ACL file is rewritten
 *   within 500 ms after the change (so a reload keeps the entries), outside the measured path
 *   (agent/src/backends/haproxy/driver.ts, no fsync per change since issue #13). The ipset backend
 *   writes each batch to its long-lived `ipset -exist -` process (agent/src/backends/ipset/shell.ts).
 * - Percentiles are nearest-rank: with 50 samples p99 is the largest sample, p90 the 45th.
 * - Figures are reported, never asserted: the script exits 0 once it ran, 1 when set-up failed.
 * - Without root, `ip netns` or the ipset command, only HAProxy is measured (said so in the output).
 */
import { Agent } from "node:http";
import { parseArgs } from "node:util";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentCapabilities } from "../shared/src/index.ts";
import { ExecaRunner } from "../agent/src/process/execa-runner.ts";
import { startHaproxy } from "../test/support/haproxy.ts";
import type { HaproxyInstance } from "../test/support/haproxy.ts";
import { createNetnsPair, netnsSupport } from "../test/support/netns.ts";
import type { NetnsPair } from "../test/support/netns.ts";
import { startReplicaSet } from "../test/support/replicas.ts";
import { ApiClient, aclStatus, waitFor } from "../test/support/stack.ts";
import { preciseNow, WorkerProbe } from "./grant-latency-probe.ts";
import { agentLaunch, agentNetnsShims, describeLaunch, enrolAgent, startAgentProcess } from "./lib/agent-process.ts";
import type { AgentProcess } from "./lib/agent-process.ts";
import { runBenchmark } from "./lib/cleanup.ts";
import type { Cleanup } from "./lib/cleanup.ts";
import { benchDatabase, benchDatabaseUrl, DATABASE_OPTION } from "./lib/database.ts";
import { reportFigures } from "./lib/report.ts";
import { formatMs as ms, percentile, printTable } from "./lib/stats.ts";
import { mb, procMemory } from "./server-process.ts";
import { intOption, numberOption } from "./lib/options.ts";

/** The nftables table of the benchmark's set (in the namespace). */
const NFT_TABLE = "inet postern";

/**
 * The script backend's script: keeps the granted addresses as lines of @FILE@ (arguments: action,
 * ACL name, address; flush empties it), under flock since the agent may run calls side by side.
 */
const SCRIPT = `#!/bin/sh
set -e
exec 9>"@FILE@.lock"
flock 9
case "$1" in
  add) grep -qxF "$3" "@FILE@" || echo "$3" >> "@FILE@" ;;
  del) grep -vxF "$3" "@FILE@" > "@FILE@.tmp" || true; mv "@FILE@.tmp" "@FILE@" ;;
  flush) : > "@FILE@" ;;
  *) echo "unknown action $1" >&2; exit 2 ;;
esac
`;

/** The design target, printed under the table. */
export const DESIGN_TARGET =
  'design.md "Performance targets": POST /api/grant → address present in the real HAProxy ACL / ipset: p50 ≤ 10 ms, p99 ≤ 50 ms with 1,000 live sessions';

/** Address of the measuring session (outside the background range 10.1.x.y). */
const MEASURING_IP = "10.250.0.1";
/** Longest wait for one sample's address to appear or disappear, and for its status to change (ms). */
const SAMPLE_TIMEOUT_MS = 5_000;
/** Longest wait, after set-up, for the acknowledgements of the set-up's grants to reach the server (ms). */
const SETUP_ACK_TIMEOUT_MS = 60_000;
/** Longest wait for the agent process to connect to the server (ms). */
const CONNECT_TIMEOUT_MS = 20_000;

/** Command-line options. */
export interface BenchOptions {
  /** Counted samples per level and target (default 50). */
  readonly samples: number;
  /** Samples run first and not counted, per level and target (default 3). */
  readonly warmup: number;
  /** Levels of live sessions, ascending (default 1, 100, 1000). */
  readonly levels: readonly number[];
  /** Sign-ins and background grants in flight at once during set-up (default 8). */
  readonly concurrency: number;
  /** How ipset is polled: one interactive `ipset -` process, or one process per probe. */
  readonly ipsetProbe: "interactive" | "spawn";
  /** Pause between the starts of two probes of a target, in milliseconds (default 0.2). */
  readonly pollIntervalMs: number;
  /** Measure HAProxy only, even where ipset could run. */
  readonly haproxyOnly: boolean;
  /** Run the agent from its esbuild program tree as packaged, not from source. */
  readonly agentBundle: boolean;
  /** As `agentBundle`, with packaging/bin/postern-agent's node flags and environment. */
  readonly agentPackaged: boolean;
  /** Print one line per sample. */
  readonly verbose: boolean;
  /** Whole-run watchdog in minutes (default 30): past it the run is cleaned up and exits 1. */
  readonly timeoutMinutes: number;
  /** The server's database: SQLite (default) or a throw-away PostgreSQL cluster started for the run. */
  readonly database: "sqlite" | "postgres";
}

/**
 * Parses the command line (`--samples N`, `--warmup N`, `--levels 1,100,1000`, `--concurrency N`,
 * `--ipset-probe interactive|spawn`, `--poll-interval-ms X`, `--timeout-minutes N`, `--haproxy-only`,
 * `--agent-bundle`, `--agent-packaged`, `--verbose`, `--database sqlite|postgres`).
 * @throws Error on an unknown option or an invalid value.
 */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      samples: { type: "string", default: "50" },
      warmup: { type: "string", default: "50" },
      levels: { type: "string", default: "1,100,1000" },
      // Sign-ins of one account at once: the login throttle serves them in turn (services/auth/throttle.ts).
      concurrency: { type: "string", default: "8" },
      "ipset-probe": { type: "string", default: "interactive" },
      "poll-interval-ms": { type: "string", default: "0.2" },
      "timeout-minutes": { type: "string", default: "30" },
      verbose: { type: "boolean", default: false },
      "haproxy-only": { type: "boolean", default: false },
      "agent-bundle": { type: "boolean", default: false },
      "agent-packaged": { type: "boolean", default: false },
      ...DATABASE_OPTION,
    },
    strict: true,
  });
  const levels = values.levels.split(",").map((t) => intOption("levels", t.trim(), 1, 20_000));
  const probe = values["ipset-probe"];
  if (probe !== "interactive" && probe !== "spawn")
    throw new Error(`--ipset-probe must be interactive or spawn, got ${JSON.stringify(probe)}`);
  const pollInterval = numberOption("poll-interval-ms", values["poll-interval-ms"], 0, 100);
  return {
    database: benchDatabase(values.database),
    samples: intOption("samples", values.samples, 1, 100_000),
    warmup: intOption("warmup", values.warmup, 0, 1_000),
    levels: [...new Set(levels)].sort((a, b) => a - b),
    concurrency: intOption("concurrency", values.concurrency, 1, 64),
    ipsetProbe: probe,
    pollIntervalMs: pollInterval,
    verbose: values.verbose,
    haproxyOnly: values["haproxy-only"],
    agentBundle: values["agent-bundle"] || values["agent-packaged"],
    agentPackaged: values["agent-packaged"],
    timeoutMinutes: intOption("timeout-minutes", values["timeout-minutes"], 1, 24 * 60),
  };
}

// ------------------------------------------------------------------------------------------ helpers

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `fn` over `items` with at most `limit` calls in flight; rejects on the first failure. */
async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Address of background session `i` (1-based): 10.1.x.y, y in 1–250. */
function backgroundIp(i: number): string {
  return `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

// ------------------------------------------------------------------------------------------ status

/** A session's status entry of an ACL, as GET /api/status answers it. */
type StatusEntry = Awaited<ReturnType<typeof aclStatus>>;

/**
 * Reads `user`'s status entry of `aclId` with GET /api/status, one request at a time, until `done`
 * holds for it (bounded by `timeoutMs`). Returns the deciding entry, when its answer arrived and when
 * the last request answered otherwise was sent (null: the first answer decided).
 * @throws Error on timeout (naming the last status seen) or a failed request.
 */
async function pollStatus(
  user: ApiClient,
  aclId: string,
  done: (entry: StatusEntry) => boolean,
  timeoutMs: number,
): Promise<{ entry: StatusEntry; at: number; lastMissStart: number | null }> {
  const end = preciseNow() + timeoutMs;
  let lastMissStart: number | null = null;
  for (;;) {
    const start = preciseNow();
    const entry = await aclStatus(user, aclId);
    const at = preciseNow();
    if (done(entry)) return { entry, at, lastMissStart };
    lastMissStart = start;
    if (at > end)
      throw new Error(`status of ${aclId} still ${entry.Status} (${entry.Error || "no error"}) after ${timeoutMs} ms`);
  }
}

// ------------------------------------------------------------------------------------------ the run

/** One measured target: its ACL, how it is probed and how many entries it holds. */
interface Target {
  readonly name: "haproxy" | "ipset" | "nftables" | "script";
  readonly aclId: string;
  readonly probe: WorkerProbe;
  /** Number of entries the target holds now. */
  count(): Promise<number>;
}

/** Figures of one (level, target). */
interface Figures {
  present: number[];
  acked: number[];
  response: number[];
  rtts: number[];
  /** Per sample: first positive answer − start of the last negative probe (how exact `present` is). */
  uncertainty: number[];
  /**
   * Per sample: the Granted status answer's arrival − start of the last request answered otherwise;
   * NaN when the first read after present and response already showed Granted.
   */
  ackedWindow: number[];
  errors: string[];
}

/** The processes whose memory is reported. */
interface Processes {
  readonly server: number;
  readonly agent: number;
}

/** "server 80 MB, agent 60 MB, bench 120 MB" (VmRSS of each now). */
function rssLine(pids: Processes): string {
  const rss = (pid: number): string => mb(procMemory(pid)?.rss ?? Number.NaN);
  return `RSS server ${rss(pids.server)}, agent ${rss(pids.agent)}, bench (client + probe workers) ${mb(process.memoryUsage().rss)}`;
}

async function run(options: BenchOptions, cleanup: Cleanup): Promise<number> {
  const startedAt = preciseNow();
  console.log(
    `grant latency benchmark: levels ${options.levels.join(", ")} live sessions, ${options.samples} samples (+${options.warmup} warm-up) per level and target; server and agent each in its own process`,
  );
  // On PostgreSQL the server process runs on a fresh database of a throw-away cluster (lib/database.ts).
  const databaseUrl = await benchDatabaseUrl(cleanup, options.database);

  // --- what can run here
  const support = options.haproxyOnly ? { ok: false, reason: "--haproxy-only given" } : await netnsSupport();
  const haveIpset =
    support.ok && (await new ExecaRunner().run("ipset", ["-v"]).catch(() => ({ exitCode: 1 }))).exitCode === 0;
  if (!haveIpset)
    console.log(`ipset NOT measured: ${support.ok ? "no ipset command" : support.reason}. Measuring HAProxy only.`);
  const haveNft =
    haveIpset && (await new ExecaRunner().run("nft", ["--version"]).catch(() => ({ exitCode: 1 }))).exitCode === 0;
  if (haveIpset && !haveNft) console.log("nftables NOT measured: no nft command.");
  const measureScript = !options.haproxyOnly;

  const dir = await mkdtemp(join(tmpdir(), "postern-bench-grant-"));
  cleanup.add("temporary folder", () => rm(dir, { recursive: true, force: true }));

  // --- HAProxy, namespace + set
  const haproxy: HaproxyInstance = await startHaproxy();
  cleanup.add("haproxy", () => haproxy.stop());
  let pair: NetnsPair | null = null;
  const set = `pbench${process.pid % 1_000_000}`;
  if (haveIpset) {
    pair = await createNetnsPair();
    const p = pair;
    cleanup.add("namespaces", () => p.destroy());
    await p.runOk(p.server.ns, "ipset", [
      "create",
      set,
      "hash:ip",
      "family",
      "inet",
      "timeout",
      "0",
      "maxelem",
      "65536",
    ]);
    if (haveNft) {
      await p.runOk(p.server.ns, "nft", ["add", "table", ...NFT_TABLE.split(" ")]);
      await p.runOk(p.server.ns, "nft", [
        "add",
        "set",
        ...NFT_TABLE.split(" "),
        set,
        "{ type ipv4_addr; flags timeout; }",
      ]);
    }
  }
  // The script backend's script keeps its entries as lines of a file (flock: calls may overlap).
  const scriptFile = join(dir, "entries");
  const scriptPath = join(dir, "allow.sh");
  if (measureScript) {
    await writeFile(scriptPath, SCRIPT.replaceAll("@FILE@", scriptFile), { mode: 0o755 });
    await writeFile(scriptFile, "");
  }

  // --- the server process, and its admin
  const servers = await startReplicaSet({
    count: 1,
    database: databaseUrl ? { kind: "postgres", url: databaseUrl } : { kind: "sqlite" },
    trustedProxies: ["127.0.0.1"],
  });
  cleanup.add("server", () => servers.close());
  const server = servers.replicas[0]!;
  const admin = new ApiClient(server.url);
  await admin.ok("POST", "/api/admin/login", { UserName: servers.admin.userName, Password: servers.admin.password });

  // --- the agent process, holding every backend
  const capabilities: AgentCapabilities = {
    haproxy: { socket_location: haproxy.socketPath },
    ...(measureScript ? { script: { enabled: true } } : {}),
    ...(haveNft
      ? {
          nftables: {
            command_available: true,
            sets: [{ table: NFT_TABLE, name: set, type: "ipv4_addr", timeout: true }],
          },
        }
      : {}),
    ...(pair
      ? {
          ipset: {
            command_available: true,
            sudo_enabled: false,
            ipsets: [{ name: set, address_family: "inet" as const }],
          },
        }
      : {}),
  };
  const created = await admin.ok<{ ID: string; Token: string }>("POST", "/api/admin/agents", { Name: "bench" });
  const agentId = created.ID;
  const configPath = join(dir, "agent.json");
  await enrolAgent({
    server: server.url,
    token: created.Token,
    configPath,
    capabilities,
    settings: { haproxySocket: haproxy.socketPath, scriptsEnabled: measureScript },
  });
  let shims: string | undefined;
  if (pair) {
    shims = join(dir, "netns-bin");
    await mkdir(shims);
    agentNetnsShims(shims, pair.server.ns, haveNft ? ["ipset", "nft"] : ["ipset"]);
  }
  const launch = await agentLaunch({
    bundle: options.agentBundle,
    packaged: options.agentPackaged,
    treeDir: join(dir, "tree"),
  });
  if (options.agentPackaged)
    console.log(describeLaunch("agent", { nodeArgs: launch.nodeArgs, env: { ...launch.env } }));
  const agent: AgentProcess = startAgentProcess({ configPath, launch, ...(shims ? { pathPrefix: shims } : {}) });
  cleanup.add("agent", () => agent.stop());
  const connected = await waitFor(
    async () => {
      if (agent.exited() !== null) return true;
      return (await admin.ok<{ Connected: boolean }>("GET", `/api/admin/agents/${agentId}`)).Connected;
    },
    CONNECT_TIMEOUT_MS,
    100,
  );
  if (agent.exited() !== null || !connected)
    throw new Error(
      `the agent process did not connect within ${CONNECT_TIMEOUT_MS / 1000} s (exit: ${agent.exited() ?? "still running"}):\n${agent.output()}`,
    );
  const pids: Processes = { server: server.pid, agent: agent.pid };
  console.log(
    `server PID ${server.pid} (${server.url}), agent PID ${agent.pid} (${options.agentBundle ? `packaged program tree${options.agentPackaged ? " with the launcher's flags" : ""}` : "from source"}${pair ? `; ipset${haveNft ? " and nft" : ""} run in namespace ${pair.server.ns} through PATH wrappers` : ""})`,
  );

  const hapBackend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: "haproxy",
    AgentID: agentId,
    Config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
  });
  const hapAcl = await admin.ok<string>("POST", "/api/admin/acls", {
    Description: "HAProxy",
    BackendID: hapBackend.ID,
    ClickToGrant: true,
    Config: { haproxy: { ID: haproxy.aclId } },
  });
  const targets: Target[] = [];
  const hapProbe = await WorkerProbe.start({
    kind: "haproxy",
    socketPath: haproxy.socketPath,
    aclId: haproxy.aclId,
    intervalMs: options.pollIntervalMs,
  });
  cleanup.add("haproxy probe", () => hapProbe.close());
  targets.push({
    name: "haproxy",
    aclId: hapAcl,
    probe: hapProbe,
    count: async () =>
      (await haproxy.command(`show acl #${haproxy.aclId}`)).split("\n").filter((l) => /^0x/.test(l.trim())).length,
  });
  if (pair) {
    const p = pair;
    const ipsetBackend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "ipset",
      AgentID: agentId,
      Config: { ipset: {} },
    });
    const ipsetAcl = await admin.ok<string>("POST", "/api/admin/acls", {
      Description: "ipset",
      BackendID: ipsetBackend.ID,
      ClickToGrant: true,
      Config: { ipset: { V4SetName: set, V6SetName: "" } },
    });
    const probe = await WorkerProbe.start({
      kind: options.ipsetProbe === "spawn" ? "ipset-spawn" : "ipset-interactive",
      ns: p.server.ns,
      set,
      intervalMs: options.pollIntervalMs,
    });
    cleanup.add("ipset probe", () => probe.close());
    targets.push({
      name: "ipset",
      aclId: ipsetAcl,
      probe,
      count: async () =>
        Number(
          /Number of entries:\s*(\d+)/.exec((await p.runOk(p.server.ns, "ipset", ["list", "-t", set])).stdout)?.[1] ??
            NaN,
        ),
    });
  }
  if (pair && haveNft) {
    const p = pair;
    const nftBackend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "nftables",
      AgentID: agentId,
      Config: { nftables: {} },
    });
    const nftAcl = await admin.ok<string>("POST", "/api/admin/acls", {
      Description: "nftables",
      BackendID: nftBackend.ID,
      ClickToGrant: true,
      Config: { nftables: { Table: NFT_TABLE, V4SetName: set, V6SetName: "" } },
    });
    const probe = await WorkerProbe.start({
      kind: "nft-spawn",
      ns: p.server.ns,
      table: NFT_TABLE,
      set,
      intervalMs: options.pollIntervalMs,
    });
    cleanup.add("nftables probe", () => probe.close());
    targets.push({
      name: "nftables",
      aclId: nftAcl,
      probe,
      count: async () =>
        (
          (await p.runOk(p.server.ns, "nft", ["list", "set", ...NFT_TABLE.split(" "), set])).stdout.match(
            /\b\d+\.\d+\.\d+\.\d+\b/g,
          ) ?? []
        ).length,
    });
  }
  if (measureScript) {
    const scriptBackend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "script",
      AgentID: agentId,
      Config: { script: { Command: scriptPath, EnvVars: [] } },
    });
    const scriptAcl = await admin.ok<string>("POST", "/api/admin/acls", {
      Description: "script",
      BackendID: scriptBackend.ID,
      ClickToGrant: true,
      Config: { script: { Name: "pbench" } },
    });
    const probe = await WorkerProbe.start({ kind: "file", path: scriptFile, intervalMs: options.pollIntervalMs });
    cleanup.add("script probe", () => probe.close());
    targets.push({
      name: "script",
      aclId: scriptAcl,
      probe,
      count: async () => (await readFile(scriptFile, "utf8")).split("\n").filter((l) => l !== "").length,
    });
  }
  const aclIds = targets.map((t) => t.aclId);

  // --- users: one measuring session, background sessions of one user with SessionLimit null
  for (const [userName, password] of [
    ["measure", "measure-password"],
    ["bulk", "bulk-password"],
  ] as const)
    await admin.ok<string>("POST", "/api/admin/users", {
      Name: userName,
      UserName: userName,
      PlainPassword: password,
      ConfirmPassword: password,
      AclIds: aclIds,
    });
  // The measuring session keeps its connection, as a browser does: a grant click is sent on it.
  const measuring = new ApiClient(server.url, {
    headers: { "x-forwarded-for": MEASURING_IP },
    agent: new Agent({ keepAlive: true, maxSockets: 1 }),
  });
  await measuring.ok("POST", "/api/login", { UserName: "measure", Password: "measure-password", KioskMode: false });
  const background: ApiClient[] = [];
  const agentAlive = (): void => {
    if (agent.exited() !== null) throw new Error(`the agent process exited (${agent.exited()}):\n${agent.output()}`);
    if (server.exited()) throw new Error(`the server process exited:\n${server.output()}`);
  };

  const results = new Map<string, Figures>();
  const levelLines: string[] = [];
  for (const level of options.levels) {
    // --- bring the live sessions up to `level`, every one granted on every ACL
    const setupStart = preciseNow();
    const want = level - 1;
    const fresh = Array.from({ length: Math.max(0, want - background.length) }, (_, k) => background.length + k + 1);
    await mapLimit(fresh, options.concurrency, async (i) => {
      const client = new ApiClient(server.url, { headers: { "x-forwarded-for": backgroundIp(i) } });
      await client.ok("POST", "/api/login", { UserName: "bulk", Password: "bulk-password", KioskMode: false });
      for (const aclId of aclIds) await client.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
      background.push(client);
    });
    for (const aclId of aclIds) await measuring.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    const filled = await waitFor(
      async () => {
        agentAlive();
        for (const t of targets) if ((await t.count()) !== level) return false;
        return true;
      },
      120_000,
      100,
    );
    const counts = await Promise.all(targets.map(async (t) => `${t.name} ${await t.count()}`));
    if (!filled)
      throw new Error(`level ${level}: the targets did not reach ${level} entries within 120 s (${counts.join(", ")})`);
    const filledAt = preciseNow();
    for (const t of targets) {
      // The agent's acknowledgements of the set-up's grants may still be on their way to the server.
      const s = await pollStatus(measuring, t.aclId, (e) => e.Status !== 2, SETUP_ACK_TIMEOUT_MS).catch(
        (e: unknown) => {
          throw new Error(`level ${level}: the measuring session's grant on ${t.name}: ${(e as Error).message}`);
        },
      );
      if (s.entry.Status !== 0)
        throw new Error(
          `level ${level}: the measuring session's grant on ${t.name} has status ${s.entry.Status} (${s.entry.Error})`,
        );
    }
    const ackSeconds = (preciseNow() - filledAt) / 1000;
    const setupSeconds = (preciseNow() - setupStart) / 1000;

    // --- measure
    for (const t of targets)
      results.set(`${level} ${t.name}`, {
        present: [],
        acked: [],
        response: [],
        rtts: [],
        uncertainty: [],
        ackedWindow: [],
        errors: [],
      });
    for (let k = 0; k < options.warmup + options.samples; k++) {
      for (const t of targets) {
        const fig = results.get(`${level} ${t.name}`) as Figures;
        try {
          agentAlive();
          const sample = await measureOnce(t, measuring);
          if (k >= options.warmup) {
            fig.present.push(sample.present);
            fig.acked.push(sample.acked);
            fig.response.push(sample.response);
            fig.rtts.push(...sample.rtts);
            fig.uncertainty.push(sample.uncertainty);
            fig.ackedWindow.push(sample.ackedWindow);
          }
          if (options.verbose) {
            const f = (v: number): string => ms(v).padStart(6);
            console.log(
              `  ${level} ${t.name.padEnd(8)} #${String(k + 1).padStart(3)}${k < options.warmup ? " (warm-up)" : "          "} present ${f(sample.present)}  acked ${f(sample.acked)} (window ${ms(sample.ackedWindow)})  response ${f(sample.response)}  probes ${sample.rtts.length} (window ${ms(sample.uncertainty)})`,
            );
          }
        } catch (e) {
          fig.errors.push((e as Error).message);
          agentAlive();
          await sleep(500);
        }
      }
    }
    const line = `level ${level}: ${level} live sessions (entries: ${counts.join(", ")}); set-up ${setupSeconds.toFixed(1)} s (of which ${ackSeconds.toFixed(1)} s waiting, once the targets were full, for the measuring session's grants to show Granted); ${rssLine(pids)}`;
    levelLines.push(line);
    console.log(line);
  }

  // --- report
  console.log("");
  const header = ["level", "target", "figure", "samples", "p50 ms", "p90 ms", "p99 ms", "max ms"];
  const rows: string[][] = [];
  for (const level of options.levels) {
    for (const t of targets) {
      const fig = results.get(`${level} ${t.name}`) as Figures;
      for (const name of ["present", "acked", "response"] as const) {
        const sorted = [...fig[name]].sort((a, b) => a - b);
        rows.push([
          String(level),
          t.name,
          name,
          String(sorted.length),
          ms(percentile(sorted, 0.5)),
          ms(percentile(sorted, 0.9)),
          ms(percentile(sorted, 0.99)),
          ms(sorted.at(-1) ?? NaN),
        ]);
      }
    }
  }
  printTable(header, rows, 3);
  console.log("");
  console.log(`target: ${DESIGN_TARGET}; issue #13: p50 ≤ 2 ms, p99 ≤ 10 ms`);
  console.log(
    "figures: present = t0 (just before POST /api/grant) → first probe answer showing the address in the target;",
  );
  console.log("         response = t0 → the POST /api/grant answer arrived;");
  console.log(
    "         acked   = t0 → the first GET /api/status answer showing the entry Granted (the agent's ack committed by",
  );
  console.log("         the server), polled one request at a time once present and response were in. Nearest rank.");
  console.log(
    `resolution: one probe every ${options.pollIntervalMs} ms at most, from a worker thread; "window" = first positive answer − start of the last negative`,
  );
  console.log(
    "            probe, i.e. how much earlier than reported the entry may have appeared (per sample, all levels):",
  );
  for (const t of targets) {
    const figs = options.levels.map((l) => results.get(`${l} ${t.name}`) as Figures);
    const rtts = figs.flatMap((f) => f.rtts).sort((a, b) => a - b);
    const windows = figs.flatMap((f) => f.uncertainty).sort((a, b) => a - b);
    const ackedAll = figs.flatMap((f) => f.ackedWindow);
    const acked = ackedAll.filter((w) => !Number.isNaN(w)).sort((a, b) => a - b);
    console.log(`  ${t.name}: ${t.probe.how}`);
    console.log(
      `    window p50 ${ms(percentile(windows, 0.5))} ms, p99 ${ms(percentile(windows, 0.99))} ms; probe round trip p50 ${ms(percentile(rtts, 0.5))} ms, p99 ${ms(percentile(rtts, 0.99))} ms (${rtts.length} probes)`,
    );
    console.log(
      `    acked: Granted at the first status read in ${ackedAll.length - acked.length} of ${ackedAll.length} samples (the ack came earlier: acked is late there by up to that read); otherwise window p50 ${ms(percentile(acked, 0.5))} ms`,
    );
  }
  if (!haveIpset) console.log("ipset was NOT measured (see above).");
  const top = options.levels.at(-1) as number;
  reportFigures(
    targets.flatMap((t) => {
      const present = [...(results.get(`${top} ${t.name}`) as Figures).present].sort((a, b) => a - b);
      const p50 = percentile(present, 0.5);
      const p99 = percentile(present, 0.99);
      return [
        {
          figure: `POST /api/grant → present, ${t.name}, ${top} live sessions, p50 / p99`,
          target: "≤ 2 / ≤ 10 ms",
          result: `${ms(p50)} / ${ms(p99)} ms`,
          met: p50 <= 2 && p99 <= 10,
        },
      ];
    }),
  );
  for (const l of levelLines) console.log(l);
  for (const level of options.levels) {
    for (const t of targets) {
      const errors = (results.get(`${level} ${t.name}`) as Figures).errors;
      if (errors.length > 0)
        console.log(`errors at level ${level} ${t.name}: ${errors.length} samples failed, first: ${errors[0]}`);
    }
  }
  console.log(`total run time ${((preciseNow() - startedAt) / 1000).toFixed(1)} s`);
  return 0;
}

/**
 * One sample on `target` for the measuring session: revoke and wait until the revocation is
 * acknowledged and the address gone, then time the grant (see the module documentation).
 * @throws Error when a step times out or the grant does not end as Granted.
 */
async function measureOnce(
  target: Target,
  user: ApiClient,
): Promise<{
  t0: number;
  present: number;
  acked: number;
  response: number;
  uncertainty: number;
  ackedWindow: number;
  rtts: number[];
}> {
  const ip = MEASURING_IP;

  // 1. revoke, wait until acknowledged (Revoked, 9) and gone
  const entry = await aclStatus(user, target.aclId);
  if (entry.Status !== 4 && entry.Status !== 9) {
    await user.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
    const revoked = await pollStatus(user, target.aclId, (e) => e.Status !== 8, SAMPLE_TIMEOUT_MS);
    if (revoked.entry.Status !== 9 && revoked.entry.Status !== 4)
      throw new Error(`revoke ended as status ${revoked.entry.Status}: ${revoked.entry.Error || "?"}`);
  }
  await target.probe.poll(ip, false, SAMPLE_TIMEOUT_MS);
  await sleep(5 + Math.random() * 10);

  // 2. grant and time it
  const t0 = preciseNow();
  const post = user
    .call("POST", "/api/grant", { ACLID: target.aclId, IPs: [] })
    .then((r) => ({ status: r.status, at: preciseNow() }));
  const [present, response] = await Promise.all([target.probe.poll(ip, true, SAMPLE_TIMEOUT_MS), post]);
  if (response.status !== 200) throw new Error(`POST /api/grant answered ${response.status}`);

  // 3. the acknowledgement, read from outside once present and response are in
  const acked = await pollStatus(user, target.aclId, (e) => e.Status !== 2, SAMPLE_TIMEOUT_MS);
  if (acked.entry.Status !== 0)
    throw new Error(`the grant ended as status ${acked.entry.Status}, not 0 (${acked.entry.Error})`);
  return {
    t0,
    present: present.at - t0,
    acked: acked.at - t0,
    response: response.at - t0,
    uncertainty: present.at - (present.lastMissStart ?? t0),
    // NaN: the first status read already showed Granted (the ack came before polling began).
    ackedWindow: acked.lastMissStart === null ? Number.NaN : acked.at - acked.lastMissStart,
    rtts: present.rtts,
  };
}

const options = parseOptions(process.argv.slice(2));
runBenchmark(options.timeoutMinutes, (cleanup) => run(options, cleanup));

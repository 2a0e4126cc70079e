/**
 * A real HAProxy load balancer in front of Postern replicas for tests (issue #12 items 6 and 8;
 * docs/high-availability.md "The load balancer"). `startLoadBalancer()` writes the configuration of
 * {@link loadBalancerConfig} to a temp dir, runs `haproxy -W -S <dir>/master.sock -f <cfg>` in the
 * foreground (master-worker), waits until the frontend accepts connections and the runtime API answers,
 * and `stop()` ends it by PID (SIGTERM, SIGKILL after 5 s) and removes the dir.
 *
 * The balancer speaks HTTP (so the agents' WebSocket upgrade passes and is then tunnelled, `timeout
 * tunnel` one hour), health-checks every replica with `GET /api/system_status` every 300 ms, takes a
 * replica out after 2 failed checks and cuts the sessions it held (`on-marked-down shutdown-sessions`,
 * so an agent whose replica hangs rather than dies is moved too), and retries a refused connection on
 * another replica (`option redispatch`, `retries 2`; also a request the dead replica's kept connection
 * left unanswered, `retry-on conn-failure empty-response junk-response`) so that a request arriving
 * in the instant between the death and the check lands on a live one. It adds `X-Forwarded-For`: the replicas must trust the
 * address the balancer dials them from (`source`, POSTERN_TRUSTED_PROXIES) to see users' addresses; a
 * client at that same address would be refused (400: its X-Forwarded-For names only a trusted proxy),
 * so tests give the balancer an address of its own (127.0.0.2).
 */
import { createConnection } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, runtimeCommand } from "./haproxy.ts";
import { startProcess } from "./process.ts";

/** One backend address `host:port` (IPv6 in brackets). */
export type BackendAddress = string;

/** Timing of the health checks and timeouts, milliseconds. */
export interface LoadBalancerTiming {
  /** Interval between two health checks of one replica (HAProxy `inter`; default 300). */
  readonly checkIntervalMs: number;
  /** Failed checks in a row that take a replica out (`fall`; default 2). */
  readonly fall: number;
  /** Passed checks in a row that put it back (`rise`; default 2). */
  readonly rise: number;
  /** Time allowed to connect to a replica (`timeout connect`, also the check's; default 1,000). */
  readonly connectTimeoutMs: number;
}

/** Defaults of {@link LoadBalancerTiming}: a dead replica is out within about 2 × 300 ms (plus the check's own time). */
export const DEFAULT_LB_TIMING: LoadBalancerTiming = {
  checkIntervalMs: 300,
  fall: 2,
  rise: 2,
  connectTimeoutMs: 1_000,
};

/**
 * The HAProxy configuration of the balancer (the one docs/high-availability.md prints): frontend
 * `fe_postern` on `bind`, backend `postern` with one `server rN` per address in `backends` (r1, r2, ...
 * in order), round robin, health-checked as described in the module comment. `socketPath` is the runtime
 * API socket (admin level). Returns the file's text.
 */
export function loadBalancerConfig(options: {
  bind: string;
  backends: readonly BackendAddress[];
  socketPath: string;
  timing?: Partial<LoadBalancerTiming>;
  /** The address HAProxy dials the replicas from (`source`; default the system's choice): what they trust as their proxy. */
  source?: string;
}): string {
  const t = { ...DEFAULT_LB_TIMING, ...options.timing };
  return [
    "global",
    `  stats socket ${options.socketPath} mode 600 level admin`,
    "",
    "defaults",
    "  mode http",
    "  option httplog",
    "  option forwardfor",
    `  timeout connect ${t.connectTimeoutMs}ms`,
    "  timeout client 60s",
    "  timeout server 60s",
    "  # Agents hold one WebSocket each; the agent and the server ping it (15-30 s), so it is never idle this long.",
    "  timeout tunnel 1h",
    "  timeout http-request 10s",
    "  option redispatch",
    "  retries 2",
    // A request sent on a kept connection to a replica that just died gets no answer: sent again too.
    "  retry-on conn-failure empty-response junk-response",
    "",
    "frontend fe_postern",
    `  bind ${options.bind}`,
    "  default_backend postern",
    "",
    "backend postern",
    "  balance roundrobin",
    ...(options.source ? [`  source ${options.source}`] : []),
    "  option httpchk GET /api/system_status",
    "  http-check expect status 200",
    `  default-server check inter ${t.checkIntervalMs}ms fall ${t.fall} rise ${t.rise} on-marked-down shutdown-sessions`,
    ...options.backends.map((address, i) => `  server r${i + 1} ${address}`),
    "",
  ].join("\n");
}

/** A running load balancer. */
export interface LoadBalancer {
  /** PID of the HAProxy master. */
  readonly pid: number;
  /** `http://127.0.0.1:<port>`: the base URL clients and agents use. */
  readonly url: string;
  /** The frontend's port on 127.0.0.1. */
  readonly port: number;
  /** The configuration file's text (as written). */
  readonly config: string;
  /**
   * The state HAProxy holds of each replica, by server name (`r1`, `r2`, ...): `UP`, `DOWN`, `MAINT`, or a
   * transition such as `UP 1/2` (HAProxy's `show stat` status column).
   */
  status(): Promise<Record<string, string>>;
  /**
   * The client sessions the balancer holds right now, each with its client's address and the replica
   * (`r1`, ...) it is forwarded to, or undefined while not yet assigned (HAProxy's `show sess`). A
   * WebSocket stays one session for its whole life, so this tells which replica holds an agent.
   */
  sessions(): Promise<{ src: string; server?: string }[]>;
  /** Stops HAProxy by its master PID and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts HAProxy balancing over `backends` (see the module comment) on a free port of 127.0.0.1 and
 * resolves once its frontend accepts connections and its runtime API answers (bounded: 15 s). The
 * backends need not be up yet: HAProxy starts with every server UP until its checks say otherwise.
 * @throws Error when `backends` is empty, or HAProxy refuses the configuration or does not come up
 *   (its output included); nothing is left running then.
 */
export async function startLoadBalancer(
  backends: readonly BackendAddress[],
  options: { timing?: Partial<LoadBalancerTiming>; binary?: string; source?: string } = {},
): Promise<LoadBalancer> {
  if (backends.length === 0) throw new Error("a load balancer needs at least one backend");
  const dir = await mkdtemp(join(tmpdir(), `postern-lb-${process.pid}-`));
  const socketPath = join(dir, "admin.sock");
  const port = await freePort();
  const config = loadBalancerConfig({
    bind: `127.0.0.1:${port}`,
    backends,
    socketPath,
    ...(options.timing ? { timing: options.timing } : {}),
    ...(options.source ? { source: options.source } : {}),
  });
  const cfg = join(dir, "haproxy.cfg");
  await writeFile(cfg, config);
  const proc = startProcess(options.binary ?? "haproxy", ["-W", "-S", join(dir, "master.sock"), "-f", cfg], {
    cwd: dir,
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  });
  const status = async (): Promise<Record<string, string>> => {
    const csv = await runtimeCommand(socketPath, "show stat");
    const lines = csv.split("\n").filter((l) => l.trim() !== "");
    const header = (lines[0] ?? "").replace(/^# /, "").split(",");
    const [px, sv, st] = ["pxname", "svname", "status"].map((h) => header.indexOf(h));
    const out: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const cols = line.split(",");
      if (cols[px!] === "postern" && cols[sv!] !== "BACKEND") out[cols[sv!]!] = cols[st!] ?? "";
    }
    return out;
  };
  const sessions = async (): Promise<{ src: string; server?: string }[]> => {
    const text = await runtimeCommand(socketPath, "show sess");
    const out: { src: string; server?: string }[] = [];
    for (const line of text.split("\n")) {
      if (!/\bfe=fe_postern\b/.test(line)) continue;
      const src = /\bsrc=(\S+)/.exec(line)?.[1];
      const server = /\bsrv=(\S+)/.exec(line)?.[1];
      if (src) out.push({ src, ...(server && server !== "<NONE>" ? { server } : {}) });
    }
    return out;
  };
  try {
    if (proc.pid === undefined) throw new Error("haproxy did not start");
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (proc.exited()) throw new Error("haproxy exited");
      try {
        await new Promise<void>((resolve, reject) => {
          const s = createConnection({ host: "127.0.0.1", port }, () => {
            s.destroy();
            resolve();
          });
          s.on("error", reject);
        });
        if (Object.keys(await status()).length === backends.length) break;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error("haproxy did not come up within 15 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    return { pid: proc.pid, url: `http://127.0.0.1:${port}`, port, config, status, sessions, stop: proc.stop };
  } catch (e) {
    await proc.stop();
    throw new Error(`${(e as Error).message}\nhaproxy output:\n${proc.output()}`, { cause: e });
  }
}

/**
 * Test helpers for a real HAProxy on loopback (docs/reference.md design "Testing with real parts").
 *
 * `startHaproxy()` writes a temp config with two admin runtime sockets (unix `<dir>/admin.sock` and TCP
 * `127.0.0.1:<free port>`), a frontend on `127.0.0.1:<free port>` that answers 403 unless the source
 * address is in the ACL file `<dir>/allow-<n>.acl` and 200 `ok` otherwise (or other rules in front of the
 * `ok`: `frontendRules`), and runs HAProxy in the
 * foreground in master-worker mode (`haproxy -W -S <dir>/master.sock -f cfg`). `reload()` sends SIGUSR2
 * to the master and waits until a new worker answers and the master's CLI answers again; `stop()`
 * terminates the master by PID and removes the temp dir.
 *
 * Why the master CLI: after a reload the master re-executes itself, and the new worker can answer the
 * runtime API before the new master has installed its signal handlers; a SIGUSR2 sent in that window is
 * lost. The master serves its CLI only from its main loop, after the handlers are in place, so an answer
 * there means the next reload signal will be taken.
 */
import { request } from "node:http";
import { createServer, createConnection } from "node:net";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess } from "./process.ts";

/** A running HAProxy. Ports are TCP ports on 127.0.0.1. */
export interface HaproxyInstance {
  /** PID of the master process. */
  readonly pid: number;
  /** Temp directory holding the config, the sockets and the ACL file. */
  readonly dir: string;
  /** Unix runtime API socket (admin level). */
  readonly socketPath: string;
  /** TCP runtime API address `127.0.0.1:PORT` (admin level). */
  readonly tcpAddress: string;
  /** Port of the HTTP frontend on 127.0.0.1. */
  readonly frontendPort: number;
  /** Numeric id (`#ID`) of the ACL loaded from `aclFile`, as `show acl` reports it. */
  readonly aclId: number;
  /** Absolute path of the ACL file behind `aclId`. */
  readonly aclFile: string;
  /** Sends one runtime API command over the unix socket and returns HAProxy's answer text. */
  command(command: string): Promise<string>;
  /** PID of the worker currently serving the runtime API (`show info` Pid). */
  workerPid(): Promise<number>;
  /** Reloads (SIGUSR2 to the master) and waits (bounded: 15 s) until a new worker serves and the master is ready for the next reload. */
  reload(): Promise<void>;
  /** Stops HAProxy by its master PID (SIGTERM, SIGKILL after 5 s) and removes the temp dir. Idempotent. */
  stop(): Promise<void>;
}

/** Options of `startHaproxy`. */
export interface StartHaproxyOptions {
  /** Addresses written to the ACL file before HAProxy starts. */
  readonly initialEntries?: readonly string[];
  /** HAProxy executable (default `haproxy`). */
  readonly binary?: string;
  /** Name of the ACL file in the temp dir (default `allow-<n>.acl`); knocproxy tests use `<Name>.acl`. */
  readonly aclFileName?: string;
  /**
   * The frontend's access rules in place of the default two (`acl allowed src -f <aclFile>` and
   * `http-request deny deny_status 403 unless allowed`), given the ACL file's absolute path; they must
   * load that file as an ACL (`aclId` is looked up by its path). The final `return 200 ok` stays.
   * Used to test configuration snippets from the docs (e.g. the deny page of docs/admin-guide.md).
   */
  readonly frontendRules?: (aclFile: string) => readonly string[];
}

let counter = 0;

/** Finds a free TCP port on `host` (default 127.0.0.1) by binding port 0 and closing again. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Sends one command to an HAProxy runtime API (non-interactive: HAProxy closes after answering) and
 * resolves with the answer text. `target` is a unix socket path or `{host, port}`. Bounded by `timeoutMs`.
 * @throws Error on connection failure or timeout.
 */
export function runtimeCommand(
  target: string | { host: string; port: number },
  command: string,
  timeoutMs = 3_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = typeof target === "string" ? createConnection({ path: target }) : createConnection(target);
    let text = "";
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`runtime API: no answer to "${command}" within ${timeoutMs} ms`));
    }, timeoutMs);
    s.setEncoding("utf8");
    // Half-close after the command: the worker CLI closes after answering anyway, the master CLI only on EOF.
    s.on("connect", () => s.end(`${command}\n`));
    s.on("data", (d: string) => (text += d));
    s.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    s.on("close", () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

/**
 * Starts HAProxy as described in the module documentation and resolves once the runtime API answers
 * and the frontend accepts connections (bounded: 15 s).
 * @throws Error when the config is refused or HAProxy does not come up (stderr included).
 */
export async function startHaproxy(options: StartHaproxyOptions = {}): Promise<HaproxyInstance> {
  const n = ++counter;
  const dir = await mkdtemp(join(tmpdir(), `postern-haproxy-${process.pid}-`));
  const socketPath = join(dir, "admin.sock");
  const masterSocket = join(dir, "master.sock");
  const aclFile = join(dir, options.aclFileName ?? `allow-${n}.acl`);
  const [tcpPort, frontendPort] = [await freePort(), await freePort()];
  await writeFile(aclFile, (options.initialEntries ?? []).map((e) => `${e}\n`).join(""));
  const cfg = join(dir, "haproxy.cfg");
  await writeFile(
    cfg,
    [
      "global",
      `  stats socket ${socketPath} mode 600 level admin`,
      `  stats socket 127.0.0.1:${tcpPort} level admin`,
      "  stats timeout 30s",
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 5s",
      "  timeout server 5s",
      "frontend fe_test",
      `  bind 127.0.0.1:${frontendPort}`,
      ...(
        options.frontendRules?.(aclFile) ?? [
          `acl allowed src -f ${aclFile}`,
          "http-request deny deny_status 403 unless allowed",
        ]
      ).map((line) => `  ${line}`),
      "  http-request return status 200 content-type text/plain string ok",
      "",
    ].join("\n"),
  );
  const proc = startProcess(options.binary ?? "haproxy", ["-W", "-S", masterSocket, "-f", cfg], {
    cwd: dir,
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  });
  const pid = proc.pid;
  const stop = proc.stop;

  const command = (c: string): Promise<string> => runtimeCommand(socketPath, c);
  const workerPid = async (): Promise<number> => {
    const info = await command("show info");
    const m = /^Pid:\s*(\d+)/m.exec(info);
    if (!m?.[1]) throw new Error(`show info has no Pid: ${info.slice(0, 200)}`);
    return Number(m[1]);
  };
  /** True once the master's CLI answers `show proc` listing `worker` among its current workers. */
  const masterServes = async (worker: number): Promise<boolean> => {
    const procs = await runtimeCommand(masterSocket, "show proc");
    const current = procs.split("# old workers")[0] ?? "";
    return new RegExp(`^${worker}\\s+worker\\b`, "m").test(current);
  };

  try {
    if (pid === undefined) throw new Error("haproxy did not start");
    // Wait for the runtime API and the frontend.
    await until(15_000, async () => {
      if (proc.exited()) throw new Error(`haproxy exited: ${proc.output()}`);
      if (!(await masterServes(await workerPid()))) return false;
      await new Promise<void>((resolve, reject) => {
        const s = createConnection({ host: "127.0.0.1", port: frontendPort }, () => {
          s.destroy();
          resolve();
        });
        s.on("error", reject);
      });
      return true;
    });
    const refs = await command("show acl");
    const row = refs.split("\n").find((l) => l.includes(`(${aclFile})`));
    const aclId = Number(/^(\d+) /.exec(row ?? "")?.[1]);
    if (!row || !Number.isInteger(aclId)) throw new Error(`no ACL for ${aclFile} in show acl:\n${refs}`);

    return {
      pid,
      dir,
      socketPath,
      tcpAddress: `127.0.0.1:${tcpPort}`,
      frontendPort,
      aclId,
      aclFile,
      command,
      workerPid,
      async reload() {
        const before = await workerPid();
        process.kill(pid, "SIGUSR2");
        await until(15_000, async () => {
          if (proc.exited()) throw new Error(`haproxy exited during reload: ${proc.output()}`);
          const now = await workerPid();
          return now !== before && (await masterServes(now));
        });
      },
      stop,
    };
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\nhaproxy output:\n${proc.output()}`, { cause: e });
  }
}

/** Result of `httpGetFrom`: the HTTP status, `refused` (connection refused), `timeout`, or another error text. */
export type HttpGetResult = number | "refused" | "timeout" | string;

/**
 * GETs `url` with the local (source) address `sourceAddress` (any 127.x.y.z works on loopback), bounded
 * by `timeoutMs` (milliseconds, default 2,000). Resolves the status code, `refused`, `timeout` or the
 * error code. Never rejects.
 */
export function httpGetFrom(sourceAddress: string, url: string, timeoutMs = 2_000): Promise<HttpGetResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: HttpGetResult): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(v);
      }
    };
    const req = request(url, { localAddress: sourceAddress, agent: false, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0));
      res.on("error", () => done(res.statusCode ?? 0));
    });
    const timer = setTimeout(() => {
      req.destroy();
      done("timeout");
    }, timeoutMs);
    req.on("timeout", () => {
      req.destroy();
      done("timeout");
    });
    req.on("error", (e: NodeJS.ErrnoException) => done(e.code === "ECONNREFUSED" ? "refused" : (e.code ?? e.message)));
    req.end();
  });
}

/** Polls `check` every 50 ms until it returns true, bounded by `timeoutMs`; errors from `check` are retried except the last. */
async function until(timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
      last = null;
    } catch (e) {
      if (e instanceof Error && /exited/.test(e.message)) throw e;
      last = e;
    }
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ""}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

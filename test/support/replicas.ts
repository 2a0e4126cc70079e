/**
 * Several Postern server processes serving one database, for the high-availability tests (issue #12
 * items 4 and 8; docs/high-availability.md). Everything goes through the real entry points, as an
 * operator would: `postern db migrate`, `postern admin create --password-stdin` and `postern license
 * install` (cli/src/main.ts), then `postern-server` (server/src/main.ts) once per replica, each a child
 * process on its own loopback port, stopped (or killed) by PID.
 *
 * Every replica gets the same data directory: it holds what each replica must have an identical copy
 * of (`secret.key`, `agent-signing.key`) and, with {@link ReplicaDatabase} `sqlite`, the database file
 * itself (SQLite in WAL mode lets several processes share one file on one host). With `postgres`, the
 * database is the URL given, passed as POSTERN_DATABASE_URL to the CLI and every replica.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { issueTestLicence, ROOMY_LICENCE, testLicenceKey } from "../../server/src/testing/licences.ts";
import { freePort } from "./haproxy.ts";
import { startProcess } from "./process.ts";
import type { ManagedProcess } from "./process.ts";
import { httpJson } from "./stack.ts";
import type { ApiClient } from "./stack.ts";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Which database the replicas share: the SQLite file in their shared data directory, or a PostgreSQL URL. */
export type ReplicaDatabase = { readonly kind: "sqlite" } | { readonly kind: "postgres"; readonly url: string };

/** One `postern-server` process. */
export interface Replica {
  /** `r1`, `r2`, ... (the load balancer's server names, in the same order). */
  readonly name: string;
  /** `127.0.0.1:<port>` it listens on. */
  readonly address: string;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The process id. */
  readonly pid: number;
  /** True once the process has exited. */
  exited(): boolean;
  /** Kills it with SIGKILL by PID (no clean shutdown: what a crash or a lost host looks like) and waits for the exit (bounded 5 s). */
  kill(): Promise<void>;
  /** Stops it cleanly (SIGTERM, SIGKILL after 5 s). Idempotent. */
  stop(): Promise<void>;
  /** The tail of its output (stderr and stdout), for failure messages. */
  output(): string;
}

/** A set of replicas on one database. */
export interface ReplicaSet {
  /** The shared data directory. */
  readonly dataDir: string;
  readonly replicas: readonly Replica[];
  /** The admin's name and password (created by `postern admin create`). */
  readonly admin: { readonly userName: string; readonly password: string };
  /** Stops every replica still running and removes the temp dir. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link startReplicaSet}. */
export interface ReplicaSetOptions {
  /** How many replicas (default 2). */
  readonly count?: number;
  readonly database: ReplicaDatabase;
  /** Ports to listen on, one per replica (default: free ports). A load balancer started first names them. */
  readonly ports?: readonly number[];
  /** Addresses whose X-Forwarded-For the replicas believe (POSTERN_TRUSTED_PROXIES), e.g. the balancer's. */
  readonly trustedProxies?: readonly string[];
}

/** The environment of every CLI call and replica: the data dir, the database, the test licence key. */
function environment(
  dataDir: string,
  database: ReplicaDatabase,
  extra: Record<string, string> = {},
): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("POSTERN_"),
    ),
  );
  return {
    ...inherited,
    POSTERN_DATA_DIR: dataDir,
    POSTERN_LICENSE_PUBLIC_KEYS: testLicenceKey.publicKey,
    POSTERN_LOG_LEVEL: process.env["POSTERN_TEST_LOG"] ?? "info",
    ...(database.kind === "postgres" ? { POSTERN_DATABASE_URL: database.url } : {}),
    ...extra,
  };
}

/** Runs `postern ARGS` (the real CLI) with `input` on stdin (bounded 60 s). @throws Error with its output when it fails. */
async function cli(env: Record<string, string>, args: readonly string[], input = ""): Promise<void> {
  const r = await execa(process.execPath, [join(repoRoot, "cli/src/main.ts"), ...args], {
    env,
    input,
    reject: false,
    timeout: 60_000,
  });
  if (r.exitCode !== 0) throw new Error(`postern ${args.join(" ")} failed (${r.exitCode}): ${r.stderr} ${r.stdout}`);
}

/** Starts `postern-server` as `name` on `port` and resolves once it answers /api/system_status (bounded 30 s). */
async function startReplica(name: string, port: number, env: Record<string, string>): Promise<Replica> {
  const address = `127.0.0.1:${port}`;
  const url = `http://${address}`;
  const proc: ManagedProcess = startProcess(process.execPath, [join(repoRoot, "server/src/main.ts")], {
    cwd: repoRoot,
    env: { ...env, POSTERN_LISTEN: address },
    keepBytes: 20_000,
  });
  if (proc.pid === undefined) throw new Error(`${name} did not start`);
  const pid = proc.pid;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exited()) throw new Error(`${name} exited while starting:\n${proc.output()}`);
    const up = await httpJson("GET", `${url}/api/system_status`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(`${name} did not answer within 30 s:\n${proc.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    address,
    url,
    pid,
    exited: proc.exited,
    output: proc.output,
    stop: proc.stop,
    kill: async () => {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
      const end = Date.now() + 5_000;
      while (!proc.exited() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    },
  };
}

/**
 * Prepares the database through the CLI (migrate, an admin `admin`, the roomy test licence) and starts
 * the replicas one after the other. Each replica is up (answers /api/system_status) when this resolves.
 * @throws Error when a CLI step fails or a replica does not come up (its output included); whatever was started is stopped.
 */
export async function startReplicaSet(options: ReplicaSetOptions): Promise<ReplicaSet> {
  const count = options.count ?? 2;
  const dir = await mkdtemp(join(tmpdir(), "postern-ha-"));
  const dataDir = join(dir, "data");
  const env = environment(
    dataDir,
    options.database,
    options.trustedProxies ? { POSTERN_TRUSTED_PROXIES: options.trustedProxies.join(",") } : {},
  );
  const admin = { userName: "admin", password: "admin-password" };
  const replicas: Replica[] = [];
  const close = async (): Promise<void> => {
    for (const r of replicas) await r.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await cli(env, ["db", "migrate"]);
    await cli(
      env,
      ["admin", "create", "--username", admin.userName, "--name", "Admin", "--password-stdin"],
      admin.password,
    );
    await cli(env, ["license", "install", issueTestLicence(ROOMY_LICENCE)]);
    for (let i = 0; i < count; i++) {
      const port = options.ports?.[i] ?? (await freePort());
      replicas.push(await startReplica(`r${i + 1}`, port, env));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { dataDir, replicas, admin, close };
}

/**
 * Through the admin API of a replica set (`admin`, signed in): a haproxy backend on agent `agentId`
 * driving `target`'s runtime API socket, one Knoc on the target's ACL (click to grant, an hour at most)
 * and the local user `alice` (password `alice-password`) assigned to it. Returns the Knoc's ACL id.
 */
export async function createHaproxyKnoc(
  admin: ApiClient,
  agentId: string,
  target: { readonly socketPath: string; readonly aclId: number },
): Promise<string> {
  const backend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: "proxy",
    AgentID: agentId,
    Config: { haproxy: { Protocol: "unix", Address: target.socketPath } },
  });
  const aclId = await admin.ok<string>("POST", "/api/admin/acls", {
    Description: "Intranet",
    BackendID: backend.ID,
    ClickToGrant: true,
    MaximumGrantDuration: 3600,
    Config: { haproxy: { ID: target.aclId } },
  });
  await admin.ok("POST", "/api/admin/users", {
    Name: "alice",
    UserName: "alice",
    PlainPassword: "alice-password",
    ConfirmPassword: "alice-password",
    AclIds: [aclId],
  });
  return aclId;
}

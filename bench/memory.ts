/**
 * Memory benchmark (docs/reference.md design "Performance targets": server RSS ≤ 200 MB at 10,000 sessions and
 * 100,000 grants; agent RSS ≤ 80 MB).
 *
 * Run from the repository root: `node bench/memory.ts [--sessions N] [--acls N] [--status-calls N]`.
 *
 * Set-up, everything real and in its own process except the seeding:
 * - a real HAProxy (`haproxy -W`, foreground master-worker, on loopback) with one ACL file per Postern
 *   ACL (default 10; `startHaproxy()` of test/support/haproxy.ts loads only one ACL file, so this
 *   bench writes its own small config the same way and reuses that module's runtime API helpers);
 * - a temporary data directory migrated by the real CLI (`node cli/src/main.ts db migrate`);
 * - SEEDED DIRECTLY into the database through the server's own modules (openConfiguredDatabase, the tables of
 *   server/src/db/schema.ts; multi-row inserts, 500 users per transaction, garbage collected between
 *   transactions), not through sign-ins and grant clicks: one agent row (with an install token, not
 *   yet enrolled), one haproxy backend of it on HAProxy's unix runtime socket, 10 ACLs on that backend
 *   (each on its own HAProxy ACL `#ID`), 10,000 local users each assigned the 10 ACLs directly,
 *   one live session per user (ends in 8 hours, a known cookie token, its own address 10.x.y.z) and
 *   per session one Granted grant on each ACL (status 0, expiring at the session's end, the session's
 *   address in `grant_addresses`): 100,000 grants, i.e. 100,000 distinct (ACL, address) entries. One of
 *   them is seeded AgentOffline (3) instead, as a marker: the server makes it Granted when it handles
 *   the agent's acknowledgement of the full sync, which is how this bench knows the sync is done. No
 *   grant status history or audit rows are written.
 * - the REAL server as a child process (`node server/src/main.ts`, POSTERN_LOG_LEVEL=warn,
 *   POSTERN_TRUSTED_PROXIES=127.0.0.1 so that status requests can name their session's address in
 *   X-Forwarded-For, as behind a reverse proxy, and no session moves);
 * - the agent enrolled through the real endpoint (`enrol()` of agent/src/enrol.ts, as `postern-agent
 *   enrol` does) and run as the REAL agent entry in a child process (`node agent/src/main.ts run
 *   --config FILE`, log level warn, default 5 s drift check; bench/lib/agent-process.ts, shared with
 *   bench/grant-latency.ts). On connecting it receives the full
 *   sync (10 targets × 10,000 entries) and applies it to HAProxy (`add acl` over the runtime API,
 *   then each ACL file rewritten).
 *
 * Memory is VmRSS (and VmHWM, the peak so far) of each process from /proc/PID/status, read:
 * - server: right after it first answers HTTP; after 5 s idle; when the sync is acknowledged (the
 *   marker turned Granted, and HAProxy holds all entries); 12 s later (two drift checks); after
 *   `--status-calls` (default 1,000) GET /api/status, 8 at a time over keep-alive connections, each
 *   with the cookie of a random session (and its address in X-Forwarded-For); each answer is parsed
 *   and must list the 10 ACLs as Granted;
 * - agent: when the sync is acknowledged, 12 s later, and at the end.
 *
 * `--agent-bundle` runs the agent as the package ships it: its program tree written by
 * scripts/package/trees.ts (the same esbuild call as `npm run package`: agent.mjs and its chunks)
 * into the temporary directory, `node agent/agent.mjs run`.
 * `--agent-node-args STR` puts Node/V8 flags (split at spaces) on the agent's command line, before
 * the entry, as packaging/bin/postern-agent does (NODE_OPTIONS refuses some V8 flags, e.g.
 * `--optimize-for-size`). `--agent-packaged` is `--agent-bundle` with the node flags and the
 * environment that packaging/bin/postern-agent sets (read from that script: its `export
 * NAME="${NAME:-value}"` lines and the flags between `node` and `agent.mjs` on its `exec` line).
 * `--server-bundle` and `--server-packaged` do the same for the server: the server's program tree as
 * packaged (server.mjs with its chunks, the shipped native modules, migrations, web app), run as
 * `node server/server.mjs`, and with `--server-packaged` the flags and variables of
 * packaging/bin/postern-server. `--single-file-bundle` (a comparison) bundles without code splitting,
 * one self-contained file per program, as the packages were built before.
 *
 * `--database postgres` runs the server on a throw-away PostgreSQL cluster on loopback
 * (test/support/postgres.ts, as bench/status-throughput.ts does) instead of its SQLite file.
 *
 * `--node-options STR` sets NODE_OPTIONS of the server and agent processes (a diagnostic: e.g.
 * `--max-old-space-size=64` shows how much of the RSS is JavaScript heap that a smaller heap would
 * have collected, and how much is native memory).
 *
 * Caveats:
 * - Node's RSS includes heap pages V8 keeps after a GC (it does not hand them back at once) and
 *   whatever module loading left behind: importing drizzle-orm (ESM) on Node 24 alone allocates
 *   ~80 MB of transient heap, garbage after the next GC, that shows up in RSS right after start. RSS
 *   therefore depends on when GCs happened to run; VmHWM is the honest peak.
 * - The data is seeded, not produced by real sign-ins and grants (no history, no audit log); the
 *   SQLite page cache is bounded (2 MB per connection by default), so the table sizes matter less
 *   than what a request or a sync keeps in JavaScript.
 * - Server, agent, HAProxy and this script share the machine with whatever else runs there; memory
 *   figures are little affected, the times printed (sync duration) are.
 * - Figures are reported, never asserted: the script exits 0 once it ran, 1 when set-up failed.
 */
import { spawn } from "node:child_process";
import { reportFigures } from "./lib/report.ts";
import { stageServerTree } from "../scripts/package/trees.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { count, eq } from "drizzle-orm";
import { openConfiguredDatabase, tablesOf } from "../server/src/db/index.ts";
import type { Db, OpenDatabase, Tables } from "../server/src/db/index.ts";
import { startPostgres } from "../test/support/postgres.ts";
import { newId, randomToken, sha256 } from "../server/src/services/auth/tokens.ts";
import { databasePath } from "../server/src/db/index.ts";
import { agentLaunch, describeLaunch, enrolAgent, packagedLaunch, startAgentProcess } from "./lib/agent-process.ts";
import { freePort, runtimeCommand } from "../test/support/haproxy.ts";
import {
  Cleanup,
  REPO_ROOT,
  captureTail,
  guardRun,
  mb,
  migrateDataDir,
  percentile,
  procMemory,
  seedBatches,
  settle,
  sleep,
  startServerProcess,
  stopChild,
} from "./server-process.ts";
import type { ProcMemory } from "./server-process.ts";
import { intOption } from "./lib/options.ts";

/** The design targets, printed with the results. */
export const DESIGN_TARGET =
  'design.md "Performance targets": server RSS ≤ 200 MB at 10,000 sessions and 100,000 grants; agent RSS ≤ 80 MB';
const SERVER_TARGET_MB = 200;
const AGENT_TARGET_MB = 80;

/** Users (and sessions) per seeding transaction. */
const SEED_BATCH = 500;
/** Rows per multi-row INSERT. */
const ROWS_PER_INSERT = 500;
/** Longest wait for the agent's full sync to be acknowledged (ms). */
const SYNC_TIMEOUT_MS = 180_000;

interface Options {
  readonly sessions: number;
  readonly acls: number;
  readonly statusCalls: number;
  readonly concurrency: number;
  readonly nodeOptions: string;
  /** Node/V8 flags on the agent's command line. */
  readonly agentNodeArgs: readonly string[];
  /** Run the agent from an esbuild bundle as packaged, not from source. */
  readonly agentBundle: boolean;
  /** Run the agent from the bundle with packaging/bin/postern-agent's flags and environment. */
  readonly agentPackaged: boolean;
  /** Run the server from the esbuild bundle as packaged, not from source. */
  readonly serverBundle: boolean;
  /** Run the server from the bundle with packaging/bin/postern-server's flags and environment. */
  readonly serverPackaged: boolean;
  /** Bundle without code splitting (one file per program), for comparison. */
  readonly singleFileBundle: boolean;
  /** The server's database: its SQLite file, or a throw-away PostgreSQL cluster. */
  readonly database: "sqlite" | "postgres";
  readonly timeoutMinutes: number;
}

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      sessions: { type: "string", default: "10000" },
      acls: { type: "string", default: "10" },
      "status-calls": { type: "string", default: "1000" },
      concurrency: { type: "string", default: "8" },
      "node-options": { type: "string", default: "" },
      "agent-node-args": { type: "string", default: "" },
      "agent-bundle": { type: "boolean", default: false },
      "agent-packaged": { type: "boolean", default: false },
      "server-bundle": { type: "boolean", default: false },
      "server-packaged": { type: "boolean", default: false },
      "single-file-bundle": { type: "boolean", default: false },
      database: { type: "string", default: "sqlite" },
      "timeout-minutes": { type: "string", default: "15" },
    },
    strict: true,
  });
  if (values.database !== "sqlite" && values.database !== "postgres")
    throw new Error(`--database must be sqlite or postgres, got ${JSON.stringify(values.database)}`);
  return {
    sessions: intOption("sessions", values.sessions, 1, 60_000),
    acls: intOption("acls", values.acls, 1, 100),
    statusCalls: intOption("status-calls", values["status-calls"], 0, 1_000_000),
    concurrency: intOption("concurrency", values.concurrency, 1, 256),
    nodeOptions: values["node-options"],
    agentNodeArgs: values["agent-node-args"].split(" ").filter(Boolean),
    agentBundle: values["agent-bundle"] || values["agent-packaged"],
    agentPackaged: values["agent-packaged"],
    serverBundle: values["server-bundle"] || values["server-packaged"],
    serverPackaged: values["server-packaged"],
    singleFileBundle: values["single-file-bundle"],
    database: values.database,
    timeoutMinutes: intOption("timeout-minutes", values["timeout-minutes"], 1, 24 * 60),
  };
}

/** Address of session `i`: 10.(1 + i / 65536).x.y, distinct for i < 16 M. */
function sessionIp(i: number): string {
  return `10.${1 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}`;
}

// ------------------------------------------------------------------------------------------ HAProxy

/** A running HAProxy with one ACL file per Postern ACL. */
interface MultiAclHaproxy {
  readonly pid: number;
  readonly socketPath: string;
  /** `#ID`s of the ACL files, in order. */
  readonly aclIds: readonly number[];
  /** Number of entries HAProxy holds in ACL `#id`. */
  entries(id: number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts `haproxy -W -f cfg` in `dir` with `n` ACL files (each used by the frontend's rule so that it
 * is loaded) and waits (bounded: 15 s) until the runtime API lists them.
 * @throws Error when HAProxy exits or does not come up (its output included); it is stopped then.
 */
async function startMultiAclHaproxy(dir: string, n: number): Promise<MultiAclHaproxy> {
  const socketPath = join(dir, "admin.sock");
  const files = Array.from({ length: n }, (_, i) => join(dir, `allow-${i + 1}.acl`));
  for (const f of files) writeFileSync(f, "");
  const cfg = join(dir, "haproxy.cfg");
  writeFileSync(
    cfg,
    [
      "global",
      `  stats socket ${socketPath} mode 600 level admin`,
      "  stats timeout 30s",
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 5s",
      "  timeout server 5s",
      "frontend fe_bench",
      `  bind 127.0.0.1:${await freePort()}`,
      ...files.map((f, i) => `  acl allowed${i + 1} src -f ${f}`),
      `  http-request deny deny_status 403 unless ${files.map((_, i) => `allowed${i + 1}`).join(" or ")}`,
      "  http-request return status 200 content-type text/plain string ok",
      "",
    ].join("\n"),
  );
  const child = spawn("haproxy", ["-W", "-f", cfg], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const output = captureTail(child);
  const stop = (): Promise<void> => stopChild(child, 5_000);
  try {
    if (child.pid === undefined) throw new Error("haproxy did not start");
    const deadline = Date.now() + 15_000;
    let refs = "";
    for (;;) {
      if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode})`);
      refs = await runtimeCommand(socketPath, "show acl").catch(() => "");
      if (files.every((f) => refs.includes(`(${f})`))) break;
      if (Date.now() > deadline) throw new Error("the runtime API did not list the ACL files within 15 s");
      await sleep(50);
    }
    const aclIds = files.map((f) =>
      Number(/^(\d+) /.exec(refs.split("\n").find((l) => l.includes(`(${f})`)) ?? "")?.[1]),
    );
    if (aclIds.some((id) => !Number.isInteger(id))) throw new Error(`cannot read the ACL ids from:\n${refs}`);
    return {
      pid: child.pid,
      socketPath,
      aclIds,
      entries: async (id) =>
        (await runtimeCommand(socketPath, `show acl #${id}`, 20_000)).split("\n").filter((l) => l.startsWith("0x"))
          .length,
      stop,
    };
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\nhaproxy output:\n${output()}`, { cause: e });
  }
}

// ------------------------------------------------------------------------------------------ seeding

/** What the seeding made. */
interface Seeded {
  readonly agentToken: string;
  readonly tokens: readonly string[];
  readonly markerGrantId: string;
}

async function seed(db: Db, o: Options, haproxy: MultiAclHaproxy): Promise<Seeded> {
  const { acls, agents, backends, grantAddresses, grants, userAcls, users, userSessions } = tablesOf(db);
  const now = Date.now();
  const endsAt = now + 8 * 3_600_000;
  const agentId = newId();
  const agentToken = randomToken(24);
  const backendId = newId();
  await db
    .insert(agents)
    .values({ id: agentId, name: "bench agent", tokenHash: sha256(agentToken), tokenExpiresAt: now + 3_600_000 });
  await db.insert(backends).values({
    id: backendId,
    name: "bench haproxy",
    agentId,
    type: "haproxy",
    config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
  });
  const aclIds = haproxy.aclIds.map(() => newId());
  await db.insert(acls).values(
    aclIds.map((id, i) => ({
      id,
      description: `Bench application ${String(i + 1).padStart(2, "0")}`,
      url: `https://app-${i + 1}.example.test/`,
      clickToGrant: true,
      backendId,
      ipExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
      grantType: { Type: "userIp", Ips: [] },
      config: { UriToken: "", haproxy: { ID: haproxy.aclIds[i]! } },
    })),
  );
  const tokens: string[] = new Array<string>(o.sessions);
  let markerGrantId = "";
  const chunked = async <T>(rows: readonly T[], insert: (part: T[]) => Promise<unknown>): Promise<void> => {
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insert(rows.slice(i, i + ROWS_PER_INSERT));
  };
  await seedBatches(db, o.sessions, SEED_BATCH, async (tx, from, to) => {
    const userRows: Tables["users"]["$inferInsert"][] = [];
    const sessionRows: Tables["userSessions"]["$inferInsert"][] = [];
    const assignRows: Tables["userAcls"]["$inferInsert"][] = [];
    const grantRows: Tables["grants"]["$inferInsert"][] = [];
    const addressRows: Tables["grantAddresses"]["$inferInsert"][] = [];
    for (let i = from; i < to; i++) {
      const userId = newId();
      const sessionId = newId();
      const token = randomToken(16);
      const ip = sessionIp(i);
      tokens[i] = token;
      userRows.push({
        id: userId,
        name: `Bench User ${i}`,
        userName: `bench-user-${i}`,
        authType: "local",
        createdAt: now - o.sessions + i,
      });
      sessionRows.push({ id: sessionId, tokenHash: sha256(token), userId, createdAt: now, endsAt, ipAddress: ip });
      for (const aclId of aclIds) {
        const id = newId();
        const marker = i === o.sessions - 1 && aclId === aclIds[aclIds.length - 1];
        if (marker) markerGrantId = id;
        assignRows.push({ userId, aclId });
        grantRows.push({
          id,
          sessionId,
          aclId,
          status: marker ? 3 : 0,
          grantedAt: now,
          expiresAt: endsAt,
          updatedAt: now,
        });
        addressRows.push({ grantId: id, ip });
      }
    }
    await chunked(userRows, (part) => tx.insert(users).values(part));
    await chunked(sessionRows, (part) => tx.insert(userSessions).values(part));
    await chunked(assignRows, (part) => tx.insert(userAcls).values(part));
    await chunked(grantRows, (part) => tx.insert(grants).values(part));
    await chunked(addressRows, (part) => tx.insert(grantAddresses).values(part));
  });
  return { agentToken, tokens, markerGrantId };
}

// ------------------------------------------------------------------------------------------ status calls

/** Sends `total` GET /api/status, `concurrency` at a time; returns latencies and problems. */
async function statusCalls(
  port: number,
  tokens: readonly string[],
  o: Options,
  acls: number,
): Promise<{ latencies: Float64Array; problems: Map<string, number>; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.concurrency });
  const latencies: number[] = [];
  const problems = new Map<string, number>();
  const problem = (kind: string): void => void problems.set(kind, (problems.get(kind) ?? 0) + 1);
  let next = 0;
  const start = performance.now();
  const one = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const sent = performance.now();
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: "/api/status",
          agent,
          timeout: 10_000,
          headers: { cookie: `postern_session=${tokens[i]!}`, "x-forwarded-for": sessionIp(i) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            latencies.push(performance.now() - sent);
            if (res.statusCode !== 200) problem(`HTTP ${res.statusCode}`);
            else {
              const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
                CurrentAddress: string;
                ACLs: { Status: number }[];
              };
              if (body.ACLs.length !== acls) problem(`${body.ACLs.length} ACLs in an answer`);
              else if (body.ACLs.some((a) => a.Status !== 0)) problem("an ACL not Granted");
              if (body.CurrentAddress !== sessionIp(i)) problem("another CurrentAddress");
            }
            resolve();
          });
          res.on("error", (e) => {
            problem(e.message);
            resolve();
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error("timeout")));
      req.on("error", (e) => {
        problem(e.message);
        resolve();
      });
      req.end();
    });
  const worker = async (): Promise<void> => {
    while (next < o.statusCalls) {
      next++;
      await one(Math.floor(Math.random() * tokens.length));
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { latencies: Float64Array.from(latencies).sort(), problems, seconds: (performance.now() - start) / 1000 };
}

// ------------------------------------------------------------------------------------------ main

async function run(o: Options, cleanup: Cleanup): Promise<number> {
  const startedAt = performance.now();
  const bundleKind = `the esbuild bundle (${o.singleFileBundle ? "one file, no code splitting" : "code splitting"})`;
  const entries = o.sessions * o.acls;
  console.log(
    `memory benchmark: ${o.sessions} live sessions × ${o.acls} ACLs = ${entries} granted grants / HAProxy entries; ${o.statusCalls} GET /api/status${o.nodeOptions ? `; server and agent run with NODE_OPTIONS=${JSON.stringify(o.nodeOptions)}` : ""}${o.agentNodeArgs.length > 0 ? `; agent runs with node ${o.agentNodeArgs.join(" ")}` : ""}; server from ${o.serverBundle ? bundleKind : "source"}, agent from ${o.agentBundle ? bundleKind : "source"}; database ${o.database === "postgres" ? "PostgreSQL (a throw-away cluster on loopback)" : "SQLite"}`,
  );

  const dir = mkdtempSync(join(tmpdir(), "postern-bench-memory-"));
  cleanup.add("temporary directory", () => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, "data");
  const hapDir = mkdtempSync(join(dir, "haproxy-"));
  const agDir = mkdtempSync(join(dir, "agent-"));

  const haproxy = await startMultiAclHaproxy(hapDir, o.acls);
  cleanup.add("haproxy", () => haproxy.stop());
  let databaseUrl: string | undefined;
  if (o.database === "postgres") {
    // A throw-away cluster on loopback; the CLI and the server process find it through POSTERN_DATABASE_URL.
    const cluster = await startPostgres({ maxConnections: 100 });
    cleanup.add("postgres", () => cluster.stop());
    databaseUrl = await cluster.createDatabase("postern");
    process.env["POSTERN_DATABASE_URL"] = databaseUrl;
  }
  await migrateDataDir(dataDir);

  // --- the programs as packaged (scripts/package/trees.ts), written before the measured processes start
  const tree = join(dir, "tree");
  const splitting = !o.singleFileBundle;
  const agentLaunched = await agentLaunch({
    bundle: o.agentBundle,
    packaged: o.agentPackaged,
    treeDir: tree,
    splitting,
  });
  if (o.serverBundle) await stageServerTree(REPO_ROOT, tree, "0.0.0-bench", { splitting });

  // --- seed
  const seedStart = performance.now();
  const database: OpenDatabase = openConfiguredDatabase({ url: databaseUrl, file: databasePath(dataDir) });
  cleanup.add("database handle", () => database.close());
  const { db } = database;
  const { grants, userSessions } = tablesOf(db);
  const seeded = await seed(db, o, haproxy);
  await settle();
  const grantCount = (await db.select({ n: count() }).from(grants).where(eq(grants.status, 0)).limit(1))[0]?.n ?? 0;
  console.log(
    `seeded ${o.sessions} users and sessions, ${grantCount} Granted grants + 1 marker in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (directly, see the header); HAProxy ACLs #${haproxy.aclIds.join(", #")}`,
  );

  // --- server
  const childEnv: Record<string, string> = o.nodeOptions ? { NODE_OPTIONS: o.nodeOptions } : {};
  const serverLaunch = o.serverPackaged ? packagedLaunch("postern-server", "server") : { nodeArgs: [], env: {} };
  if (o.serverPackaged) console.log(describeLaunch("server", serverLaunch));
  const server = await startServerProcess({
    dataDir,
    port: await freePort(),
    env: { ...childEnv, ...serverLaunch.env, POSTERN_TRUSTED_PROXIES: "127.0.0.1" },
    nodeArgs: serverLaunch.nodeArgs,
    ...(o.serverBundle ? { entry: join(tree, "server", "server.mjs") } : {}),
  });
  cleanup.add("server", () => server.stop());
  const serverMem: { label: string; m: ProcMemory | null }[] = [];
  const agentMem: { label: string; m: ProcMemory | null }[] = [];
  serverMem.push({ label: "started (first HTTP answer)", m: procMemory(server.pid) });
  await sleep(5_000);
  serverMem.push({ label: "idle 5 s, no agent connected", m: procMemory(server.pid) });

  // --- agent: enrol through the real endpoint, then run the real entry
  const configPath = join(agDir, "agent.json");
  await enrolAgent({
    server: server.url,
    token: seeded.agentToken,
    configPath,
    capabilities: { haproxy: { socket_location: haproxy.socketPath } },
    settings: { haproxySocket: haproxy.socketPath, logLevel: "warn" },
  });
  const syncStart = performance.now();
  if (o.agentPackaged) console.log(describeLaunch("agent", agentLaunched));
  const agentProc = startAgentProcess({
    configPath,
    launch: agentLaunched,
    extraNodeArgs: o.agentNodeArgs,
    env: childEnv,
  });
  cleanup.add("agent", () => agentProc.stop());
  const agentPid = agentProc.pid;
  const agentOutput = agentProc.output;

  // --- wait for the acknowledged sync (the marker grant turns Granted)
  let acked = false;
  while (performance.now() - syncStart < SYNC_TIMEOUT_MS) {
    if (agentProc.exited() !== null) throw new Error(`the agent exited (${agentProc.exited()}):\n${agentOutput()}`);
    if (
      (await db.select({ s: grants.status }).from(grants).where(eq(grants.id, seeded.markerGrantId)).limit(1))[0]?.s ===
      0
    ) {
      acked = true;
      break;
    }
    await sleep(250);
  }
  const syncSeconds = (performance.now() - syncStart) / 1000;
  if (!acked)
    throw new Error(
      `the agent's sync was not acknowledged within ${SYNC_TIMEOUT_MS / 1000} s\nagent output:\n${agentOutput()}\nserver output:\n${server.output()}`,
    );
  serverMem.push({ label: "sync acknowledged", m: procMemory(server.pid) });
  agentMem.push({ label: "sync acknowledged", m: procMemory(agentPid) });
  const counts = await Promise.all(haproxy.aclIds.map((id) => haproxy.entries(id)));
  const held = counts.reduce((a, b) => a + b, 0);
  console.log(
    `sync: agent start → acknowledgement handled by the server ${syncSeconds.toFixed(1)} s; HAProxy holds ${held} entries (${counts.join(", ")})`,
  );

  await sleep(12_000);
  serverMem.push({ label: "12 s later (agent: 2 drift checks)", m: procMemory(server.pid) });
  agentMem.push({ label: "12 s after the sync (2 drift checks)", m: procMemory(agentPid) });

  // --- status calls
  const calls = await statusCalls(server.port, seeded.tokens, o, o.acls);
  serverMem.push({ label: `after ${o.statusCalls} GET /api/status`, m: procMemory(server.pid) });
  agentMem.push({ label: "at the end", m: procMemory(agentPid) });
  const moved =
    (await db.select({ n: count() }).from(userSessions).where(eq(userSessions.ipAddress, "127.0.0.1")).limit(1))[0]
      ?.n ?? 0;

  // --- report
  console.log("");
  const row = (proc: string, label: string, m: ProcMemory | null, target: number): string =>
    `${proc.padEnd(7)} ${label.padEnd(38)} ${mb(m?.rss ?? NaN).padStart(8)} ${mb(m?.hwm ?? NaN).padStart(9)}   ${m ? (m.rss / 1048576 <= target ? "within" : "OVER") : "-"} ${target} MB`;
  console.log(
    `${"process".padEnd(7)} ${"when".padEnd(38)} ${"VmRSS".padStart(8)} ${"peak RSS".padStart(9)}   vs target (RSS now)`,
  );
  console.log("-".repeat(90));
  for (const s of serverMem) console.log(row("server", s.label, s.m, SERVER_TARGET_MB));
  for (const s of agentMem) console.log(row("agent", s.label, s.m, AGENT_TARGET_MB));
  console.log("");
  console.log(`target: ${DESIGN_TARGET}`);
  const mbOf = (m: ProcMemory | null | undefined): number => (m ? m.rss / 1048576 : Number.NaN);
  const idle = mbOf(serverMem[0]?.m);
  const loaded = Math.max(...serverMem.map((s) => mbOf(s.m)));
  const agentPeak = Math.max(...agentMem.map((s) => mbOf(s.m)));
  reportFigures([
    { figure: "server RSS idle", target: "≤ 100 MB", result: `${idle.toFixed(0)} MB`, met: idle <= 100 },
    {
      figure: `server RSS at ${o.sessions} sessions, ${o.sessions * o.acls} grants`,
      target: "≤ 200 MB",
      result: `${loaded.toFixed(0)} MB`,
      met: loaded <= 200,
    },
    {
      figure: `agent RSS with ${o.sessions * o.acls} entries`,
      target: "≤ 80 MB",
      result: `${agentPeak.toFixed(0)} MB`,
      met: agentPeak <= 80,
    },
  ]);
  const probs = [...calls.problems].map(([k, v]) => `${k} × ${v}`).join(", ");
  console.log(
    `status calls: ${calls.latencies.length} answered in ${calls.seconds.toFixed(1)} s (${o.concurrency} at a time), p50 ${percentile(calls.latencies, 0.5).toFixed(1)} ms, p99 ${percentile(calls.latencies, 0.99).toFixed(1)} ms; problems: ${probs || "none"}`,
  );
  console.log(
    `sessions that moved to the proxy's address 127.0.0.1: ${moved} (0 expected: every request named its session's address)`,
  );
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}; total run time ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
  );
  return 0;
}

const options = parseOptions(process.argv.slice(2));
const cleanup = new Cleanup();
guardRun("memory", cleanup, options.timeoutMinutes, () => run(options, cleanup)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`memory: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);

/**
 * GET /api/status throughput benchmark (docs/reference.md design "Performance targets": GET /api/status ≥ 3,000 req/s
 * on one core with 10,000 live sessions of 50 ACLs each).
 *
 * Run from the repository root: `node bench/status-throughput.ts [--connections 16,64] [--duration 10]`.
 *
 * Set-up:
 * - a temporary data directory migrated by the real CLI (`node cli/src/main.ts db migrate`);
 * - SEEDED DIRECTLY into its SQLite file through the server's own modules (openDatabase and the drizzle
 *   tables of server/src/db/schema.ts; multi-row inserts, 500 users per transaction, garbage collected
 *   between transactions), not through the API (10,000 Argon2id sign-ins and 500,000 grant clicks would
 *   take far longer than the measurement):
 *   - one agent row (never connected) and one haproxy backend of it; 50 ACLs on that backend
 *     (ClickToGrant, GrantType userIp, no IpExclusions, 5 categories);
 *   - 10,000 local users (no password: nobody signs in), each assigned the 50 ACLs DIRECTLY
 *     (`user_acls`, 500,000 rows; `--assign group` instead puts every user into one group holding the
 *     50 ACLs);
 *   - one live session per user (ends in 8 hours, verified, ip_address 127.0.0.1 — the address the
 *     requests come from, so "follow the address" finds nothing to move) with a known random cookie
 *     token; the table stores sha256(token) hex, as sign-in does;
 *   - the 500,000 status entries (`grants`) pre-created, because GET /status creates missing ones
 *     lazily (ensureGrantRows) and the measured requests should be steady state: per session the first
 *     `--granted` (default 10) ACLs are Granted (status 0, granted now, expiring at the session's end,
 *     address 127.0.0.1 in `grant_addresses`), the other 40 Created (status 4). No grant status history
 *     rows are written (GET /status does not read them).
 * - the REAL server as a child process (`node server/src/main.ts`, POSTERN_LOG_LEVEL=warn), pinned to
 *   CPU 0 with `taskset -c 0`; this process (the load) pins itself to CPU 1 (`taskset -a -p -c 1`).
 *
 * Priming (unless `--no-prime`): before each phase's warm-up every session's status is read once over the
 * phase's connections, as a polling portal has done after one poll interval — the server keeps each
 * session's status ready (issue #13 item 2), so the window measures the steady state of polling, not
 * first reads. The priming pass's own req/s and req/CPU-s (every read made anew) are printed too.
 *
 * Load: for each phase, N keep-alive connections (node:http Agent, maxSockets N), each sending GET
 * /api/status back to back with the cookie of a random session (uniform over the 10,000), for a warm-up
 * (default 2 s, not counted) and then the measured window (default 10 s). Counted are the responses
 * that completed inside the window: req/s = those / window; latency = send → last byte of the body
 * (~20 kB of JSON, not parsed; the status code is checked); errors = non-200 answers and socket
 * errors. Also printed: the server's CPU use over the window from /proc/PID/stat (100 % = the one core
 * is saturated, so the figure is the server's, not the load generator's), `req/CPU-s` = req/s divided
 * by that CPU share (the rate one core given wholly to the server would reach at the measured cost per
 * request: the figure to compare with the target when other work shares the core), the load
 * generator's CPU use, and the server's VmRSS before and after each phase plus its peak (VmHWM).
 *
 * Phases: `--licence both` (default) measures each connection count first with NO licence installed
 * (the licence gates take their short path: one SELECT on `licenses`) and then with a licence for
 * 20,000 users installed (signed with a throwaway key and stored through the licence store while the
 * server runs; only the stored key is decoded at read time), where every status read also ranks its
 * user among all users (`isUserLicensed` → `userPosition`).
 *
 * `--profile DIR` runs the server with `--cpu-prof` (NODE_OPTIONS), keeps the .cpuprofile in DIR
 * (open it in Chrome DevTools) and prints its self time by package / file and by function.
 *
 * Checked after the run: the grant rows still number 500,000 and no session moved address (the
 * requests were steady state); one response per phase is parsed and must hold 50 ACLs.
 *
 * Caveats:
 * - "one core" is enforced with taskset for the server process only. The load generator has the other
 *   core; both share the machine with whatever else runs on it (the load average is printed). The
 *   kernel's loopback work is accounted partly to either side.
 * - The data is seeded, not produced by real sign-ins and grants: no status history, no audit log
 *   entries, one session per user; SQLite's file is fresh and its pages mostly in the OS page cache.
 * - Figures are reported, never asserted: the script exits 0 once it ran, 1 when set-up failed.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { reportFigures } from "./lib/report.ts";
import { Agent, request } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { count, eq, ne } from "drizzle-orm";
import { openConfiguredDatabase, tablesOf } from "../server/src/db/index.ts";
import { benchDatabase, benchDatabaseUrl, DATABASE_OPTION } from "./lib/database.ts";
import type { Db, OpenDatabase } from "../server/src/db/index.ts";
import { newId, randomToken, sha256 } from "../server/src/services/auth/tokens.ts";
import {
  generateLicenseSigningKey,
  parseLicensePrivateKey,
  signLicense,
} from "../server/src/services/licensing/keys.ts";
import { storeLicence } from "../server/src/services/licensing/store.ts";
import { databasePath } from "../server/src/db/index.ts";
import { freePort } from "../test/support/haproxy.ts";
import {
  Cleanup,
  guardRun,
  haveTaskset,
  mb,
  migrateDataDir,
  percentile,
  pinSelf,
  procCpuSeconds,
  procMemory,
  seedBatches,
  settle,
  startServerProcess,
  summariseCpuProfile,
} from "./server-process.ts";
import type { ServerProcess } from "./server-process.ts";
import { intOption } from "./lib/options.ts";

/** The design target, printed with the results. */
export const DESIGN_TARGET =
  'design.md "Performance targets": GET /api/status ≥ 3,000 req/s on one core with 10,000 live sessions of 50 ACLs each';

/** Users (and sessions) per seeding transaction. */
const SEED_BATCH = 500;
/** Rows per multi-row INSERT (well under SQLite's 32,766 bound parameters). */
const ROWS_PER_INSERT = 500;
/** Longest wait for one request (ms). */
const REQUEST_TIMEOUT_MS = 10_000;

/** Command-line options. */
interface Options {
  readonly sessions: number;
  readonly acls: number;
  readonly granted: number;
  readonly connections: readonly number[];
  readonly durationS: number;
  readonly warmupS: number;
  readonly assign: "direct" | "group";
  readonly licence: "none" | "installed" | "both";
  readonly pin: boolean;
  /** Read every session's status once before each phase's warm-up (as a polling portal has). */
  readonly prime: boolean;
  readonly profileDir: string | null;
  readonly timeoutMinutes: number;
  /** The server's database: the SQLite file of its data directory, or a throw-away PostgreSQL cluster. */
  readonly database: "sqlite" | "postgres";
}

function parseOptions(argv: readonly string[]): Options {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      sessions: { type: "string", default: "10000" },
      acls: { type: "string", default: "50" },
      granted: { type: "string", default: "10" },
      connections: { type: "string", default: "16,64" },
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      assign: { type: "string", default: "direct" },
      licence: { type: "string", default: "both" },
      ...DATABASE_OPTION,
      "no-pin": { type: "boolean", default: false },
      "no-prime": { type: "boolean", default: false },
      profile: { type: "string" },
      "timeout-minutes": { type: "string", default: "15" },
    },
    strict: true,
  });
  const acl = intOption("acls", values.acls, 1, 1_000);
  if (values.assign !== "direct" && values.assign !== "group")
    throw new Error(`--assign must be direct or group, got ${JSON.stringify(values.assign)}`);
  if (values.licence !== "none" && values.licence !== "installed" && values.licence !== "both")
    throw new Error(`--licence must be none, installed or both, got ${JSON.stringify(values.licence)}`);
  return {
    database: benchDatabase(values.database),
    sessions: intOption("sessions", values.sessions, 1, 1_000_000),
    acls: acl,
    granted: intOption("granted", values.granted, 0, acl),
    connections: values.connections.split(",").map((t) => intOption("connections", t.trim(), 1, 1_024)),
    durationS: intOption("duration", values.duration, 1, 600),
    warmupS: intOption("warmup", values.warmup, 0, 600),
    assign: values.assign,
    licence: values.licence,
    pin: !values["no-pin"],
    prime: !values["no-prime"],
    profileDir: values.profile === undefined ? null : resolve(values.profile),
    timeoutMinutes: intOption("timeout-minutes", values["timeout-minutes"], 1, 24 * 60),
  };
}

/** Calls `insert` on `rows` in slices of ROWS_PER_INSERT (one multi-row INSERT each). */
async function insertChunked<T>(rows: readonly T[], insert: (part: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) await insert(rows.slice(i, i + ROWS_PER_INSERT));
}

/**
 * Seeds the database (see the module documentation); returns the cookie tokens of the sessions.
 */
async function seed(db: Db, o: Options): Promise<string[]> {
  const {
    acls,
    agents,
    backends,
    grantAddresses,
    grants,
    groupAcls,
    groups,
    groupUsers,
    userAcls,
    users,
    userSessions,
  } = tablesOf(db);
  const now = Date.now();
  const endsAt = now + 8 * 3_600_000;
  const agentId = newId();
  const backendId = newId();
  await db
    .insert(agents)
    .values({ id: agentId, name: "bench agent", tokenHash: sha256(randomToken(24)), tokenExpiresAt: now + 3_600_000 });
  await db.insert(backends).values({
    id: backendId,
    name: "bench haproxy",
    agentId,
    type: "haproxy",
    config: { haproxy: { Protocol: "unix", Address: "/run/haproxy/admin.sock" } },
  });
  const aclIds = Array.from({ length: o.acls }, () => newId());
  await db.insert(acls).values(
    aclIds.map((id, i) => ({
      id,
      description: `Bench application ${String(i + 1).padStart(2, "0")}`,
      url: `https://app-${i + 1}.example.test/`,
      category: `Category ${(i % 5) + 1}`,
      clickToGrant: true,
      backendId,
      ipExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
      grantType: { Type: "userIp", Ips: [] },
      config: { UriToken: "", haproxy: { ID: i + 1 } },
    })),
  );
  let groupId = "";
  if (o.assign === "group") {
    groupId = newId();
    await db.insert(groups).values({ id: groupId, name: "bench group", type: "local" });
    await db.insert(groupAcls).values(aclIds.map((aclId) => ({ groupId, aclId })));
  }
  const tokens: string[] = new Array<string>(o.sessions);
  await seedBatches(db, o.sessions, SEED_BATCH, async (tx, from, to) => {
    const userRows: (typeof users.$inferInsert)[] = [];
    const sessionRows: (typeof userSessions.$inferInsert)[] = [];
    const userAclRows: (typeof userAcls.$inferInsert)[] = [];
    const groupUserRows: (typeof groupUsers.$inferInsert)[] = [];
    const grantRows: (typeof grants.$inferInsert)[] = [];
    const addressRows: (typeof grantAddresses.$inferInsert)[] = [];
    for (let i = from; i < to; i++) {
      const userId = newId();
      const sessionId = newId();
      const token = randomToken(16);
      tokens[i] = token;
      userRows.push({
        id: userId,
        name: `Bench User ${i}`,
        userName: `bench-user-${i}`,
        authType: "local",
        createdAt: now - o.sessions + i,
      });
      sessionRows.push({
        id: sessionId,
        tokenHash: sha256(token),
        userId,
        createdAt: now,
        endsAt,
        ipAddress: "127.0.0.1",
      });
      if (o.assign === "group") groupUserRows.push({ groupId, userId });
      aclIds.forEach((aclId, k) => {
        if (o.assign === "direct") userAclRows.push({ userId, aclId });
        const id = newId();
        if (k < o.granted) {
          grantRows.push({ id, sessionId, aclId, status: 0, grantedAt: now, expiresAt: endsAt, updatedAt: now });
          addressRows.push({ grantId: id, ip: "127.0.0.1" });
        } else {
          grantRows.push({ id, sessionId, aclId, status: 4, grantedAt: null, expiresAt: null, updatedAt: now });
        }
      });
    }
    await insertChunked(userRows, (part) => tx.insert(users).values(part));
    await insertChunked(sessionRows, (part) => tx.insert(userSessions).values(part));
    await insertChunked(groupUserRows, (part) => tx.insert(groupUsers).values(part));
    await insertChunked(userAclRows, (part) => tx.insert(userAcls).values(part));
    await insertChunked(grantRows, (part) => tx.insert(grants).values(part));
    await insertChunked(addressRows, (part) => tx.insert(grantAddresses).values(part));
  });
  return tokens;
}

/** Installs a licence for `users` users, signed with a throwaway key, through the licence store. */
async function installLicence(db: Db, users: number): Promise<void> {
  const { privateKeyPem } = generateLicenseSigningKey();
  const payload = {
    ID: "bench-licence",
    UserLimit: users,
    UserLimitOverage: 0,
    SessionLimit: 10,
    MaxMachines: 10,
    Expires: null,
  };
  const key = signLicense(payload, parseLicensePrivateKey(privateKeyPem));
  await db.transaction(async (tx) => await storeLicence(tx, key, payload, Date.now()));
}

/** One GET /api/status; resolves the status code and body size, or the socket error. */
function getStatus(
  agent: Agent,
  port: number,
  token: string,
  keepBody = false,
): Promise<{ status: number; bytes: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/api/status",
        agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: { cookie: `postern_session=${token}` },
      },
      (res) => {
        let bytes = 0;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => {
          bytes += c.length;
          if (keepBody) chunks.push(c);
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            bytes,
            ...(keepBody ? { body: Buffer.concat(chunks).toString("utf8") } : {}),
          }),
        );
        res.on("error", (e: NodeJS.ErrnoException) => resolve({ status: 0, bytes, error: e.code ?? e.message }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ status: 0, bytes: 0, error: e.code ?? e.message }));
    req.end();
  });
}

/** The figures of one phase. */
interface PhaseResult {
  readonly licence: string;
  readonly connections: number;
  readonly completed: number;
  readonly windowS: number;
  readonly latencies: Float64Array;
  readonly errors: Map<string, number>;
  readonly bytes: number;
  readonly serverCpu: number;
  readonly clientCpu: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly hwmAfter: number;
  readonly aclsInResponse: number;
  /** The priming pass (every session once): req/s and req/CPU-s, or null without one. */
  readonly primed: { perS: number; perCpuS: number } | null;
}

/**
 * Reads every session's status once over `connections` connections (the priming pass: after it each
 * session has polled once, as every session of a polling portal has after one interval); returns its
 * req/s and req/CPU-s of the server. Throws on any answer but 200.
 */
async function prime(
  agent: Agent,
  server: ServerProcess,
  tokens: readonly string[],
  connections: number,
): Promise<{ perS: number; perCpuS: number }> {
  let next = 0;
  const cpu0 = procCpuSeconds(server.pid);
  const t0 = performance.now();
  const loop = async (): Promise<void> => {
    while (next < tokens.length) {
      const r = await getStatus(agent, server.port, tokens[next++]!);
      if (r.status !== 200) throw new Error(`priming: GET /api/status answered ${r.status} ${r.error ?? ""}`);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const wall = (performance.now() - t0) / 1000;
  const cpu = procCpuSeconds(server.pid) - cpu0;
  return { perS: tokens.length / wall, perCpuS: tokens.length / cpu };
}

/** Runs one phase (see the module documentation). */
async function runPhase(
  server: ServerProcess,
  tokens: readonly string[],
  licence: string,
  connections: number,
  o: Options,
): Promise<PhaseResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  try {
    // One parsed answer: the seeded state is what the server reports.
    const probe = await getStatus(agent, server.port, tokens[0]!, true);
    if (probe.status !== 200)
      throw new Error(`GET /api/status answered ${probe.status} ${probe.error ?? probe.body?.slice(0, 200) ?? ""}`);
    const parsed = JSON.parse(probe.body!) as { ACLs: { Status: number }[]; UserLicensed: boolean };
    if (!parsed.UserLicensed) throw new Error("the session's user is not licensed");
    const primed = o.prime ? await prime(agent, server, tokens, connections) : null;

    const memBefore = procMemory(server.pid);
    const t0 = performance.now();
    const tStart = t0 + o.warmupS * 1000;
    const tEnd = tStart + o.durationS * 1000;
    const latencies: number[] = [];
    const errors = new Map<string, number>();
    let bytes = 0;
    let cpuStart = { server: Number.NaN, client: process.cpuUsage(), at: tStart };
    let cpuEnd = { server: Number.NaN, client: process.cpuUsage(), at: tEnd };
    const startTimer = setTimeout(() => {
      cpuStart = { server: procCpuSeconds(server.pid), client: process.cpuUsage(), at: performance.now() };
    }, tStart - performance.now());
    const endTimer = setTimeout(() => {
      cpuEnd = { server: procCpuSeconds(server.pid), client: process.cpuUsage(), at: performance.now() };
    }, tEnd - performance.now());
    const loop = async (): Promise<void> => {
      while (performance.now() < tEnd) {
        const token = tokens[Math.floor(Math.random() * tokens.length)]!;
        const sent = performance.now();
        const r = await getStatus(agent, server.port, token);
        const done = performance.now();
        if (done < tStart || done > tEnd) continue;
        if (r.status === 200) {
          latencies.push(done - sent);
          bytes += r.bytes;
        } else {
          const kind = r.error ?? `HTTP ${r.status}`;
          errors.set(kind, (errors.get(kind) ?? 0) + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: connections }, loop));
    clearTimeout(startTimer);
    clearTimeout(endTimer);
    if (!Number.isFinite(cpuEnd.server))
      cpuEnd = { server: procCpuSeconds(server.pid), client: process.cpuUsage(), at: performance.now() };
    const memAfter = procMemory(server.pid);
    const wall = (cpuEnd.at - cpuStart.at) / 1000;
    const clientUs = cpuEnd.client.user + cpuEnd.client.system - (cpuStart.client.user + cpuStart.client.system);
    const sorted = Float64Array.from(latencies).sort();
    return {
      licence,
      connections,
      completed: latencies.length,
      windowS: o.durationS,
      latencies: sorted,
      errors,
      bytes,
      serverCpu: (cpuEnd.server - cpuStart.server) / wall,
      clientCpu: clientUs / 1e6 / wall,
      rssBefore: memBefore?.rss ?? Number.NaN,
      rssAfter: memAfter?.rss ?? Number.NaN,
      hwmAfter: memAfter?.hwm ?? Number.NaN,
      aclsInResponse: parsed.ACLs.length,
      primed,
    };
  } finally {
    agent.destroy();
  }
}

async function run(o: Options, cleanup: Cleanup): Promise<number> {
  const startedAt = performance.now();
  console.log(
    `GET /api/status throughput: ${o.sessions} live sessions × ${o.acls} ACLs (${o.assign === "direct" ? "assigned directly" : "through one group"}), ${o.granted} granted per session; connections ${o.connections.join(", ")}; ${o.warmupS} s warm-up + ${o.durationS} s measured per phase`,
  );

  const dir = mkdtempSync(join(tmpdir(), "postern-bench-status-"));
  cleanup.add("temporary directory", () => rmSync(dir, { recursive: true, force: true }));
  const dataDir = join(dir, "data");
  // On PostgreSQL a database on a throw-away cluster (lib/database.ts); the CLI and the server process
  // find it through POSTERN_DATABASE_URL.
  const databaseUrl = await benchDatabaseUrl(cleanup, o.database);
  if (databaseUrl) process.env["POSTERN_DATABASE_URL"] = databaseUrl;
  await migrateDataDir(dataDir);

  // --- seed
  const seedStart = performance.now();
  const database: OpenDatabase = openConfiguredDatabase({ url: databaseUrl, file: databasePath(dataDir) });
  cleanup.add("database handle", () => database.close());
  const { db } = database;
  const tokens = await seed(db, o);
  const { grants } = tablesOf(db);
  const grantCount = async (): Promise<number> => (await db.select({ n: count() }).from(grants).limit(1))[0]?.n ?? 0;
  const grantsSeeded = await grantCount();
  await settle();
  console.log(
    `seeded ${o.sessions} users and sessions, ${grantsSeeded} grant rows (${o.sessions * o.granted} granted) in ${((performance.now() - seedStart) / 1000).toFixed(1)} s, directly through the server's modules (see the header); bench RSS ${mb(process.memoryUsage().rss)}`,
  );

  // --- server on CPU 0, load on CPU 1
  const canPin = o.pin && (await haveTaskset());
  if (o.profileDir) mkdirSync(o.profileDir, { recursive: true });
  const profileEnv: Record<string, string> = o.profileDir
    ? { NODE_OPTIONS: `${process.env["NODE_OPTIONS"] ?? ""} --cpu-prof --cpu-prof-dir=${o.profileDir}`.trim() }
    : {};
  const profilesBefore = new Set(o.profileDir ? readdirSync(o.profileDir) : []);
  const server = await startServerProcess({ dataDir, port: await freePort(), cpu: canPin ? 0 : null, env: profileEnv });
  cleanup.add("server", () => server.stop());
  const pinned = canPin && (await pinSelf(1));
  const started = procMemory(server.pid);
  console.log(
    `server PID ${server.pid} ${server.cpu === null ? "NOT pinned (no taskset or --no-pin)" : `pinned to CPU ${server.cpu}`}; load generator ${pinned ? "pinned to CPU 1" : "not pinned"}; server RSS after start ${mb(started?.rss ?? NaN)} (peak ${mb(started?.hwm ?? NaN)})`,
  );
  console.log(
    `load average before measuring: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  const licences = o.licence === "both" ? ["none", "installed"] : [o.licence];
  const results: PhaseResult[] = [];
  for (const licence of licences) {
    if (licence === "installed") await installLicence(db, Math.max(20_000, o.sessions));
    for (const connections of o.connections) {
      const r = await runPhase(server, tokens, licence, connections, o);
      results.push(r);
      const primed = r.primed
        ? ` (priming pass, every session once: ${r.primed.perS.toFixed(0)} req/s, ${r.primed.perCpuS.toFixed(0)} req/CPU-s)`
        : "";
      console.log(
        `  licence ${licence.padEnd(9)} ${String(connections).padStart(3)} connections: ${(r.completed / r.windowS).toFixed(0)} req/s${primed}`,
      );
    }
  }

  // --- steady state?
  const grantsAfter = await grantCount();
  const { userSessions } = tablesOf(db);
  const moved =
    (await db.select({ n: count() }).from(userSessions).where(ne(userSessions.ipAddress, "127.0.0.1")).limit(1))[0]
      ?.n ?? 0;
  const created = (await db.select({ n: count() }).from(grants).where(eq(grants.status, 4)).limit(1))[0]?.n ?? 0;

  // --- report
  const fmt = (v: number): string => (Number.isNaN(v) ? "-" : v < 10 ? v.toFixed(2) : v.toFixed(1));
  const header = [
    "licence",
    "conns",
    "req/s",
    "req/CPU-s",
    "p50 ms",
    "p99 ms",
    "max ms",
    "errors",
    "server CPU",
    "load CPU",
    "RSS before",
    "RSS after",
    "peak RSS",
    "kB/resp",
  ];
  const rows = results.map((r) => [
    r.licence,
    String(r.connections),
    (r.completed / r.windowS).toFixed(0),
    (r.completed / r.windowS / r.serverCpu).toFixed(0),
    fmt(percentile(r.latencies, 0.5)),
    fmt(percentile(r.latencies, 0.99)),
    fmt(r.latencies[r.latencies.length - 1] ?? NaN),
    String([...r.errors.values()].reduce((a, b) => a + b, 0)),
    `${(r.serverCpu * 100).toFixed(0)} %`,
    `${(r.clientCpu * 100).toFixed(0)} %`,
    mb(r.rssBefore),
    mb(r.rssAfter),
    mb(r.hwmAfter),
    r.completed > 0 ? (r.bytes / r.completed / 1024).toFixed(1) : "-",
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? "").length)));
  const line = (row: readonly string[]): string =>
    row.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join("  ");
  console.log("");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
  console.log("");
  console.log(`target: ${DESIGN_TARGET}`);
  console.log(
    `figures: responses completed in the ${o.durationS} s window after ${o.warmupS} s of warm-up; latency = send → last body byte (nearest rank);`,
  );
  console.log(
    "         server CPU = its user+system time over the window (100 % = the one core it is pinned to is busy); load CPU = this process;",
  );
  console.log(
    "         req/CPU-s = req/s ÷ server CPU: what one core given wholly to the server would serve at this cost per request.",
  );
  for (const r of results) {
    if (r.errors.size > 0)
      console.log(
        `errors (licence ${r.licence}, ${r.connections} connections): ${[...r.errors].map(([k, v]) => `${k} × ${v}`).join(", ")}`,
      );
    if (r.aclsInResponse !== o.acls) console.log(`WARNING: a response held ${r.aclsInResponse} ACLs, not ${o.acls}`);
  }
  console.log(
    `steady state: grant rows ${grantsSeeded} before, ${grantsAfter} after (${created} Created); sessions whose address moved: ${moved}`,
  );
  const end = procMemory(server.pid);
  console.log(
    `server RSS at the end ${mb(end?.rss ?? NaN)}, peak ${mb(end?.hwm ?? NaN)}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  if (o.profileDir) {
    await server.stop(); // the profile is written when the server exits
    const written = readdirSync(o.profileDir).filter((f) => f.endsWith(".cpuprofile") && !profilesBefore.has(f));
    if (written.length === 0) console.log(`no CPU profile was written to ${o.profileDir}`);
    for (const f of written) {
      console.log(
        `server CPU profile (whole server run: start-up, warm-ups and every phase) ${join(o.profileDir, f)}:`,
      );
      for (const l of summariseCpuProfile(join(o.profileDir, f))) console.log(l);
    }
  }
  console.log(`total run time ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  reportFigures(
    results.map((r) => {
      const perCpu = r.serverCpu > 0 ? r.completed / r.windowS / r.serverCpu : 0;
      return {
        figure: `GET /api/status, ${o.sessions} sessions × ${o.acls} ACLs, licence ${r.licence}, ${r.connections} connections`,
        target: "≥ 5,000 req/CPU-s",
        result: `${Math.round(perCpu)} req/CPU-s`,
        met: perCpu >= 5_000 && r.errors.size === 0,
      };
    }),
  );
  return 0;
}

const options = parseOptions(process.argv.slice(2));
const cleanup = new Cleanup();
guardRun("status-throughput", cleanup, options.timeoutMinutes, () => run(options, cleanup)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`status-throughput: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);

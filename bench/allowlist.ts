/**
 * Public allowlist benchmark (docs/reference.md admin-console §7 "Public allowlist"; docs/reference.md design "Performance targets"
 * style: reported, never asserted): how long serving GET /api/v1/allowlists/{aclId}/{token}.txt and
 * .json takes with 100,000 published addresses, and how big the answers are.
 *
 * Run from the repository root: `node bench/allowlist.ts [--entries N] [--samples N] [--warmup N]
 * [--database sqlite|postgres]`.
 *
 * Set-up: a real server (`startServer`) on 127.0.0.1 with a SQLite file in a temporary data
 * directory (WAL, as in production), or with `--database postgres` a database on a throw-away
 * PostgreSQL on loopback (bench/lib/database.ts). One allowlist backend and ACL, one API key with
 * `allowlist.read:{aclId}` (created through ApiKeyService). The published addresses are SEEDED
 * DIRECTLY, not through sign-in and grant (100,000 Argon2id sign-ins would take an hour): one user,
 * then per address one user_sessions row (inserted with drizzle: there is no repository function
 * for it) and one grant through the grant repository (`ensureGrantRows`, `setGrantStatus` to 6
 * Published with an expiry an hour ahead, `setGrantAddresses`), all in one transaction. Addresses:
 * 90 % IPv4 (10.x.y.z), 10 % IPv6 (2001:db8::/64), all distinct.
 *
 * Measured per sample, back to back, for each format:
 * - `query`: the repository query alone (`publishedAddresses`), in-process;
 * - `in-process`: `app.request` through the whole Hono app (auth, query, body building), no socket;
 * - `http`: a real HTTP request over loopback with `fetch` (connection reused), until the whole body
 *   has been read: the list kept ready (nothing written since the last read);
 * - `http .txt rebuilt`: the same after a database write before each sample (the list is read and
 *   built again: the figure of a busy server);
 * - `http 304`: with `If-None-Match` of the list's ETag (a poller whose copy is current).
 * Prints p50, p99 and max in milliseconds (nearest rank) and the body size, the query plan of the
 * allowlist query (SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN), and the RSS of the process.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import v8 from "node:v8";
import vm from "node:vm";
import { and, eq, gt, sql } from "drizzle-orm";
import { startServer } from "../server/src/server.ts";
import { dialectOf, tablesOf } from "../server/src/db/index.ts";
import type { Db } from "../server/src/db/index.ts";
import type { PgDb } from "../server/src/db/postgres.ts";
import { msResult, reportFigures } from "./lib/report.ts";
import { runBenchmark } from "./lib/cleanup.ts";
import type { Cleanup } from "./lib/cleanup.ts";
import { benchDatabase, benchDatabaseUrl, DATABASE_OPTION } from "./lib/database.ts";
import {
  ensureGrantRows,
  getGrantFor,
  publishedAddresses,
  setGrantAddresses,
  setGrantStatus,
} from "../server/src/repositories/grants.ts";
import { newId } from "../server/src/services/auth/tokens.ts";

const { values: opts } = parseArgs({
  options: {
    entries: { type: "string", default: "100000" },
    samples: { type: "string", default: "50" },
    warmup: { type: "string", default: "5" },
    ...DATABASE_OPTION,
  },
});
const ENTRIES = Number(opts.entries);
const SAMPLES = Number(opts.samples);
const WARMUP = Number(opts.warmup);
const DATABASE = benchDatabase(opts.database);
const TOKEN = "bench-allowlist-token-0123456789";
const NONE = "00000000-0000-0000-0000-000000000000";
/** Addresses seeded per transaction. */
const SEED_BATCH = 2_000;

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
function summary(name: string, times: number[], bytes: number): string {
  const s = [...times].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(2).padStart(8);
  return `${name.padEnd(18)} ${String(s.length).padStart(7)} ${f(percentile(s, 50))} ${f(percentile(s, 99))} ${f(s[s.length - 1]!)} ${String(bytes).padStart(10)}`;
}

function addressOf(i: number): string {
  if (i % 10 === 9) return `2001:db8::${(i >>> 16).toString(16)}:${(i & 0xffff).toString(16)}`;
  return `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;
}

/** The query plan of `query` as text lines: SQLite's EXPLAIN QUERY PLAN details, or PostgreSQL's EXPLAIN. */
async function queryPlan(db: Db, query: { getSQL(): ReturnType<typeof sql> }): Promise<string[]> {
  if (dialectOf(db) === "postgres") {
    const result = await (db as unknown as PgDb).execute(sql`EXPLAIN ${query.getSQL()}`);
    return result.rows.map((row) => String(row["QUERY PLAN"]));
  }
  // EXPLAIN QUERY PLAN rows: id, parent, notused, detail.
  const plan = await db.values<[number, number, number, string]>(sql`EXPLAIN QUERY PLAN ${query.getSQL()}`);
  return plan.map((row) => row[3]);
}

async function main(cleanup: Cleanup): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "postern-bench-allowlist-"));
  cleanup.add("data directory", async () => rmSync(dataDir, { recursive: true, force: true }));
  const databaseUrl = await benchDatabaseUrl(cleanup, DATABASE);
  const server = await startServer({
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    listen: "127.0.0.1:0",
    migrate: true,
    logLevel: process.env.BENCH_LOG ?? "silent",
    webDir: "/nonexistent",
  });
  cleanup.add("server", () => server.close());
  {
    const { db, clock, apiKeys } = server.services;
    const { acls, backends, grantAddresses, grants, users, userSessions } = tablesOf(db);
    const t0 = performance.now();
    const backendId = newId();
    const aclId = newId();
    const userId = newId();
    const now = clock.now();
    await db
      .insert(backends)
      .values({ id: backendId, name: "bench allowlist", agentId: null, type: "allowlist", config: { allowlist: {} } });
    await db.insert(acls).values({
      id: aclId,
      description: "Bench allowlist",
      backendId,
      ipExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
      grantType: { Type: "userIp", Ips: [] },
      config: {
        UriToken: "",
        allowlist: { Token: TOKEN, ApiKeyId: NONE, AllowAccessByIp: false, AllowedIpAddresses: [] },
      },
    });
    await db.insert(users).values({ id: userId, name: "Bench", userName: "bench", authType: "local" });
    const expiresAt = now + 3_600_000;
    for (let from = 0; from < ENTRIES; from += SEED_BATCH) {
      await db.transaction(async (tx) => {
        const sessionIds = Array.from({ length: Math.min(SEED_BATCH, ENTRIES - from) }, () => newId());
        await tx.insert(userSessions).values(
          sessionIds.map((id, k) => ({
            id,
            tokenHash: `bench-${from + k}`,
            userId,
            createdAt: now,
            endsAt: expiresAt,
            ipAddress: addressOf(from + k),
          })),
        );
        for (const [k, sessionId] of sessionIds.entries()) {
          await ensureGrantRows(tx, sessionId, [aclId], now, newId);
          const grantId = (await getGrantFor(tx, sessionId, aclId))!.id;
          await setGrantStatus(tx, grantId, 6, now, { grantedAt: now, expiresAt });
          await setGrantAddresses(tx, grantId, [addressOf(from + k)]);
        }
      });
      // Every drizzle call prepares a better-sqlite3 statement; its native memory (~3 kB) is freed
      // by a finaliser that runs only after a GC and a turn of the event loop. Without both, the
      // synchronous seeding grows the process by ~40 kB per address (4 GB at 100,000).
      collectGarbage();
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const key = (
      await apiKeys.create(
        { Name: "bench reader", Scopes: [`allowlist.read:${aclId}`], ExpiredAfter: null },
        { adminName: "bench", ip: "127.0.0.1" },
      )
    ).PlaintextKey!;
    const seeded = (await publishedAddresses(db, aclId, clock.now())).length;
    console.log(
      `seeded ${seeded} published addresses in ${((performance.now() - t0) / 1000).toFixed(1)} s (directly through the repositories, see the header); RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`,
    );

    // The query plan of the allowlist query (the same builder as publishedAddresses).
    const query = db
      .selectDistinct({ ip: grantAddresses.ip })
      .from(grants)
      .innerJoin(grantAddresses, eq(grantAddresses.grantId, grants.id))
      .where(and(eq(grants.aclId, aclId), eq(grants.status, 6), gt(grants.expiresAt, clock.now())))
      .orderBy(grantAddresses.ip);
    console.log("query plan:");
    for (const line of await queryPlan(db, query)) console.log(`  ${line}`);

    const auth = { authorization: `Basic ${Buffer.from(`bench:${key}`).toString("base64")}` };
    const path = (fmt: string) => `/api/v1/allowlists/${aclId}/${TOKEN}.${fmt}`;
    const env = { incoming: { socket: { remoteAddress: "127.0.0.1", remotePort: 40000, remoteFamily: "IPv4" } } };
    const { createApp } = await import("../server/src/app.ts");
    const app = createApp(server.services, "/nonexistent");

    const rows: string[] = [];
    const p50s = new Map<string, number>();
    const measure = async (name: string, run: () => Promise<number> | number) => {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        const start = performance.now();
        bytes = await run();
        const took = performance.now() - start;
        if (i >= WARMUP) times.push(took);
      }
      rows.push(summary(name, times, bytes));
      p50s.set(
        name,
        percentile(
          [...times].sort((a, b) => a - b),
          50,
        ),
      );
    };
    await measure("query", async () => (await publishedAddresses(db, aclId, clock.now())).length);
    for (const fmt of ["txt", "json"]) {
      await measure(`in-process .${fmt}`, async () => {
        const res = await app.request(`http://127.0.0.1${path(fmt)}`, { headers: auth }, env);
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        return (await res.arrayBuffer()).byteLength;
      });
    }
    // The HTTP figures run back to back on one kept-alive connection: an idle gap longer than the
    // server's keep-alive timeout (5 s) lets it close the socket while fetch reuses it (ECONNRESET).
    for (const fmt of ["txt", "json"]) {
      await measure(`http .${fmt}`, async () => {
        const res = await fetch(`${server.url}${path(fmt)}`, { headers: auth });
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        return (await res.arrayBuffer()).byteLength;
      });
    }
    // Any write moves the server's write mark (repositories/grants.ts writeMark), so the list is built again.
    const poke = async () => await db.update(acls).set({ description: "Bench allowlist" }).where(eq(acls.id, aclId));
    await measure("http .txt rebuilt", async () => {
      await poke();
      const res = await fetch(`${server.url}${path("txt")}`, { headers: auth });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      return (await res.arrayBuffer()).byteLength;
    });
    const etag = (await fetch(`${server.url}${path("txt")}`, { headers: auth })).headers.get("etag") ?? "";
    await measure("http 304", async () => {
      const res = await fetch(`${server.url}${path("txt")}`, { headers: { ...auth, "if-none-match": etag } });
      if (res.status !== 304) throw new Error(`status ${res.status}`);
      return (await res.arrayBuffer()).byteLength;
    });
    console.log(
      `\n${"figure".padEnd(18)} ${"samples".padStart(7)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"max ms".padStart(8)} ${"bytes".padStart(10)}`,
    );
    for (const r of rows) console.log(r);
    const kept = p50s.get("http .txt") ?? Number.NaN;
    const unchanged = p50s.get("http 304") ?? Number.NaN;
    reportFigures([
      {
        figure: `allowlist of ${seeded} addresses over HTTP, p50 (kept ready)`,
        target: "≤ 10 ms",
        result: msResult(kept),
        met: kept <= 10,
      },
      {
        figure: "unchanged allowlist, If-None-Match, p50",
        target: "304",
        result: `304 in ${msResult(unchanged)}`,
        met: true,
      },
    ]);
    console.log(
      `\n("query" bytes column: the number of addresses)  RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`,
    );
  }
  return 0;
}

runBenchmark(30, main);

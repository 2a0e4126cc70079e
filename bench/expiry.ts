/**
 * Expiry benchmark (issue #13 item 5; reported, never asserted): how long after an entry's expiry it
 * is gone from the real HAProxy ACL and the real ipset set, with the server up and with the server
 * down (the agent alone: its own expiry timers, and ipset's native timeouts).
 *
 * Run from the repository root, as root for ipset (otherwise HAProxy only):
 * `node bench/expiry.ts [--entries N] [--spread-seconds S] [--lead-seconds S] [--poll-ms MS]
 * [--scenarios up,down] [--haproxy-only] [--timeout-minutes N] [--database sqlite|postgres]`.
 *
 * Set-up: the shared test bed (bench/lib/testbed.ts): HAProxy, an ipset set with `timeout 0` in a
 * network namespace pair, a real server on loopback (on SQLite, or with `--database postgres` on a
 * throw-away PostgreSQL: bench/lib/database.ts), one agent with both backends, one ACL each.
 * Per scenario, `--entries` (default 200) sessions of one user sign in through the real sign-in
 * service, each from its own address (10.251.x.y for "up", 10.252.x.y for "down"). Each session is
 * then granted both ACLs through the grant engine with an expiry of its own (`GrantEngine.grant`'s
 * `keepExpiresAt`, the cap a moved grant keeps; the API offers no grant shorter than 5 minutes):
 * the expiries are spread evenly over `--spread-seconds` (default 60), the first `--lead-seconds`
 * (default 10) after the grants start, so everything is in place before the first one expires.
 * Once both targets hold every address, "down" stops the server. Then both targets are read every
 * `--poll-ms` (default 20) until every address is gone (or 30 s after the last expiry): an entry's
 * figure is the first read that no longer shows it minus its expiry, so the resolution is one poll
 * interval plus the read's own time. An entry gone before its expiry counts as "early", one still
 * there at the end as "missed".
 *
 * Prints per scenario and target: entries, p50 / p99 / max milliseconds after the expiry, early and
 * missed counts, and the reads' round trip.
 */
import { parseArgs } from "node:util";
import { runBenchmark } from "./lib/cleanup.ts";
import type { Cleanup } from "./lib/cleanup.ts";
import { formatMs, percentile, printTable } from "./lib/stats.ts";
import { msResult, reportFigures } from "./lib/report.ts";
import { startTestbed } from "./lib/testbed.ts";
import { benchDatabase, DATABASE_OPTION, useBenchDatabase } from "./lib/database.ts";
import type { BenchDatabase } from "./lib/database.ts";
import type { Testbed } from "./lib/testbed.ts";
import { createUser, waitFor } from "../test/support/stack.ts";

/** The goal this figure is held against (issue #13). */
const TARGET = "expiry → entry gone, p99 ≤ 1 s (issue #13)";

/** Command-line options. */
export interface ExpiryOptions {
  readonly entries: number;
  readonly spreadSeconds: number;
  readonly leadSeconds: number;
  readonly pollMs: number;
  readonly scenarios: readonly ("up" | "down")[];
  readonly haproxyOnly: boolean;
  readonly timeoutMinutes: number;
  /** The server's database. */
  readonly database: BenchDatabase;
}

/** Parses the command line; throws on an invalid value. */
export function parseExpiryOptions(argv: readonly string[]): ExpiryOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      entries: { type: "string", default: "200" },
      "spread-seconds": { type: "string", default: "60" },
      "lead-seconds": { type: "string", default: "10" },
      "poll-ms": { type: "string", default: "20" },
      scenarios: { type: "string", default: "up,down" },
      "haproxy-only": { type: "boolean", default: false },
      "timeout-minutes": { type: "string", default: "20" },
      ...DATABASE_OPTION,
    },
  });
  const num = (name: string, v: string, min: number, max: number): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be between ${min} and ${max}`);
    return n;
  };
  const scenarios = values.scenarios.split(",").map((s) => s.trim());
  if (scenarios.some((s) => s !== "up" && s !== "down") || scenarios.length === 0)
    throw new Error("--scenarios is a list of up and down");
  if (scenarios.indexOf("down") !== -1 && scenarios.indexOf("down") !== scenarios.length - 1)
    throw new Error("--scenarios: down stops the server, so it comes last");
  return {
    entries: num("entries", values.entries, 1, 60_000),
    spreadSeconds: num("spread-seconds", values["spread-seconds"], 0, 3_600),
    leadSeconds: num("lead-seconds", values["lead-seconds"], 1, 600),
    pollMs: num("poll-ms", values["poll-ms"], 1, 10_000),
    scenarios: scenarios as ("up" | "down")[],
    haproxyOnly: values["haproxy-only"],
    timeoutMinutes: num("timeout-minutes", values["timeout-minutes"], 1, 600),
    database: benchDatabase(values.database),
  };
}

/** The address of entry `i` of a scenario (`second` = 251 for "up", 252 for "down"). */
function entryIp(second: number, i: number): string {
  return `10.${second}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

interface Outcome {
  after: number[];
  early: number;
  missed: number;
  reads: number[];
}

async function scenario(
  bed: Testbed,
  options: ExpiryOptions,
  kind: "up" | "down",
  user: string,
): Promise<Map<string, Outcome>> {
  const { services } = bed.stack.server;
  const second = kind === "up" ? 251 : 252;
  const ips = Array.from({ length: options.entries }, (_, i) => entryIp(second, i));
  const sessions: string[] = [];
  for (const ip of ips) {
    const { session } = await services.userSessions.login({
      userName: user,
      password: `${user}-password`,
      kiosk: false,
      ip,
    });
    sessions.push(session.sessionId);
  }
  const start = Date.now() + options.leadSeconds * 1000;
  const spreadMs = options.spreadSeconds * 1000;
  const expiry = ips.map((_, i) => start + Math.round((spreadMs * i) / options.entries));
  for (const [i, ip] of ips.entries())
    for (const t of bed.targets)
      await services.engine.grant(sessions[i] as string, t.aclId, { userName: user, ip, click: false }, expiry[i]);
  const inPlace = await waitFor(
    async () => {
      for (const t of bed.targets) {
        const held = await t.present();
        if (ips.some((ip) => !held.has(ip))) return false;
      }
      return true;
    },
    Math.max(1_000, start - Date.now() - 100),
    50,
  );
  if (!inPlace)
    throw new Error(`${kind}: the targets did not hold every address before the first expiry (raise --lead-seconds)`);
  if (kind === "down") await bed.stopServer();

  const outcomes = new Map<string, Outcome>(
    bed.targets.map((t) => [t.name, { after: [], early: 0, missed: 0, reads: [] }]),
  );
  const pending = new Map(bed.targets.map((t) => [t.name, new Set(ips.map((_, i) => i))]));
  const deadline = start + spreadMs + 30_000;
  while (Date.now() < deadline && [...pending.values()].some((p) => p.size > 0)) {
    for (const t of bed.targets) {
      const left = pending.get(t.name) as Set<number>;
      if (left.size === 0) continue;
      const readStart = Date.now();
      const held = await t.present();
      const seenAt = Date.now();
      const out = outcomes.get(t.name) as Outcome;
      out.reads.push(seenAt - readStart);
      for (const i of [...left]) {
        if (held.has(ips[i] as string)) continue;
        left.delete(i);
        const after = readStart - (expiry[i] as number);
        if (after < 0 && seenAt < (expiry[i] as number)) out.early++;
        else out.after.push(Math.max(0, after));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
  for (const t of bed.targets) (outcomes.get(t.name) as Outcome).missed = (pending.get(t.name) as Set<number>).size;
  return outcomes;
}

async function main(cleanup: Cleanup): Promise<number> {
  const options = parseExpiryOptions(process.argv.slice(2));
  console.log(
    `expiry benchmark: ${options.entries} entries per target, expiries spread over ${options.spreadSeconds} s, read every ${options.pollMs} ms; scenarios ${options.scenarios.join(", ")}`,
  );
  await useBenchDatabase(cleanup, options.database);
  const bed = await startTestbed(cleanup, { haproxyOnly: options.haproxyOnly });
  if (bed.ipsetSkipped) console.log(`ipset NOT measured: ${bed.ipsetSkipped}. Measuring HAProxy only.`);
  const user = "expiry";
  await createUser(
    bed.stack,
    user,
    `${user}-password`,
    bed.targets.map((t) => t.aclId),
  );
  const rows: string[][] = [];
  const figures: Parameters<typeof reportFigures>[0][number][] = [];
  for (const kind of options.scenarios) {
    const outcomes = await scenario(bed, options, kind, user);
    for (const [target, o] of outcomes) {
      const after = [...o.after].sort((a, b) => a - b);
      const p99 = percentile(after, 0.99);
      figures.push({
        figure: `expiry → gone, ${target}, server ${kind}, p99`,
        target: "≤ 1 s",
        result: `${msResult(p99)}${o.early + o.missed > 0 ? ` (${o.early} early, ${o.missed} missed)` : ""}`,
        met: p99 <= 1000 && o.early === 0 && o.missed === 0,
      });
      const reads = [...o.reads].sort((a, b) => a - b);
      rows.push([
        kind === "up" ? "server up" : "server down",
        target,
        String(after.length),
        formatMs(percentile(after, 0.5)),
        formatMs(percentile(after, 0.99)),
        formatMs(after.at(-1) ?? Number.NaN),
        String(o.early),
        String(o.missed),
        formatMs(percentile(reads, 0.5)),
      ]);
    }
  }
  console.log("");
  printTable(["scenario", "target", "gone", "p50 ms", "p99 ms", "max ms", "early", "missed", "read p50 ms"], rows, 2);
  console.log(`\ntarget: ${TARGET}`);
  console.log("ms = first read without the entry − its expiry (resolution: --poll-ms plus the read's round trip).");
  reportFigures(figures);
  const failed = rows.some((r) => r[6] !== "0" || r[7] !== "0");
  return failed ? 1 : 0;
}

runBenchmark(20, main);

/**
 * Runs every benchmark (issue #13 item 6: `npm run bench`) one after the other as it would be run by
 * hand, and prints one table of figure, target and result from their `BENCH-FIGURES` lines
 * (lib/report.ts). `--smoke` runs each once at a tiny size, so that a change that breaks one fails
 * the test command (test/bench/smoke.test.ts); its figures are printed but mean nothing. The smoke run
 * runs each benchmark that takes `--database` (lib/benchmarks.ts) a second time on PostgreSQL, when
 * PostgreSQL is installed. `--database sqlite|postgres` is passed to every benchmark that takes it
 * (bench/lib/database.ts); with postgres, those that do not are left out (said so), and with
 * `--smoke` only that database runs. `--only a,b` runs a subset by name. Exits 1 when a benchmark
 * fails or prints no figures.
 *
 * Each benchmark's own output is kept in a log file whose path is printed with the table.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseFigures } from "./lib/report.ts";
import type { Figure } from "./lib/report.ts";
import { BENCHMARKS } from "./lib/benchmarks.ts";
import { benchDatabase, DATABASE_OPTION } from "./lib/database.ts";
import type { BenchDatabase } from "./lib/database.ts";
import { printTable } from "./lib/stats.ts";
import { postgresBinDir } from "../test/support/postgres.ts";

/** One benchmark run: its row label, file name and arguments. */
interface Run {
  readonly label: string;
  readonly name: string;
  readonly args: readonly string[];
}

/**
 * The runs of `chosen`: each with the smoke arguments when `smoke`; `database` (when given) passed to
 * those that take it, the others left out for postgres. A smoke run without `database` runs those
 * that take it on SQLite and again on PostgreSQL (when `postgresInstalled`).
 */
export function plannedRuns(
  chosen: typeof BENCHMARKS,
  opts: { smoke: boolean; database: BenchDatabase | undefined; postgresInstalled: boolean },
): { runs: Run[]; notes: string[] } {
  const runs: Run[] = [];
  const notes: string[] = [];
  for (const bench of chosen) {
    const base = opts.smoke ? bench.smoke : [];
    if (!bench.databases) {
      if (opts.database === "postgres") notes.push(`${bench.name}: left out (it does not take --database)`);
      else runs.push({ label: bench.name, name: bench.name, args: base });
      continue;
    }
    if (opts.database) {
      runs.push({ label: bench.name, name: bench.name, args: [...base, "--database", opts.database] });
      continue;
    }
    runs.push({ label: bench.name, name: bench.name, args: base });
    if (!opts.smoke) continue;
    if (opts.postgresInstalled)
      runs.push({ label: `${bench.name} (postgres)`, name: bench.name, args: [...base, "--database", "postgres"] });
    else notes.push(`${bench.name}: not run on PostgreSQL (not installed: scripts/setup.sh --test)`);
  }
  return { runs, notes };
}

/** Runs `node bench/<name>.ts args`; resolves to its exit code and output (stdout and stderr). */
function runOne(name: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // The database is the one `args` name: not the test suite's (a smoke run under POSTERN_TEST_DATABASE).
    const env = { ...process.env };
    delete env["POSTERN_TEST_DATABASE"];
    delete env["POSTERN_TEST_POSTGRES_URL"];
    const child = spawn(process.execPath, [join(import.meta.dirname, `${name}.ts`), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      only: { type: "string" },
      database: { type: DATABASE_OPTION.database.type },
    },
  });
  const only = values.only?.split(",").map((s) => s.trim());
  const chosen = BENCHMARKS.filter((b) => !only || only.includes(b.name));
  const { runs, notes } = plannedRuns(chosen, {
    smoke: values.smoke,
    database: values.database === undefined ? undefined : benchDatabase(values.database),
    postgresInstalled: postgresBinDir() !== undefined,
  });
  for (const note of notes) console.log(note);
  const logs = mkdtempSync(join(tmpdir(), "postern-bench-"));
  const rows: string[][] = [];
  let failed = 0;
  for (const bench of runs) {
    const started = performance.now();
    console.log(`${bench.label}: running${values.smoke ? " (smoke)" : ""}…`);
    const { code, output } = await runOne(bench.name, bench.args);
    writeFileSync(join(logs, `${bench.label.replace(/[^\w-]+/g, "-").replace(/-$/, "")}.log`), output);
    const figures: Figure[] | null = parseFigures(output);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    if (code !== 0 || figures === null) {
      failed++;
      rows.push([bench.label, "(run failed)", "", `exit ${code}${figures === null ? ", no figures" : ""}`, "FAILED"]);
      console.log(output.split("\n").slice(-15).join("\n"));
      continue;
    }
    console.log(`${bench.label}: done in ${seconds} s`);
    for (const f of figures)
      rows.push([bench.label, f.figure, f.target, f.result, f.met === null ? "-" : f.met ? "met" : "missed"]);
  }
  console.log("");
  printTable(["benchmark", "figure", "target", "result", ""], rows, 3);
  console.log(`\nlogs: ${logs}${values.smoke ? "  (smoke run: tiny sizes, the figures mean nothing)" : ""}`);
  return failed > 0 ? 1 : 0;
}

if (import.meta.main) process.exitCode = await main();

/**
 * Runs every benchmark (issue #13 item 6: `npm run bench`) one after the other as it would be run by
 * hand, and prints one table of figure, target and result from their `BENCH-FIGURES` lines
 * (lib/report.ts). `--smoke` runs each once at a tiny size, so that a change that breaks one fails
 * the test command (test/bench/smoke.test.ts); its figures are printed but mean nothing.
 * `--only a,b` runs a subset by name. Exits 1 when a benchmark fails or prints no figures.
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
import { printTable } from "./lib/stats.ts";

/** Runs `node bench/<name>.ts args`; resolves to its exit code and output (stdout and stderr). */
function runOne(name: string, args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(import.meta.dirname, `${name}.ts`), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { smoke: { type: "boolean", default: false }, only: { type: "string" } },
  });
  const only = values.only?.split(",").map((s) => s.trim());
  const chosen = BENCHMARKS.filter((b) => !only || only.includes(b.name));
  const logs = mkdtempSync(join(tmpdir(), "postern-bench-"));
  const rows: string[][] = [];
  let failed = 0;
  for (const bench of chosen) {
    const started = performance.now();
    console.log(`${bench.name}: running${values.smoke ? " (smoke)" : ""}…`);
    const { code, output } = await runOne(bench.name, values.smoke ? bench.smoke : []);
    writeFileSync(join(logs, `${bench.name}.log`), output);
    const figures: Figure[] | null = parseFigures(output);
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    if (code !== 0 || figures === null) {
      failed++;
      rows.push([bench.name, "(run failed)", "", `exit ${code}${figures === null ? ", no figures" : ""}`, "FAILED"]);
      console.log(output.split("\n").slice(-15).join("\n"));
      continue;
    }
    console.log(`${bench.name}: done in ${seconds} s`);
    for (const f of figures)
      rows.push([bench.name, f.figure, f.target, f.result, f.met === null ? "-" : f.met ? "met" : "missed"]);
  }
  console.log("");
  printTable(["benchmark", "figure", "target", "result", ""], rows, 3);
  console.log(`\nlogs: ${logs}${values.smoke ? "  (smoke run: tiny sizes, the figures mean nothing)" : ""}`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main();

/**
 * Every benchmark once at a tiny size (issue #13 item 6): `node bench/run-all.ts --smoke` must run
 * each of them to its end and print its figures, so a change that breaks a benchmark fails the test
 * command instead of rotting unseen; each that takes `--database` runs once more on PostgreSQL
 * (issue #12 item 10; skipped, said so, where PostgreSQL is not installed). No figure is judged here.
 * `plannedRuns` (which runs `run-all.ts` makes of its options) is checked on its own.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARKS } from "../../bench/lib/benchmarks.ts";
import { plannedRuns } from "../../bench/run-all.ts";
import { postgresBinDir } from "../support/postgres.ts";

const hasPostgres = postgresBinDir() !== undefined;
if (!hasPostgres) console.warn("PostgreSQL is not installed: the smoke run leaves the benchmarks' PostgreSQL runs out");

describe("the runs of bench/run-all.ts", () => {
  const labels = (opts: Parameters<typeof plannedRuns>[1]) =>
    plannedRuns(BENCHMARKS, opts).runs.map((r) => `${r.label}: ${r.args.join(" ")}`);
  it("passes --database to the benchmarks that take it and leaves the others out for postgres", () => {
    const runs = labels({ smoke: false, database: "postgres", postgresInstalled: true });
    expect(runs).toEqual(BENCHMARKS.filter((b) => b.databases).map((b) => `${b.name}: --database postgres`));
    expect(plannedRuns(BENCHMARKS, { smoke: false, database: "postgres", postgresInstalled: true }).notes).toEqual(
      BENCHMARKS.filter((b) => !b.databases).map((b) => `${b.name}: left out (it does not take --database)`),
    );
    expect(labels({ smoke: false, database: undefined, postgresInstalled: true })).toEqual(
      BENCHMARKS.map((b) => `${b.name}: `),
    );
  });
  it("smoke-runs every benchmark, and those that take --database once more on PostgreSQL", () => {
    const runs = labels({ smoke: true, database: undefined, postgresInstalled: true });
    for (const b of BENCHMARKS) {
      expect(runs).toContain(`${b.name}: ${b.smoke.join(" ")}`);
      if (b.databases)
        expect(runs).toContain(`${b.name} (postgres): ${[...b.smoke, "--database", "postgres"].join(" ")}`);
    }
    expect(runs).toHaveLength(BENCHMARKS.length + BENCHMARKS.filter((b) => b.databases).length);
    expect(labels({ smoke: true, database: undefined, postgresInstalled: false })).toHaveLength(BENCHMARKS.length);
  });
});

describe("benchmarks (smoke run)", () => {
  it("runs every benchmark at a tiny size and gathers its figures", { timeout: 15 * 60_000 }, () => {
    const run = spawnSync(process.execPath, [join(import.meta.dirname, "../../bench/run-all.ts"), "--smoke"], {
      encoding: "utf8",
      timeout: 14 * 60_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    for (const { name, databases } of BENCHMARKS) {
      expect(output).toMatch(new RegExp(`^${name} +[^\\s(]`, "m"));
      if (databases && hasPostgres) expect(output).toMatch(new RegExp(`^${name} \\(postgres\\) +\\S`, "m"));
    }
    expect(output).not.toContain("FAILED");
  });
});

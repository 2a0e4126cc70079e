/**
 * Every benchmark once at a tiny size (issue #13 item 6): `node bench/run-all.ts --smoke` must run
 * each of them to its end and print its figures, so a change that breaks a benchmark fails the test
 * command instead of rotting unseen; each that takes `--database` runs on PostgreSQL too (issue #12
 * item 10). The test command runs the suite twice (scripts/test.sh): the plain pass smoke-runs every
 * benchmark on SQLite (`--database sqlite`), the pass with POSTERN_TEST_DATABASE=postgres those that
 * take `--database` on PostgreSQL, so each run happens once per test command. No figure is judged here.
 * `plannedRuns` (which runs `run-all.ts` makes of its options) is checked on its own.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARKS } from "../../bench/lib/benchmarks.ts";
import { plannedRuns } from "../../bench/run-all.ts";
import { postgresBinDir } from "../support/postgres.ts";

/** This pass of the suite runs on PostgreSQL (scripts/test.sh's second pass). */
const onPostgres = process.env["POSTERN_TEST_DATABASE"] === "postgres";
if (onPostgres && postgresBinDir() === undefined) console.warn("PostgreSQL is not installed: no smoke run on it");

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
  it.skipIf(onPostgres && postgresBinDir() === undefined)(
    `runs every benchmark ${onPostgres ? "that takes --database on PostgreSQL" : "on SQLite"} at a tiny size and gathers its figures`,
    { timeout: 15 * 60_000 },
    () => {
      const database = onPostgres ? "postgres" : "sqlite";
      const script = join(import.meta.dirname, "../../bench/run-all.ts");
      const run = spawnSync(process.execPath, [script, "--smoke", "--database", database], {
        encoding: "utf8",
        timeout: 14 * 60_000,
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.status, output).toBe(0);
      for (const { name, databases } of BENCHMARKS)
        if (databases || !onPostgres) expect(output).toMatch(new RegExp(`^${name} +[^\\s(]`, "m"));
      expect(output).not.toContain("FAILED");
    },
  );
});

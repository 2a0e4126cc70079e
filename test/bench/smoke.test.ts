/**
 * Every benchmark once at a tiny size (issue #13 item 6): `node bench/run-all.ts --smoke` must run
 * each of them to its end and print its figures, so a change that breaks a benchmark fails the test
 * command instead of rotting unseen. No figure is judged here.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BENCHMARKS } from "../../bench/lib/benchmarks.ts";

describe("benchmarks (smoke run)", () => {
  it("runs every benchmark at a tiny size and gathers its figures", { timeout: 15 * 60_000 }, () => {
    const run = spawnSync(process.execPath, [join(import.meta.dirname, "../../bench/run-all.ts"), "--smoke"], {
      encoding: "utf8",
      timeout: 14 * 60_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    for (const { name } of BENCHMARKS) expect(output).toMatch(new RegExp(`^${name} +\\S`, "m"));
    expect(output).not.toContain("FAILED");
  });
});

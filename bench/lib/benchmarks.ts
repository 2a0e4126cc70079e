/**
 * Every benchmark of `bench/`, by file name, with the arguments of its smoke run (bench/run-all.ts
 * --smoke), and whether it takes `--database sqlite|postgres` (bench/lib/database.ts).
 */
export const BENCHMARKS: readonly { name: string; smoke: readonly string[]; databases?: true }[] = [
  { name: "web-size", smoke: ["--no-build"] },
  { name: "allowlist", databases: true, smoke: ["--entries", "50", "--samples", "3", "--warmup", "1"] },
  {
    name: "grant-latency",
    databases: true,
    smoke: ["--levels", "1", "--samples", "3", "--warmup", "1", "--timeout-minutes", "5"],
  },
  { name: "grant-floor", smoke: ["--samples", "3", "--warmup", "1", "--timeout-minutes", "5"] },
  {
    name: "expiry",
    databases: true,
    smoke: ["--entries", "4", "--spread-seconds", "2", "--lead-seconds", "3", "--timeout-minutes", "5"],
  },
  {
    name: "status-throughput",
    databases: true,
    smoke: [
      "--sessions",
      "50",
      "--acls",
      "3",
      "--granted",
      "1",
      "--connections",
      "2",
      "--duration",
      "1",
      "--warmup",
      "1",
      "--timeout-minutes",
      "5",
    ],
  },
  { name: "memory", smoke: ["--sessions", "20", "--acls", "2", "--status-calls", "10", "--timeout-minutes", "5"] },
];

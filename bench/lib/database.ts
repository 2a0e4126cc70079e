/**
 * The database a benchmark's server runs on (issue #12 item 10: the benchmarks run on both databases;
 * bench/README.md "On both databases"): `--database sqlite|postgres`, default sqlite. On PostgreSQL
 * the test suite's own set-up (test/support/database-setup.ts) starts one throw-away cluster on
 * loopback with a migrated template database and registers its stop with the run's Cleanup; a server
 * started through `startStack` (test/support/stack.ts) then gets a fresh database on it by itself, and
 * a benchmark that starts its server another way asks `benchDatabaseUrl` for one.
 */
import setUpTestDatabase from "../../test/support/database-setup.ts";
import { createTestPostgresDatabase } from "../../server/src/testing/database.ts";

/** Where a run registers what to release at its end (lib/cleanup.ts's Cleanup, or a benchmark's own). */
export interface CleanupSteps {
  add(name: string, fn: () => Promise<void>): void;
}

/** Which database a benchmark runs on. */
export type BenchDatabase = "sqlite" | "postgres";

/** The `--database` option for `parseArgs`' `options`. */
export const DATABASE_OPTION = { database: { type: "string", default: "sqlite" } } as const;

/**
 * Checks the value of `--database`.
 * @throws Error naming the value when it is neither sqlite nor postgres.
 */
export function benchDatabase(value: string): BenchDatabase {
  if (value !== "sqlite" && value !== "postgres")
    throw new Error(`--database must be sqlite or postgres, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * Prepares `database` for the run and prints which it is: on PostgreSQL starts the throw-away cluster
 * (stopped by `cleanup`) and sets POSTERN_TEST_DATABASE / POSTERN_TEST_POSTGRES_URL for `startStack`;
 * on SQLite nothing. Call once, before any server starts.
 * @throws Error when PostgreSQL is not installed or does not start.
 */
export async function useBenchDatabase(cleanup: CleanupSteps, database: BenchDatabase): Promise<void> {
  if (database === "postgres") {
    process.env["POSTERN_TEST_DATABASE"] = "postgres";
    const teardown = await setUpTestDatabase();
    if (teardown) cleanup.add("postgres", teardown);
    console.log("database: PostgreSQL (a throw-away cluster on loopback)");
  } else console.log("database: SQLite");
}

/**
 * `useBenchDatabase`, then for PostgreSQL the URL of a fresh, migrated database on the cluster
 * (dropped by `cleanup`) for a server the benchmark starts itself (`startServer`'s `databaseUrl`,
 * POSTERN_DATABASE_URL); undefined on SQLite (the server uses the SQLite file of its data directory).
 */
export async function benchDatabaseUrl(cleanup: CleanupSteps, database: BenchDatabase): Promise<string | undefined> {
  await useBenchDatabase(cleanup, database);
  if (database === "sqlite") return undefined;
  const made = await createTestPostgresDatabase();
  cleanup.add("postgres database", () => made.drop());
  return made.url;
}

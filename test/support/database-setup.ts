/**
 * vitest's global set-up for the suite on PostgreSQL (issue #12 item 7). With
 * `POSTERN_TEST_DATABASE=postgres` it starts one throw-away cluster (test/support/postgres.ts), creates
 * the database `postern_template` and applies the PostgreSQL migrations to it, and hands the cluster's
 * URL to the test workers as POSTERN_TEST_POSTGRES_URL; each test then copies the template
 * (server/src/testing/database.ts). The cluster is stopped by PID when the run ends. Without the
 * variable it does nothing: the suite runs on SQLite.
 */
import { migratePostgres, openPostgres } from "../../server/src/db/postgres.ts";
import { POSTGRES_TEMPLATE } from "../../server/src/testing/database.ts";
import { startPostgres } from "./postgres.ts";

/** Starts the cluster when the suite runs on PostgreSQL; returns the teardown. */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const which = process.env["POSTERN_TEST_DATABASE"] ?? "sqlite";
  if (which === "sqlite") return undefined;
  if (which !== "postgres") throw new Error(`POSTERN_TEST_DATABASE must be sqlite or postgres, not ${which}`);
  const cluster = await startPostgres({ maxConnections: 300 });
  try {
    const url = await cluster.createDatabase(POSTGRES_TEMPLATE);
    const template = openPostgres(url, { max: 1 });
    try {
      await migratePostgres(template.db);
    } finally {
      await template.close();
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  process.env["POSTERN_TEST_POSTGRES_URL"] = cluster.url;
  return () => cluster.stop();
}

/**
 * The database of an in-process test (issue #12 item 7: the whole suite runs on SQLite and on
 * PostgreSQL). By default an in-memory SQLite (or the SQLite file given). When the suite runs on
 * PostgreSQL (`POSTERN_TEST_DATABASE=postgres`; test/support/database-setup.ts, vitest's global set-up,
 * starts a throw-away cluster and sets POSTERN_TEST_POSTGRES_URL), each call makes a fresh database
 * from the migrated template `postern_template` and its closer drops it again.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openConfiguredDatabase, openDatabase, tablesOf, type OpenDatabase, type Tables } from "../db/index.ts";
import * as sqliteSchema from "../db/schema.ts";
import * as postgresSchema from "../db/schema-pg.ts";

/** The migrated database every PostgreSQL test database is copied from. */
export const POSTGRES_TEMPLATE = "postern_template";

/** The throw-away cluster's URL (of its `postgres` database) when the suite runs on PostgreSQL, else undefined. */
export function testPostgresUrl(): string | undefined {
  return process.env["POSTERN_TEST_POSTGRES_URL"] || undefined;
}

/** The URL of database `name` on the test cluster. */
function urlOf(base: string, name: string): string {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

async function onCluster<T>(base: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated PostgreSQL database on the test cluster (copied from the template): its URL and a
 * function that drops it (connections still open to it are ended first).
 * @throws Error when the suite does not run on PostgreSQL.
 */
export async function createTestPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = testPostgresUrl();
  if (!base) throw new Error("the suite does not run on PostgreSQL (POSTERN_TEST_POSTGRES_URL is not set)");
  const name = `t_${randomBytes(8).toString("hex")}`;
  await onCluster(base, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${POSTGRES_TEMPLATE}"`));
  return {
    url: urlOf(base, name),
    drop: () => onCluster(base, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Opens a test database, not migrated (`createHarness` migrates): a fresh PostgreSQL database when the
 * suite runs on PostgreSQL and no `file` is named (its closer drops it), else SQLite at `file`
 * (default in memory).
 */
export async function openTestDatabase(file = ":memory:"): Promise<OpenDatabase> {
  // A file named by the test is a SQLite file on every run (tests of SQLite itself, `postern db copy`).
  if (!testPostgresUrl() || file !== ":memory:") return openDatabase(file);
  const made = await createTestPostgresDatabase();
  const open = openConfiguredDatabase({ url: made.url, file }, { applicationName: "postern-test" });
  return {
    db: open.db,
    close: async () => {
      await open.close();
      await made.drop();
    },
  };
}

/**
 * The tables of the dialect the suite runs on, for tests that query the database themselves
 * (repositories take theirs from the handle: `tablesOf`).
 */
export const testTables: Tables = testPostgresUrl() ? (postgresSchema as unknown as Tables) : sqliteSchema;

export { tablesOf };

/**
 * PostgreSQL as the database (issue #12; docs/decisions.md "PostgreSQL schema"): opens a node-postgres
 * pool behind drizzle's node-postgres driver with the pg-core schema (schema-pg.ts), and applies the
 * migrations of server/drizzle-pg. The repositories still run on SQLite (db/index.ts); this is the
 * foundation they move onto, and what `postern db copy` writes to.
 */
import pg from "pg";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { fileURLToPath } from "node:url";
import * as schemaPg from "./schema-pg.ts";

/** The typed, asynchronous PostgreSQL handle (its pool is `$client`). */
export type PgDb = NodePgDatabase<typeof schemaPg> & { $client: pg.Pool };

/** An open PostgreSQL database with its closer. */
export interface OpenPostgres {
  readonly db: PgDb;
  /** Ends the pool (waits for its connections to close). */
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL("../../drizzle-pg", import.meta.url));

/**
 * An arbitrary but fixed key for `pg_advisory_lock`: replicas starting together migrate one at a
 * time, the later ones finding nothing pending.
 */
const MIGRATION_LOCK = 0x706f7374; // "post"

/** Where drizzle's migrator records the applied migrations on PostgreSQL. */
const JOURNAL = `"drizzle"."__drizzle_migrations"`;

/**
 * Opens a pool on the PostgreSQL database at `url` (`postgres://user:password@host:port/database`,
 * libpq's URL form; `?sslmode=...` as node-postgres reads it). Connects lazily: a wrong URL fails at
 * the first query, not here. Does not migrate: call `migratePostgres`.
 * @param opts.max the pool's size (connections; default 10).
 */
export function openPostgres(url: string, opts: { max?: number } = {}): OpenPostgres {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  // An idle connection's error (the server restarted) must not crash the process; the pool drops it.
  pool.on("error", () => undefined);
  const db = drizzle({ client: pool, schema: schemaPg });
  return { db, close: () => pool.end() };
}

/** How many migrations this release has for PostgreSQL (server/drizzle-pg). */
export function postgresMigrationCount(): number {
  return readMigrationFiles({ migrationsFolder }).length;
}

async function pendingOn(client: pg.PoolClient): Promise<number> {
  const all = readMigrationFiles({ migrationsFolder });
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('${JOURNAL}')::text AS t`);
  if (!exists.rows[0]?.t) return all.length;
  const last = await client.query<{ at: string | null }>(`SELECT max(created_at)::text AS at FROM ${JOURNAL}`);
  const at = Number(last.rows[0]?.at ?? 0);
  return all.filter((m) => m.folderMillis > at).length;
}

/** Counts the migrations of server/drizzle-pg not yet applied to this database. */
export async function pendingPostgresMigrations(db: PgDb): Promise<number> {
  const client = await db.$client.connect();
  try {
    return await pendingOn(client);
  } finally {
    client.release();
  }
}

/**
 * Applies every pending migration of server/drizzle-pg in order, in one transaction, holding an
 * advisory lock so that replicas starting at once do not race; returns how many were applied.
 * @throws the database's error when a migration fails (nothing of the failed run stays).
 */
export async function migratePostgres(db: PgDb): Promise<number> {
  const client = await db.$client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    try {
      const pending = await pendingOn(client);
      if (pending > 0) await migrate(drizzle({ client }), { migrationsFolder });
      return pending;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

export { schemaPg };

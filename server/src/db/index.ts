/**
 * The database module: owns the driver (better-sqlite3), its pragmas (WAL, foreign keys, busy
 * timeout), the schema and the named migrations in server/drizzle. Callers get a drizzle `Db` and
 * never the driver. PostgreSQL for several replicas will come in behind the same `Db` surface.
 */
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { sql } from "drizzle-orm";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import * as schema from "./schema.ts";
import { cacheStatements } from "./statement-cache.ts";

/** The typed database handle used by repositories. */
export type Db = BetterSQLite3Database<typeof schema>;
/** A transaction handle; same query surface as Db. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** An open database with its closer. */
export interface OpenDatabase {
  readonly db: Db;
  close(): void;
}

const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

/**
 * Opens (creating if needed) the SQLite file at `file` (":memory:" for tests) with WAL and
 * foreign keys on. Does not migrate: call `migrateDatabase` first (the explicit migrate step).
 */
export function openDatabase(file: string): OpenDatabase {
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("synchronous = NORMAL");
  cacheStatements(sqlite);
  const db = drizzle(sqlite, { schema });
  return { db, close: () => sqlite.close() };
}

/** Path of the SQLite database inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, "postern.db");
}

/** How many migrations this release has (server/drizzle). */
export function migrationCount(): number {
  return readMigrationFiles({ migrationsFolder }).length;
}

/** Applies every pending migration of server/drizzle in order; returns how many were applied. */
export function migrateDatabase(db: Db): number {
  const before = pendingMigrations(db);
  migrate(db, { migrationsFolder });
  return before;
}

/** Counts the committed migrations not yet applied to this database. */
export function pendingMigrations(db: Db): number {
  const all = readMigrationFiles({ migrationsFolder });
  let applied: number;
  try {
    applied = db.get<{ n: number } | undefined>(sql`SELECT count(*) AS n FROM __drizzle_migrations`)?.n ?? 0;
  } catch {
    applied = 0;
  }
  return Math.max(0, all.length - applied);
}

export { schema };

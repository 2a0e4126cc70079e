/**
 * The database module: owns the drivers (better-sqlite3 for the embedded default, node-postgres when
 * `POSTERN_DATABASE_URL` names a PostgreSQL database: postgres.ts), their settings, the two schemas and
 * the named migrations of each (server/drizzle, server/drizzle-pg). Callers get an asynchronous drizzle
 * `Db` (issue #12 item 1) and never the driver. `Db` is typed as drizzle's SQLite surface; on
 * PostgreSQL the handle is drizzle's node-postgres database over schema-pg.ts, and repositories use
 * only what both have in common: they await query builders (never `.get()/.all()/.run()`), take their
 * tables from the handle (`tablesOf`), and read raw SQL through `scalar`/`rawStatement`.
 *
 * SQLite runs behind drizzle's async SQLite surface (the `sqlite-proxy` session) over one better-sqlite3
 * connection: each statement is compiled once (statement-cache.ts) and run synchronously, and
 * transactions pass a gate (gate.ts) that runs one at a time and keeps other requests' statements out
 * of them. `db.transaction` starts `BEGIN IMMEDIATE`; nested `tx.transaction` calls are savepoints.
 */
import Database from "better-sqlite3";
import { drizzle as drizzleSync } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzleAsync, type SqliteRemoteDatabase } from "drizzle-orm/sqlite-proxy";
import { is, sql, type SQL } from "drizzle-orm";
import { PgDatabase } from "drizzle-orm/pg-core";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import * as schema from "./schema.ts";
import { cacheStatements } from "./statement-cache.ts";
import { outsideGateTransaction, TransactionGate } from "./gate.ts";
import { rememberRoot } from "./roots.ts";
import {
  migratePostgres,
  openPostgres,
  outsidePostgresTransaction,
  pendingPostgresMigrations,
  postgresMigrationCount,
  rawPostgresRows,
  type PgDb,
} from "./postgres.ts";

/** The typed, asynchronous database handle used by repositories. */
export type Db = SqliteRemoteDatabase<typeof schema>;
/** A transaction handle; same query surface as Db. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Either handle: what a repository function takes. */
export type Queryable = Db | Tx;

/** A statement prepared once on the database and run through the transaction gate, rows as arrays. */
export interface RawStatement<Row extends unknown[]> {
  /** Every row, each an array of the selected columns in order. */
  all(params?: Record<string, unknown>): Promise<Row[]>;
  /** The first column of the first row, or undefined. */
  value(params?: Record<string, unknown>): Promise<unknown>;
}

/** An open database with its closer. */
export interface OpenDatabase {
  readonly db: Db;
  /** Closes the connection (SQLite) or ends the pool (PostgreSQL, waiting for its connections). */
  close(): Promise<void>;
}

/**
 * Runs `fn` as code outside any open transaction. Timers, listeners and other work started inside a
 * transaction's callback otherwise carry its context, and their statements on the root handle would
 * run inside that transaction (or on its connection after it ended). Start background work through
 * this (e.g. the audit writer's listeners).
 */
export function outsideTransaction<T>(fn: () => T): T {
  return outsideGateTransaction(() => outsidePostgresTransaction(fn));
}

/** The tables of a schema (`tablesOf`), typed as schema.ts. */
export type Tables = typeof schema;

/** Which database a handle talks to. */
export type Dialect = "sqlite" | "postgres";

/** The dialect of a handle (a database or a transaction of it). */
export function dialectOf(q: Queryable): Dialect {
  return is(q, PgDatabase) ? "postgres" : "sqlite";
}

/**
 * The tables of the handle's own schema (schema.ts on SQLite, schema-pg.ts on PostgreSQL), typed as
 * schema.ts: repositories build every query from these, never from an imported table.
 */
export function tablesOf(q: Queryable): Tables {
  return (q as unknown as { _: { fullSchema: Tables } })._.fullSchema;
}

/** The PostgreSQL handle behind `q`, or undefined on SQLite. */
function postgresOf(q: Queryable): PgDb | undefined {
  return dialectOf(q) === "postgres" ? (q as unknown as PgDb) : undefined;
}

/**
 * Opens the database the server is configured with: PostgreSQL when `url` is given
 * (`postgres://user:password@host:port/database`, from POSTERN_DATABASE_URL), otherwise the SQLite file
 * `file` (created if needed). Does not migrate (`migrateDatabase`).
 * @param opts.applicationName the name PostgreSQL shows for this process's connections.
 */
export function openConfiguredDatabase(
  where: { url?: string | undefined; file: string },
  opts: { applicationName?: string } = {},
): OpenDatabase {
  if (!where.url) return openDatabase(where.file);
  const open = openPostgres(where.url, { applicationName: opts.applicationName });
  return { db: open.db as unknown as Db, close: () => open.close() };
}

const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** What db/ keeps of each open database beside the handle it gives out. */
interface Internals {
  readonly sqlite: Database.Database;
  readonly gate: TransactionGate;
}
const internals = new WeakMap<object, Internals>();

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
  const gate = new TransactionGate();
  const run = (
    text: string,
    params: unknown[],
    method: "run" | "all" | "values" | "get",
  ): { rows: unknown[]; changes?: number } => {
    const statement = sqlite.prepare(text);
    if (method === "run" || !statement.reader) {
      const { changes } = statement.run(...params);
      return { rows: [], changes };
    }
    statement.raw(true);
    if (method === "get") return { rows: statement.get(...params) as unknown[] | undefined as unknown[] };
    return { rows: statement.all(...params) };
  };
  const db = drizzleAsync(
    async (text, params, method) => {
      if (gate.mustWait()) await gate.pass();
      return run(text, params, method);
    },
    { schema },
  );
  // A transaction started on the root handle inside another one becomes a savepoint of it (as
  // better-sqlite3's nested transactions were), so a service may open one whether or not its
  // caller already did.
  const transaction = db.transaction.bind(db);
  db.transaction = (async (body, config) => {
    const outer = gate.current()?.["tx"] as Tx | undefined;
    if (outer)
      return outer.transaction(async (savepoint) => {
        rememberRoot(savepoint, db);
        return body(savepoint);
      });
    return gate.exclusive((marker) =>
      transaction(
        async (tx) => {
          marker["tx"] = tx;
          rememberRoot(tx, db);
          return body(tx);
        },
        { behavior: "immediate", ...config },
      ),
    );
  }) as Db["transaction"];
  internals.set(db, { sqlite, gate });
  rememberRoot(db, db);
  return {
    db,
    close: async () => {
      sqlite.close();
    },
  };
}

function internalsOf(db: Db): Internals {
  const found = internals.get(db);
  if (found) return found;
  throw new Error("not a database opened by openDatabase");
}

/**
 * Prepares `text` (named parameters `@name`) once on the database behind `db`, for a repository's hot
 * read (docs: issue #13 item 2, the status read): no drizzle mapping, rows as arrays.
 */
export function rawStatement<Row extends unknown[]>(db: Db, text: string): RawStatement<Row> {
  const pg = postgresOf(db);
  if (pg)
    return {
      all: async (params) => (await rawPostgresRows(pg, text, params)) as Row[],
      value: async (params) => (await rawPostgresRows(pg, text, params))[0]?.[0],
    };
  const { sqlite, gate } = internalsOf(db);
  // Through the cache on every run: the cache resets the statement's modes when it hands it out.
  return {
    async all(params) {
      if (gate.mustWait()) await gate.pass();
      const statement = sqlite.prepare(text).raw(true);
      return (params ? statement.all(params) : statement.all()) as Row[];
    },
    async value(params) {
      if (gate.mustWait()) await gate.pass();
      const statement = sqlite.prepare(text).pluck(true);
      return params ? statement.get(params) : statement.get();
    },
  };
}

/**
 * True when `q` is a database handle opened by `openDatabase` (which `rawStatement` takes), false
 * for a transaction handle: lets a repository run a hot read raw outside transactions only.
 */
export function isRootDb(q: Queryable): q is Db {
  return internals.has(q);
}

/**
 * How many rows a write without `returning` changed, from what awaiting it gave (`await q.delete(...)`):
 * SQLite's `changes`, PostgreSQL's `rowCount`; 0 when the result says nothing.
 */
export function changedRows(result: unknown): number {
  const r = result as { changes?: number; rowCount?: number | null } | undefined;
  return r?.changes ?? r?.rowCount ?? 0;
}

/**
 * The first column of the first row of a raw SQL read (`sql\`...\``), or undefined when there is no
 * row. Raw reads come back as arrays of columns on every driver; use this rather than `q.get(sql)`.
 */
export async function scalar<T>(q: Queryable, query: SQL): Promise<T | undefined> {
  const pg = postgresOf(q);
  if (pg) {
    const first = (await pg.execute(query)).rows[0];
    return first ? (Object.values(first)[0] as T) : undefined;
  }
  const rows = await q.values<[T]>(query);
  return rows[0]?.[0];
}

/**
 * The `table.column` whose unique constraint `err` (or an error in its `cause` chain) broke, or
 * undefined for any other error. SQLite says "UNIQUE constraint failed: users.user_name"
 * (SQLITE_CONSTRAINT_UNIQUE); PostgreSQL answers SQLSTATE 23505 with the table and, in its detail,
 * the key's columns.
 */
export function uniqueViolation(err: unknown): string | undefined {
  for (
    let e = err as
      { code?: unknown; message?: unknown; cause?: unknown; table?: unknown; detail?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (typeof e !== "object") return undefined;
    if (e.code === "SQLITE_CONSTRAINT_UNIQUE" && typeof e.message === "string")
      return /UNIQUE constraint failed: ([\w.]+)/.exec(e.message)?.[1];
    if (e.code === "23505" && typeof e.table === "string" && typeof e.detail === "string")
      return `${e.table}.${/Key \(([^)]+)\)/.exec(e.detail)?.[1] ?? ""}`;
  }
  return undefined;
}

/** Path of the SQLite database inside a data directory. */
export function databasePath(dataDir: string): string {
  return join(dataDir, "postern.db");
}

/** How many migrations this release has for the database behind `db` (server/drizzle or server/drizzle-pg). */
export function migrationCount(db?: Db): number {
  if (db && postgresOf(db)) return postgresMigrationCount();
  return readMigrationFiles({ migrationsFolder }).length;
}

/**
 * Applies every pending migration in order (server/drizzle on SQLite, server/drizzle-pg on PostgreSQL,
 * there under an advisory lock so that replicas starting at once do not race); returns how many were
 * applied.
 */
export async function migrateDatabase(db: Db): Promise<number> {
  const pg = postgresOf(db);
  if (pg) return await migratePostgres(pg);
  const { sqlite } = internalsOf(db);
  const before = await pendingMigrations(db);
  migrate(drizzleSync(sqlite), { migrationsFolder });
  return before;
}

/** Counts the committed migrations not yet applied to this database. */
export async function pendingMigrations(db: Db): Promise<number> {
  const pg = postgresOf(db);
  if (pg) return await pendingPostgresMigrations(pg);
  const { sqlite } = internalsOf(db);
  const all = readMigrationFiles({ migrationsFolder });
  let applied: number;
  try {
    applied =
      (await drizzleSync(sqlite).get<{ n: number } | undefined>(sql`SELECT count(*) AS n FROM __drizzle_migrations`))
        ?.n ?? 0;
  } catch {
    applied = 0;
  }
  return Math.max(0, all.length - applied);
}

export { schema };

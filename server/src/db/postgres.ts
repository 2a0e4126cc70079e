/**
 * PostgreSQL as the database (issue #12; docs/decisions.md "PostgreSQL schema", "Transactions on
 * PostgreSQL"): opens a node-postgres pool behind drizzle's node-postgres driver with the pg-core schema
 * (schema-pg.ts), and applies the migrations of server/drizzle-pg. The server reaches it through
 * db/index.ts (`POSTERN_DATABASE_URL`); `postern db copy` writes to it directly.
 *
 * Transactions: `db.transaction` runs SERIALIZABLE (the guarantees the repositories were written under
 * on SQLite, where transactions run one at a time) and runs its callback again, up to
 * TRANSACTION_ATTEMPTS times with a growing random pause, when PostgreSQL reports a serialisation failure or a deadlock. A
 * statement issued on the root handle inside a transaction's callback runs on the transaction's
 * connection (an AsyncLocalStorage context), and a transaction opened inside one becomes a savepoint of
 * it, as on SQLite. Statements issued at once on that connection (a Promise.all, work not awaited) run
 * one after the other, in the order issued (`serialiseStatements`), as node-postgres 9 no longer queues
 * them itself (docs/decisions.md "One data layer, two databases").
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { fileURLToPath } from "node:url";
import * as schemaPg from "./schema-pg.ts";
import type { Queryable } from "./index.ts";
import { rememberRoot } from "./roots.ts";

/** The typed, asynchronous PostgreSQL handle (its pool is `$client`). */
export type PgDb = NodePgDatabase<typeof schemaPg> & { $client: pg.Pool };

// Every int8 Postern stores is an epoch-millisecond time, an id or a count, all below 2^53: read them as
// numbers (node-postgres returns strings by default), so that aggregates and raw reads type alike on
// both databases. Process-wide, as node-postgres keeps its parsers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/**
 * How many times a transaction runs before a serialisation failure or deadlock is given up on. Under
 * SERIALIZABLE, PostgreSQL's predicate locks cover whole relations while tables are small (sequential
 * scans), so concurrent grants conflict often at first: the retries back off exponentially with jitter
 * (up to RETRY_MAX_DELAY_MS) and are many.
 */
export const TRANSACTION_ATTEMPTS = 30;
/** The longest pause before a retry, in milliseconds. */
const RETRY_MAX_DELAY_MS = 200;

/** The open transaction of the running callback: its handle and connection. */
interface OpenTransaction {
  readonly tx: unknown;
  readonly client: pg.PoolClient;
  /** Set once the callback returned: later statements of its context go to the pool again. */
  ended: boolean;
}
const openTransaction = new AsyncLocalStorage<OpenTransaction>();

/** Runs `fn` as code outside any PostgreSQL transaction (see db/index.ts `outsideTransaction`). */
export function outsidePostgresTransaction<T>(fn: () => T): T {
  return openTransaction.exit(fn);
}

/** The open transaction of the caller's context, if any. */
function currentTransaction(): OpenTransaction | undefined {
  const store = openTransaction.getStore();
  return store && !store.ended ? store : undefined;
}

/** A pool whose `query` runs on the open transaction's connection when called inside one. */
class TransactionAwarePool extends pg.Pool {
  override query(...args: unknown[]): never {
    const open = currentTransaction();
    const target = open ? open.client : undefined;
    if (target) return (target.query as (...a: unknown[]) => never)(...args);
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

/** Where a pooled connection reports a statement's serialisation failure or deadlock (see `watchConflicts`). */
const onConflict = Symbol("postern.onConflict");
type WatchedClient = pg.PoolClient & { [onConflict]?: (() => void) | undefined; [watched]?: true };
const watched = Symbol("postern.watched");

/** True for the forms of `query` node-postgres answers without a promise: a callback, or a cursor/stream. */
function unpromised(args: readonly unknown[]): boolean {
  const first = args[0] as { submit?: unknown } | null | undefined;
  return typeof args.at(-1) === "function" || typeof first?.submit === "function";
}

/**
 * Wraps a pooled connection's `query` (once per connection; it stays with the connection in the pool):
 * - serialises statements: one issued while an earlier one has not finished waits for it, in the order
 *   issued, so that code issuing several at once on a transaction's connection (a Promise.all over rows,
 *   a notice sent without awaiting it) gets what node-postgres 8 did by queueing them itself, which it
 *   deprecates ("Calling client.query() when the client is already executing a query") and 9 removes. A
 *   failed statement does not stop the ones after it: each gets its own answer (in a transaction, the
 *   database's "transaction is aborted"). Callback and cursor forms are passed through (Postern uses none).
 * - calls the connection's `onConflict` callback (when one is set) whenever a statement fails with a
 *   serialisation failure or deadlock, even if the caller swallows that error and the transaction then
 *   fails with "transaction is aborted".
 */
function watchConflicts(client: pg.PoolClient): WatchedClient {
  const c = client as WatchedClient;
  if (c[watched]) return c;
  const query = (c.query as (...a: unknown[]) => unknown).bind(c);
  /** Settles when the last statement issued has finished. */
  let last: Promise<unknown> = Promise.resolve();
  c.query = ((...args: unknown[]) => {
    if (unpromised(args)) return query(...args);
    const result = last.then(() => query(...args) as Promise<unknown>);
    last = result.then(
      () => undefined,
      (err: unknown) => {
        if (retryableTransactionError(err)) c[onConflict]?.();
      },
    );
    return result;
  }) as typeof c.query;
  c[watched] = true;
  return c;
}

/** True when `err` (or an error in its `cause` chain) is SQLSTATE 40001 or 40P01: run the transaction again. */
export function retryableTransactionError(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; cause?: unknown } | undefined;
    e && typeof e === "object";
    e = e.cause as typeof e
  )
    if (e.code === "40001" || e.code === "40P01") return true;
  return false;
}

/** Raw statements with named parameters (`@name`) as PostgreSQL's positional ones (`$1`), with the order. */
export function positionalParameters(text: string): { text: string; names: string[] } {
  const names: string[] = [];
  const out = text.replace(/@(\w+)/g, (_, name: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text: out, names };
}

/**
 * Runs `text` (named parameters `@name`) on `db`'s pool, or on the caller's open transaction; rows as
 * arrays of columns.
 */
export async function rawPostgresRows(db: PgDb, text: string, params?: Record<string, unknown>): Promise<unknown[][]> {
  const { text: positional, names } = positionalParameters(text);
  const values = names.map((n) => params?.[n]);
  const result = await db.$client.query({ text: positional, values, rowMode: "array" });
  return result.rows as unknown[][];
}

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
 * @param opts.applicationName what PostgreSQL shows for its connections (`pg_stat_activity`).
 */
export function openPostgres(url: string, opts: { max?: number; applicationName?: string } = {}): OpenPostgres {
  const pool = new TransactionAwarePool({
    connectionString: url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? "postern",
  });
  // An idle connection's error (the server restarted) must not crash the process; the pool drops it.
  pool.on("error", () => undefined);
  const db = drizzle({ client: pool, schema: schemaPg });
  const root = db as unknown as Queryable;
  rememberRoot(db, root);
  const transaction = db.transaction.bind(db);
  db.transaction = (async (body, config) => {
    const outer = currentTransaction();
    if (outer)
      return (outer.tx as Parameters<typeof body>[0]).transaction(async (savepoint) => {
        rememberRoot(savepoint, root);
        return body(savepoint);
      });
    for (let attempt = 1; ; attempt++) {
      // Set when any statement of this attempt failed with a serialisation failure or deadlock: the
      // error the callback throws may be a later statement's "transaction is aborted" (25P02).
      let conflicted = false;
      try {
        return await transaction(
          async (tx) => {
            const client = watchConflicts((tx as unknown as { session: { client: pg.PoolClient } }).session.client);
            client[onConflict] = () => {
              conflicted = true;
            };
            rememberRoot(tx, root);
            const open: OpenTransaction = { tx, client, ended: false };
            try {
              return await openTransaction.run(open, () => body(tx));
            } finally {
              open.ended = true;
              client[onConflict] = undefined;
            }
          },
          { isolationLevel: "serializable", ...config },
        );
      } catch (err) {
        if (attempt >= TRANSACTION_ATTEMPTS || !(conflicted || retryableTransactionError(err))) throw err;
        await sleep(Math.random() * Math.min(RETRY_MAX_DELAY_MS, 2 ** attempt));
      }
    }
  }) as PgDb["transaction"];
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

/**
 * `postern db copy`: copies a SQLite database into an empty PostgreSQL database (issue #12 item 5;
 * docs/operations.md "Moving to PostgreSQL", docs/decisions.md "PostgreSQL schema").
 *
 * The target is checked first: a target where any Postern table (other than those the migrations seed) holds
 * a row is refused with nothing changed. Then the target is migrated (server/drizzle-pg) and every
 * table is copied, parents before children (foreign-key order), in batches read from one SQLite read
 * transaction (a consistent snapshot; a running server can keep writing) and written in one
 * PostgreSQL transaction (all or nothing). Rows pass through drizzle on both sides with the same JS
 * keys, so booleans, epoch-ms numbers and JSON values keep their JS values. The identity sequences
 * (`audit_log.id`, `grant_status_history.id`) are set past the copied ids, and the tables the migrations seed
 * (the change counters, the audit log's followers) are copied last, taking the SQLite values: while the other
 * tables are copied the followers are the migration's (none active), so the audit log's trigger queues nothing
 * and the audit outbox is copied as it is.
 */
import { getTableColumns, getTableName, is, sql } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import type { PgColumn } from "drizzle-orm/pg-core";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { pendingMigrations, schema } from "./index.ts";
import type { Db } from "./index.ts";
import { migratePostgres, schemaPg } from "./postgres.ts";
import type { PgDb } from "./postgres.ts";

/** Rows copied into one table. */
export interface CopiedTable {
  /** The SQL table name. */
  readonly table: string;
  /** How many rows it now holds from the source. */
  readonly rows: number;
}

/** The copy refused because the target already holds data (nothing was changed). */
export class TargetNotEmptyError extends Error {
  /** The tables that hold rows. */
  readonly tables: readonly string[];
  constructor(tables: readonly string[]) {
    super(
      `the PostgreSQL database is not empty (rows in ${tables.join(", ")}): ` +
        "copy into a new, empty database; nothing was changed",
    );
    this.name = "TargetNotEmptyError";
    this.tables = tables;
  }
}

/** Rows per INSERT by default. */
export const DEFAULT_COPY_BATCH = 500;
/** PostgreSQL's limit of bind parameters in one statement. */
const MAX_PARAMETERS = 65_535;
/**
 * Tables the migrations seed, by name, with their key column: not counted as data, copied last, each row
 * overwriting the seeded one (the counters the triggers raise while the rest is copied; the followers, so the
 * audit log's trigger queues nothing during the copy).
 */
const SEEDED = new Map<string, PgColumn>([
  [getTableName(schemaPg.changeCounters), schemaPg.changeCounters.name],
  [getTableName(schemaPg.auditFollowers), schemaPg.auditFollowers.name],
]);

const pgTables = Object.values(schemaPg as Record<string, unknown>).filter((t): t is PgTable => is(t, PgTable));
const sqliteTables = new Map(
  Object.values(schema as Record<string, unknown>)
    .filter((t): t is SQLiteTable => is(t, SQLiteTable))
    .map((t) => [getTableName(t), t]),
);

/**
 * The PostgreSQL tables, every table after those its foreign keys point to.
 * @throws Error on a cycle of foreign keys (none in this schema).
 */
export function tablesInForeignKeyOrder(): PgTable[] {
  const byName = new Map(pgTables.map((t) => [getTableName(t), t]));
  const ordered: PgTable[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (name: string) => {
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") throw new Error(`foreign keys form a cycle through ${name}`);
    state.set(name, "visiting");
    const table = byName.get(name)!;
    for (const fk of getTableConfig(table).foreignKeys) {
      const parent = getTableName(fk.reference().foreignTable);
      if (parent !== name) visit(parent);
    }
    state.set(name, "done");
    ordered.push(table);
  };
  for (const name of [...byName.keys()].sort()) visit(name);
  return ordered;
}

/** The Postern tables of the target that exist and hold a row (the SEEDED ones aside). */
async function tablesWithRows(target: PgDb): Promise<string[]> {
  const found: string[] = [];
  for (const table of pgTables) {
    const name = getTableName(table);
    if (SEEDED.has(name)) continue;
    const exists = await target.execute<{ t: string | null }>(sql`SELECT to_regclass(${`public.${name}`})::text AS t`);
    if (!exists.rows[0]?.t) continue;
    const rows = await target.execute(sql`SELECT 1 FROM ${table} LIMIT 1`);
    if (rows.rows.length > 0) found.push(name);
  }
  return found;
}

/**
 * Copies the migrated SQLite database `source` into the PostgreSQL database `target` (see the file
 * comment); returns the rows copied per table, in the order copied.
 * @param opts.batchSize rows per INSERT (default 500; lowered for wide tables to stay under
 *   PostgreSQL's 65,535 parameters).
 * @throws TargetNotEmptyError when the target holds data (nothing changed); Error when the source has
 *   pending migrations (nothing changed); the database's error when a row does not fit (the
 *   PostgreSQL transaction is rolled back, the target keeps only its migrated, empty tables).
 */
export async function copySqliteToPostgres(
  source: Db,
  target: PgDb,
  opts: { batchSize?: number } = {},
): Promise<CopiedTable[]> {
  const batchSize = opts.batchSize ?? DEFAULT_COPY_BATCH;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`bad batch size ${batchSize}`);
  if ((await pendingMigrations(source)) > 0)
    throw new Error("the SQLite database has pending migrations: run `postern db migrate` on it first");
  const before = await tablesWithRows(target);
  if (before.length > 0) throw new TargetNotEmptyError(before);
  await migratePostgres(target);

  return await source.transaction(
    async (stx) =>
      await target.transaction(async (ptx) => {
        // Checked again inside: another writer may have started since.
        const now = await tablesWithRows(ptx as unknown as PgDb);
        if (now.length > 0) throw new TargetNotEmptyError(now);
        const copied: CopiedTable[] = [];
        // The seeded tables last (see SEEDED).
        const seeded = (t: PgTable) => SEEDED.has(getTableName(t));
        const all = tablesInForeignKeyOrder();
        const order = [...all.filter((t) => !seeded(t)), ...all.filter(seeded)];
        for (const pgTable of order) {
          const name = getTableName(pgTable);
          const sqliteTable = sqliteTables.get(name);
          if (!sqliteTable) throw new Error(`table ${name} is in schema-pg.ts but not in schema.ts`);
          const columns = getTableColumns(sqliteTable);
          const batch = Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMETERS / Object.keys(columns).length)));
          let rows = 0;
          // Keyset pagination on SQLite's rowid: every Postern table has one.
          for (let after = -Infinity; ;) {
            const page = await stx
              .select({ ...columns, _rowid: sql<number>`rowid` })
              .from(sqliteTable)
              .where(after === -Infinity ? undefined : sql`rowid > ${after}`)
              .orderBy(sql`rowid`)
              .limit(batch);
            if (page.length === 0) break;
            after = page[page.length - 1]!._rowid;
            const values = page.map(({ _rowid, ...row }) => row);
            try {
              const key = SEEDED.get(name);
              if (key) {
                const set = Object.fromEntries(
                  Object.entries(getTableColumns(pgTable))
                    .filter(([, column]) => column !== key)
                    .map(([field, column]) => [field, sql.raw(`excluded."${column.name}"`)]),
                );
                await ptx.insert(pgTable).values(values).onConflictDoUpdate({ target: key, set });
              } else {
                await ptx.insert(pgTable).values(values);
              }
            } catch (err) {
              // The database's reason, not drizzle's "Failed query" with every value (secrets among them).
              throw new Error(`copying ${name} (rows ${rows + 1}-${rows + page.length}) failed: ${rootCause(err)}`, {
                cause: err,
              });
            }
            rows += page.length;
          }
          for (const column of Object.values(getTableColumns(pgTable)) as PgColumn[]) {
            if (!column.generatedIdentity) continue;
            await ptx.execute(
              sql`SELECT setval(pg_get_serial_sequence(${name}, ${column.name}),
                                (SELECT coalesce(max(${column}), 0) + 1 FROM ${pgTable}), false)`,
            );
          }
          copied.push({ table: name, rows });
        }
        return copied;
      }),
    { behavior: "deferred" },
  );
}

/** The message of the innermost cause of `err` (PostgreSQL's own error under drizzle's wrapper). */
function rootCause(err: unknown): string {
  let e = err as { message?: string; cause?: unknown };
  while (e.cause && typeof e.cause === "object") e = e.cause as typeof e;
  return e.message ?? String(err);
}

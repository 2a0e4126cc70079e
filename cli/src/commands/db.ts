/**
 * `postern db migrate`: creates the data directory and applies pending migrations (the explicit
 * step before the server starts). `postern db backup FILE`: a consistent copy of the database and
 * the data directory's keys while the server runs. `postern db restore FILE`: puts one back with
 * the server stopped (server/src/db/backup.ts; docs/operations.md "Backup and restore").
 * `postern db copy --from sqlite:PATH --to postgres://...`: copies the SQLite database into an empty
 * PostgreSQL database (server/src/db/copy.ts; docs/operations.md "Moving to PostgreSQL").
 */
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import {
  backupDataDir,
  copySqliteToPostgres,
  databasePath,
  DEFAULT_COPY_BATCH,
  migrateDatabase,
  openDatabase,
  openPostgres,
  restoreDataDir,
} from "@postern/server";
import { dataDirOf, databaseLabelOf, openConfigured, output, say } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** Registers the `db` command group. */
export function registerDb(program: Command): void {
  const db = program.command("db").description("database maintenance");
  db.command("migrate")
    .description("create the database if needed and apply pending migrations")
    .action(async (_opts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      mkdirSync(dataDirOf(g), { recursive: true, mode: 0o700 });
      const where = databaseLabelOf(g);
      const database = openConfigured(g);
      try {
        const applied = await migrateDatabase(database.db);
        say(applied > 0 ? `applied ${applied} migration(s) to ${where}` : `database ${where} is up to date`);
        output(g, { Applied: applied, Database: where }, String(applied));
      } finally {
        await database.close();
      }
    });
  db.command("backup")
    .description("write a consistent backup of the database and keys to FILE (gzip tar, mode 0600); the server may run")
    .argument("<file>", "the backup file to create (must not exist)")
    .action(async (file: string, _opts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const manifest = await backupDataDir(dataDirOf(g), file);
      say(`backup of ${dataDirOf(g)} written to ${file} (${Object.keys(manifest.files).join(", ")})`);
      output(g, { File: file, Files: Object.keys(manifest.files), Migrations: manifest.migrations }, file);
    });
  db.command("restore")
    .description("restore a backup into the data directory; stop the server first (the files replaced are kept aside)")
    .argument("<file>", "a file written by `postern db backup`")
    .action(async (file: string, _opts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const r = await restoreDataDir(dataDirOf(g), file);
      say(
        `restored ${file} into ${dataDirOf(g)}` +
          (r.previous ? `; the files it replaced are in ${r.previous}` : "") +
          (r.pendingMigrations > 0 ? `; run \`postern db migrate\` (${r.pendingMigrations} pending)` : ""),
      );
      output(g, { Previous: r.previous ?? null, PendingMigrations: r.pendingMigrations }, r.previous ?? "");
    });
  db.command("copy")
    .description("copy the SQLite database into an empty PostgreSQL database (migrates it first)")
    .option("--from <source>", "sqlite:PATH of the database to copy (default: the data directory's)")
    .requiredOption("--to <url>", "postgres://user:password@host:port/database, an empty database")
    .option("--batch-size <rows>", "rows per INSERT", String(DEFAULT_COPY_BATCH))
    .action(async (opts: { from?: string; to: string; batchSize: string }, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const file = sqlitePathOf(opts.from ?? `sqlite:${databasePath(dataDirOf(g))}`);
      const shown = redacted(opts.to);
      const batchSize = Number(opts.batchSize);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`--batch-size must be a positive integer`);
      const source = openDatabase(file);
      const target = openPostgres(opts.to, { max: 2 });
      try {
        try {
          await target.db.$client.query("SELECT 1");
        } catch (err) {
          throw new Error(`cannot connect to ${shown}: ${reason(err)}`, { cause: err });
        }
        const copied = await copySqliteToPostgres(source.db, target.db, { batchSize });
        for (const t of copied) say(`  ${t.table}: ${t.rows}`);
        const total = copied.reduce((n, t) => n + t.rows, 0);
        say(`copied ${total} row(s) in ${copied.length} tables from ${file} to ${shown}`);
        output(
          g,
          { From: file, To: shown, Rows: total, Tables: Object.fromEntries(copied.map((t) => [t.table, t.rows])) },
          String(total),
        );
      } finally {
        await source.close();
        await target.close();
      }
    });
}

/**
 * The file of a `sqlite:PATH` source.
 * @throws Error for another scheme or a file that does not exist (opening would create it).
 */
function sqlitePathOf(source: string): string {
  const m = /^sqlite:(.+)$/.exec(source);
  if (!m) throw new Error(`--from must be sqlite:PATH, not ${JSON.stringify(source)}`);
  const file = resolve(m[1]!);
  if (!existsSync(file)) throw new Error(`no SQLite database at ${file}`);
  return file;
}

/**
 * The target URL with its password hidden, for messages.
 * @throws Error when `url` is not a postgres:// or postgresql:// URL.
 */
function redacted(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error("--to must be a postgres:// URL");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new Error("--to must be a postgres:// URL");
  if (u.password) u.password = "***";
  return u.toString();
}

/** A readable reason of a connection error (node's AggregateError of several addresses has no message). */
function reason(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: unknown[] };
  if (e.message) return e.message;
  if (e.errors?.length) return e.errors.map(reason).join("; ");
  return e.code ?? String(err);
}

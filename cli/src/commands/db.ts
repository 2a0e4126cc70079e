/**
 * `postern db migrate`: creates the data directory and applies pending migrations (the explicit
 * step before the server starts). `postern db backup FILE`: a consistent copy of the database and
 * the data directory's keys while the server runs. `postern db restore FILE`: puts one back with
 * the server stopped (server/src/db/backup.ts; docs/operations.md "Backup and restore").
 */
import { mkdirSync } from "node:fs";
import type { Command } from "commander";
import { backupDataDir, databasePath, migrateDatabase, openDatabase, restoreDataDir } from "@postern/server";
import { dataDirOf, output, say } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** Registers the `db` command group. */
export function registerDb(program: Command): void {
  const db = program.command("db").description("database maintenance");
  db.command("migrate")
    .description("create the database if needed and apply pending migrations")
    .action(async (_opts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const dir = dataDirOf(g);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const database = openDatabase(databasePath(dir));
      try {
        const applied = await migrateDatabase(database.db);
        say(
          applied > 0
            ? `applied ${applied} migration(s) to ${databasePath(dir)}`
            : `database ${databasePath(dir)} is up to date`,
        );
        output(g, { Applied: applied, Database: databasePath(dir) }, String(applied));
      } finally {
        database.close();
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
}

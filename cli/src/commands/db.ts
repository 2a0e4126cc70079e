/**
 * `postern db migrate`: creates the data directory and applies pending migrations (the explicit
 * step before the server starts).
 */
import { mkdirSync } from "node:fs";
import type { Command } from "commander";
import { databasePath, migrateDatabase, openDatabase } from "@postern/server";
import { dataDirOf, output, say } from "../context.ts";
import type { GlobalOptions } from "../context.ts";

/** Registers the `db` command group. */
export function registerDb(program: Command): void {
  const db = program.command("db").description("database maintenance");
  db.command("migrate")
    .description("create the database if needed and apply pending migrations")
    .action((_opts, cmd: Command) => {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const dir = dataDirOf(g);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const database = openDatabase(databasePath(dir));
      try {
        const applied = migrateDatabase(database.db);
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
}

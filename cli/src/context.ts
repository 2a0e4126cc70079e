/**
 * What every CLI command shares: the data directory (--data-dir, else POSTERN_DATA_DIR, else the
 * `data_dir` of the configuration file POSTERN_CONFIG names, else ./data), the server configuration,
 * opening its database (PostgreSQL when POSTERN_DATABASE_URL, or the file's `database_url`, names one;
 * else the SQLite file of the data directory), and output helpers (data on stdout, messages on stderr).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { databasePath, openConfiguredDatabase, pendingMigrations, readServerConfig } from "@postern/server";
import type { OpenDatabase } from "@postern/server";
import type { ServerConfig } from "@postern/server";

/** Global options every command accepts. */
export interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
}

/**
 * The server configuration of POSTERN_CONFIG (with the environment over it), or undefined when no
 * file is named (the packages' `postern` names /etc/postern/server.toml).
 * @throws Error listing the problems of a bad configuration.
 */
export function serverConfigOf(): ServerConfig | undefined {
  if (!process.env["POSTERN_CONFIG"]) return undefined;
  const r = readServerConfig(process.env);
  if (!r.ok) throw new Error(`bad configuration:\n${r.problems.map((p) => `  - ${p}`).join("\n")}`);
  return r.value;
}

/** The data directory in effect. */
export function dataDirOf(opts: GlobalOptions): string {
  return resolve(opts.dataDir ?? process.env["POSTERN_DATA_DIR"] ?? serverConfigOf()?.dataDir ?? "./data");
}

/** The PostgreSQL URL in effect (POSTERN_DATABASE_URL, else the configuration file's), or undefined for SQLite. */
export function databaseUrlOf(): string | undefined {
  return process.env["POSTERN_DATABASE_URL"] || serverConfigOf()?.databaseUrl || undefined;
}

/** Where the database is, for messages: the PostgreSQL URL without its password, or the SQLite file. */
export function databaseLabelOf(opts: GlobalOptions): string {
  const url = databaseUrlOf();
  if (!url) return databasePath(dataDirOf(opts));
  const u = new URL(url);
  if (u.password) u.password = "****";
  return u.toString();
}

/** Opens the configured database (PostgreSQL or the data directory's SQLite file), not migrating it. */
export function openConfigured(opts: GlobalOptions): OpenDatabase {
  return openConfiguredDatabase(
    { url: databaseUrlOf(), file: databasePath(dataDirOf(opts)) },
    { applicationName: "postern-cli" },
  );
}

/** Opens the migrated database (see `openConfigured`); throws a readable error otherwise. */
export async function openMigrated(opts: GlobalOptions): Promise<OpenDatabase> {
  const file = databasePath(dataDirOf(opts));
  if (!databaseUrlOf() && !existsSync(file))
    throw new Error(`no database at ${file}: run \`postern db migrate\` first`);
  const database = openConfigured(opts);
  if ((await pendingMigrations(database.db)) > 0) {
    await database.close();
    throw new Error("the database has pending migrations: run `postern db migrate` first");
  }
  return database;
}

/** Writes a message line to stderr. */
export function say(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** Writes data to stdout: JSON when --json, else the text. */
export function output(opts: GlobalOptions, data: unknown, text: string): void {
  process.stdout.write(opts.json ? `${JSON.stringify(data, null, 2)}\n` : `${text}\n`);
}

/** Reads all of stdin as text (for --password-stdin), without the trailing newline. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

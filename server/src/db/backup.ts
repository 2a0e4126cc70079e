/**
 * Backups of a data directory (docs/operations.md "Backup and restore"): `postern db backup FILE`
 * and `postern db restore FILE`.
 *
 * A backup is a tar archive (gzip) holding a consistent copy of the SQLite database made with
 * SQLite's online backup while the server runs, the keys without which the database is of little
 * use — `secret.key` (secrets at rest: TOTP, SAML keys, backend credentials), `agent-signing.key`
 * (agents pinned it at enrolment), the self-signed TLS certificate and key (agents pinned its
 * fingerprint) — and `backup.json`: format, time, the migrations it holds, and each file's SHA-256.
 * The archive is written with mode 0600: it holds every secret of the installation.
 *
 * Restore needs the server stopped (its `server.pid` names a live process otherwise); it checks the
 * archive (manifest, checksums, SQLite integrity, not newer than this release's migrations), moves the
 * files it replaces into `before-restore-<time>/` inside the data directory, and puts the backup's in
 * place. Run `postern db migrate` afterwards when the backup is older than the release.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { create as createTar, extract as extractTar, list as listTar } from "tar";
import { databasePath, migrationCount } from "./index.ts";
import { runningServerPid } from "./server-pid.ts";

/** The archive format this release writes and reads. */
export const BACKUP_FORMAT = 1;
export { SERVER_PID_FILE, runningServerPid, writeServerPid } from "./server-pid.ts";

/** Files of a data directory a backup holds besides the database (those that exist). */
const KEY_FILES = ["secret.key", "agent-signing.key", "tls/cert.pem", "tls/key.pem"] as const;
const DB_NAME = "postern.db";
const MANIFEST = "backup.json";

/** The manifest inside an archive. */
export interface BackupManifest {
  format: number;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Migrations applied to the database copy. */
  migrations: number;
  /** Archive path → SHA-256 (hex) of each file. */
  files: Record<string, string>;
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/**
 * Writes a backup of `dataDir` to `file` (gzip tar, mode 0600) while the server may run. Refuses to
 * overwrite an existing file. Returns the manifest.
 * @throws Error when there is no database, the target exists, or a file cannot be read or written.
 */
export async function backupDataDir(dataDir: string, file: string, now = Date.now()): Promise<BackupManifest> {
  const source = databasePath(dataDir);
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`${target} exists; choose a new file name`);
  const staging = mkdtempSync(join(dirname(target), ".postern-backup-"));
  try {
    const db = new Database(source, { readonly: true, fileMustExist: true });
    try {
      await db.backup(join(staging, DB_NAME));
    } finally {
      db.close();
    }
    const copy = new Database(join(staging, DB_NAME));
    const migrations = appliedMigrations(copy);
    copy.close();
    const entries: string[] = [DB_NAME];
    for (const name of KEY_FILES) {
      const from = join(dataDir, name);
      if (!existsSync(from)) continue;
      mkdirSync(dirname(join(staging, name)), { recursive: true, mode: 0o700 });
      writeFileSync(join(staging, name), readFileSync(from), { mode: 0o600 });
      entries.push(name);
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      createdAt: now,
      migrations,
      files: Object.fromEntries(entries.map((e) => [e, sha256(join(staging, e))])),
    };
    writeFileSync(join(staging, MANIFEST), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 });
    const partial = `${target}.partial-${randomBytes(4).toString("hex")}`;
    writeFileSync(partial, "", { mode: 0o600 });
    await createTar({ gzip: true, file: partial, cwd: staging, portable: true }, [MANIFEST, ...entries]);
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** What a restore did. */
export interface RestoreResult {
  manifest: BackupManifest;
  /** Where the replaced files were moved (undefined when the data directory held none). */
  previous?: string;
  /** Migrations this release has beyond the backup's (run `postern db migrate`). */
  pendingMigrations: number;
}

/**
 * Restores `file` into `dataDir` (created if needed) with the server stopped.
 * @throws Error (nothing changed) when a server runs on the directory, the archive is not a Postern
 *   backup of this format, a checksum or the SQLite integrity check fails, or the backup is newer
 *   than this release.
 */
export async function restoreDataDir(dataDir: string, file: string, now = Date.now()): Promise<RestoreResult> {
  const running = runningServerPid(dataDir);
  if (running !== undefined) throw new Error(`a server (pid ${running}) runs on ${dataDir}: stop it first`);
  const archive = resolve(file);
  if (!existsSync(archive)) throw new Error(`${archive} does not exist`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const staging = mkdtempSync(join(dataDir, ".restore-"));
  try {
    const names: string[] = [];
    await listTar({
      file: archive,
      onReadEntry: (e) =>
        void names.push(e.type === "File" || e.type === "Directory" ? e.path : `${e.path} (${e.type})`),
    }).catch((err: unknown) => {
      throw new Error(`${archive} is not a Postern backup (${(err as Error).message})`, { cause: err });
    });
    const allowed = new Set<string>([MANIFEST, DB_NAME, ...KEY_FILES, "tls", "tls/"]);
    const stray = names.filter((n) => !allowed.has(n));
    if (!names.includes(MANIFEST) || stray.length > 0)
      throw new Error(`${archive} is not a Postern backup${stray.length ? ` (unexpected ${stray.join(", ")})` : ""}`);
    await extractTar({ file: archive, cwd: staging, strict: true, preservePaths: false });
    const manifest = readManifest(join(staging, MANIFEST));
    for (const [name, digest] of Object.entries(manifest.files)) {
      const path = join(staging, name);
      if (!existsSync(path) || sha256(path) !== digest)
        throw new Error(`${archive}: ${name} does not match its checksum`);
    }
    if (!manifest.files[DB_NAME]) throw new Error(`${archive} holds no database`);
    const db = new Database(join(staging, DB_NAME));
    try {
      const check = db.pragma("integrity_check", { simple: true });
      if (check !== "ok") throw new Error(`${archive}: the database fails SQLite's integrity check (${String(check)})`);
    } finally {
      db.close();
    }
    const known = migrationCount();
    if (manifest.migrations > known)
      throw new Error(
        `${archive} comes from a newer release (${manifest.migrations} migrations, this one knows ${known})`,
      );

    const previous = join(dataDir, `before-restore-${new Date(now).toISOString().replace(/[:.]/g, "-")}`);
    let moved = false;
    for (const name of [DB_NAME, `${DB_NAME}-wal`, `${DB_NAME}-shm`, ...KEY_FILES]) {
      const from = join(dataDir, name);
      if (!existsSync(from)) continue;
      mkdirSync(dirname(join(previous, name)), { recursive: true, mode: 0o700 });
      renameSync(from, join(previous, name));
      moved = true;
    }
    for (const name of Object.keys(manifest.files)) {
      mkdirSync(dirname(join(dataDir, name)), { recursive: true, mode: 0o700 });
      renameSync(join(staging, name), join(dataDir, name));
      chmodSync(join(dataDir, name), name === "tls/cert.pem" ? 0o644 : 0o600);
    }
    return {
      manifest,
      ...(moved ? { previous } : {}),
      pendingMigrations: known - manifest.migrations,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function readManifest(path: string): BackupManifest {
  let m: Partial<BackupManifest>;
  try {
    m = JSON.parse(readFileSync(path, "utf8")) as Partial<BackupManifest>;
  } catch (err) {
    throw new Error(`backup.json is not valid JSON`, { cause: err });
  }
  if (m.format !== BACKUP_FORMAT || typeof m.migrations !== "number" || typeof m.files !== "object" || m.files === null)
    throw new Error(`backup.json is not of format ${BACKUP_FORMAT}`);
  return m as BackupManifest;
}

function appliedMigrations(db: Database.Database): number {
  try {
    return (db.prepare("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  } catch {
    return 0;
  }
}

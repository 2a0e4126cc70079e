/**
 * A throw-away PostgreSQL for tests (issue #12; docs/decisions.md "PostgreSQL schema").
 *
 * `startPostgres()` creates a cluster with `initdb` (trust authentication, user `postgres`, C locale,
 * UTF8) in a fresh temp dir, starts `postgres` on a free loopback port with its unix socket in that
 * dir, waits (at most 30 s) until it accepts connections, and returns its URL. PostgreSQL refuses to
 * run as root: when the tests run as root, the temp dir is given to the `nobody` user and initdb and
 * postgres run as it. `stop()` ends postgres by PID (SIGINT, PostgreSQL's fast shutdown; SIGKILL
 * after 5 s) and removes the dir. The binaries are found by `pg_config --bindir`, else the newest
 * /usr/lib/postgresql/<version>/bin (Debian's `postgresql` package, installed by
 * `scripts/setup.sh --test`).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import pg from "pg";
import { freePort } from "./haproxy.ts";
import { startProcess } from "./process.ts";
import { migratePostgres, openPostgres } from "../../server/src/db/postgres.ts";
import { createTestPostgresDatabase, testPostgresUrl } from "../../server/src/testing/database.ts";

/** A running throw-away PostgreSQL. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication, no password). */
  readonly url: string;
  /** The postgres (postmaster) PID. */
  readonly pid: number;
  /** Creates the database `name` (lower-case letters, digits, `_`) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops postgres by PID and removes its temp dir. Idempotent. */
  stop(): Promise<void>;
}

function hasServer(dir: string): boolean {
  return existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"));
}

/**
 * The directory holding `initdb` and `postgres`, or undefined when PostgreSQL is not installed:
 * `pg_config --bindir` when it has them, else the highest-numbered /usr/lib/postgresql/<version>/bin.
 */
export function postgresBinDir(): string | undefined {
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    if (hasServer(dir.trim())) return dir.trim();
  } catch {
    // no pg_config: look in Debian's place
  }
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  return readdirSync(root)
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(root, v, "bin"))
    .find(hasServer);
}

/** The uid and gid to run PostgreSQL as: nobody's when we are root, else undefined (ourselves). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim());
  return { uid: id("-u"), gid: id("-g") };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts a throw-away PostgreSQL (see the file comment).
 * @param opts.maxConnections PostgreSQL's max_connections (default 40).
 * @throws Error when PostgreSQL is not installed, initdb fails, or the server does not accept
 *   connections within 30 s (the message carries its log); the temp dir is removed then.
 */
export async function startPostgres(opts: { maxConnections?: number } = {}): Promise<TestPostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (Debian: apt-get install postgresql)");
  const user = runAs();
  const dir = await mkdtemp(join(tmpdir(), "postern-pg-"));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  try {
    if (user) await chown(dir, user.uid, user.gid);
    const data = join(dir, "data");
    await execa(
      join(bin, "initdb"),
      ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions"],
      { cwd: dir, timeout: 60_000, env: { LC_ALL: "C" }, ...(user ?? {}) },
    );
    const port = await freePort();
    const server = startProcess(
      join(bin, "postgres"),
      [
        ...["-D", data, "-p", String(port), "-k", dir],
        ...["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off"],
        ...[
          "-c",
          "full_page_writes=off",
          "-c",
          `max_connections=${opts.maxConnections ?? 40}`,
          "-c",
          "shared_buffers=16MB",
        ],
      ],
      { cwd: dir, env: { LC_ALL: "C" }, ...(user ?? {}), stopSignal: "SIGINT", cleanUp: removeDir },
    );
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
      try {
        await client.connect();
        await client.end();
        break;
      } catch (err) {
        await client.end().catch(() => undefined);
        if (server.exited() || Date.now() > deadline) {
          await server.stop();
          throw new Error(`postgres did not start: ${(err as Error).message}\n${server.output()}`, { cause: err });
        }
        await sleep(100);
      }
    }
    return {
      url,
      pid: server.pid!,
      async createDatabase(name) {
        if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${JSON.stringify(name)}`);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name}"`);
        } finally {
          await client.end();
        }
        return `postgres://postgres@127.0.0.1:${port}/${name}`;
      },
      stop: () => server.stop(),
    };
  } catch (err) {
    await removeDir();
    throw err;
  }
}

/** A migrated PostgreSQL database for one test file, and how to get rid of it. */
export interface FreshPostgresDatabase {
  readonly url: string;
  /** Drops the database (and stops the cluster when this file started its own). Idempotent. */
  close(): Promise<void>;
}

/**
 * A migrated PostgreSQL database for tests that need PostgreSQL whatever the suite runs on (replicas,
 * many writers): on the suite's cluster when it runs on PostgreSQL (a copy of the template), else on a
 * throw-away cluster of its own.
 * @throws Error when PostgreSQL is not installed.
 */
export async function freshPostgresDatabase(): Promise<FreshPostgresDatabase> {
  if (testPostgresUrl()) {
    const made = await createTestPostgresDatabase();
    return { url: made.url, close: () => made.drop() };
  }
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase("postern");
    const open = openPostgres(url, { max: 1 });
    try {
      await migratePostgres(open.db);
    } finally {
      await open.close();
    }
    return { url, close: () => cluster.stop() };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}

/**
 * The upgrade to the audit log's queues (migrations 0013_audit_outbox and pg 0006_audit_outbox; docs/decisions.md
 * "Following the audit log"): a database that forwarded GELF and had an enabled webhook, migrated up to the
 * migration before and filled the old way (GELFForwardedID, webhook_cursor), keeps both followers on and queues
 * exactly the entries neither had handled. The PostgreSQL case runs in the suite's PostgreSQL pass.
 */
import { afterEach, describe, expect, it } from "vitest";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import pg from "pg";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { migrateDatabase, openDatabase, schema } from "./index.ts";
import { migratePostgres, openPostgres, schemaPg } from "./postgres.ts";
import { testPostgresUrl } from "../testing/database.ts";
import { AuditAction, writeAudit } from "../services/audit.ts";

const drizzleFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));
const drizzlePgFolder = fileURLToPath(new URL("../../drizzle-pg", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A migrations folder holding the first `count` migrations of `from` (server/drizzle or server/drizzle-pg). */
function firstMigrations(count: number, from = drizzleFolder): string {
  const dir = mkdtempSync(join(tmpdir(), "postern-migrations-"));
  dirs.push(dir);
  mkdirSync(join(dir, "meta"));
  const journal = JSON.parse(readFileSync(join(from, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  journal.entries = journal.entries.slice(0, count);
  writeFileSync(join(dir, "meta", "_journal.json"), JSON.stringify(journal));
  for (const { tag } of journal.entries) copyFileSync(join(from, `${tag}.sql`), join(dir, `${tag}.sql`));
  return dir;
}

describe("migration 0013_audit_outbox", () => {
  it("keeps GELF and the webhooks following the log and queues the entries they had not handled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-upgrade-"));
    dirs.push(dir);
    const file = join(dir, "postern.db");
    const old = new Database(file);
    migrate(drizzle(old), { migrationsFolder: firstMigrations(13) }); // 0000 … 0012
    for (let id = 1; id <= 5; id++)
      old
        .prepare("INSERT INTO audit_log (id, at, action) VALUES (?, ?, 'userLoggedIn')")
        .run(id, 1_700_000_000_000 + id);
    old.prepare("INSERT INTO settings (key, value) VALUES ('GELFForwardedID', '2')").run();
    old.prepare("INSERT INTO settings (key, value) VALUES ('GELFListenerURL', '\"udp://127.0.0.1:12201\"')").run();
    old
      .prepare(
        "INSERT INTO webhooks (id, url, events, enabled, secret_sealed, since_audit_id, created_at) VALUES ('w1', 'http://127.0.0.1:9/', '[\"*\"]', 1, 'x', 1, 1)",
      )
      .run();
    old.prepare("INSERT INTO webhook_cursor (id, audit_id) VALUES (1, 4)").run();
    old.close();

    const upgraded = openDatabase(file);
    try {
      expect(await migrateDatabase(upgraded.db)).toBeGreaterThan(0);
      const db = upgraded.db;
      const followers = await db.select().from(schema.auditFollowers);
      expect(Object.fromEntries(followers.map((f) => [f.name, f.active]))).toEqual({ gelf: true, webhooks: true });
      const queued = async (follower: string) =>
        (await db.select().from(schema.auditOutbox))
          .filter((r) => r.follower === follower)
          .map((r) => r.auditId)
          .sort((a, b) => a - b);
      expect(await queued("gelf")).toEqual([3, 4, 5]);
      expect(await queued("webhooks")).toEqual([5]);
      await writeAudit(db, { action: AuditAction.userLoggedIn, at: 1_800_000_000_000 });
      expect(await queued("gelf")).toEqual([3, 4, 5, 6]);
      expect(await queued("webhooks")).toEqual([5, 6]);
    } finally {
      await upgraded.close();
    }
  });

  it("leaves both followers off when GELF was off and no webhook was enabled", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-upgrade-"));
    dirs.push(dir);
    const file = join(dir, "postern.db");
    const old = new Database(file);
    migrate(drizzle(old), { migrationsFolder: firstMigrations(13) });
    old.prepare("INSERT INTO audit_log (id, at, action) VALUES (1, 1, 'userLoggedIn')").run();
    old.prepare("INSERT INTO settings (key, value) VALUES ('GELFForwardedID', '-1')").run();
    old
      .prepare(
        "INSERT INTO webhooks (id, url, events, enabled, secret_sealed, since_audit_id, created_at) VALUES ('w1', 'http://127.0.0.1:9/', '[\"*\"]', 0, 'x', 0, 1)",
      )
      .run();
    old.close();
    const upgraded = openDatabase(file);
    try {
      await migrateDatabase(upgraded.db);
      const followers = await upgraded.db.select().from(schema.auditFollowers);
      expect(followers.every((f) => !f.active)).toBe(true);
      await writeAudit(upgraded.db, { action: AuditAction.userLoggedIn, at: 2 });
      expect(await upgraded.db.select().from(schema.auditOutbox)).toEqual([]);
    } finally {
      await upgraded.close();
    }
  });

  it.skipIf(!testPostgresUrl())("does the same on PostgreSQL (0006_audit_outbox)", async () => {
    const base = new URL(testPostgresUrl()!);
    const name = `upgrade_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: base.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    try {
      const old = new pg.Client({ connectionString: url.toString() });
      await old.connect();
      try {
        await migratePg(drizzlePg({ client: old }), { migrationsFolder: firstMigrations(6, drizzlePgFolder) }); // 0000 … 0005
        for (let id = 1; id <= 5; id++)
          await old.query("INSERT INTO audit_log (id, at, action) VALUES ($1, $2, 'userLoggedIn')", [
            id,
            1_700_000_000_000 + id,
          ]);
        await old.query(
          `INSERT INTO settings (key, value) VALUES ('GELFForwardedID', '2'), ('GELFListenerURL', '"udp://127.0.0.1:12201"')`,
        );
        await old.query(
          `INSERT INTO webhooks (id, url, events, enabled, secret_sealed, since_audit_id, created_at) VALUES ('w1', 'http://127.0.0.1:9/', '["*"]', true, 'x', 1, 1)`,
        );
        await old.query("INSERT INTO webhook_cursor (id, audit_id) VALUES (1, 4)");
      } finally {
        await old.end();
      }
      const upgraded = openPostgres(url.toString(), { max: 1 });
      try {
        expect(await migratePostgres(upgraded.db)).toBeGreaterThan(0);
        const followers = await upgraded.db.select().from(schemaPg.auditFollowers);
        expect(Object.fromEntries(followers.map((f) => [f.name, f.active]))).toEqual({ gelf: true, webhooks: true });
        const queued = async (follower: string) =>
          (await upgraded.db.select().from(schemaPg.auditOutbox))
            .filter((r) => r.follower === follower)
            .map((r) => r.auditId)
            .sort((a, b) => a - b);
        expect(await queued("gelf")).toEqual([3, 4, 5]);
        expect(await queued("webhooks")).toEqual([5]);
        await upgraded.db.insert(schemaPg.auditLog).values({ id: 6, at: 1_800_000_000_000, action: "userLoggedIn" });
        expect(await queued("gelf")).toEqual([3, 4, 5, 6]);
        expect(await queued("webhooks")).toEqual([5, 6]);
      } finally {
        await upgraded.close();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

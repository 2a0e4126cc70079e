/**
 * `postern db copy --from sqlite:PATH --to postgres://...` through the real CLI into a throw-away
 * PostgreSQL (issue #12 item 5; docs/operations.md "Moving to PostgreSQL"): a SQLite database seeded
 * through the server's own services (every table holds rows) is copied in small batches; every row of
 * every table reads back the same through drizzle on both sides (booleans, epoch-ms numbers, JSON
 * values with their key order, a JSON string that looks like a number), the identity sequences continue past the copied
 * ids, the change counters are SQLite's; a second copy into the now non-empty target is refused with
 * nothing changed; a row PostgreSQL cannot hold rolls the whole copy back; bad arguments are refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { asc, eq, getTableColumns, getTableName, is, sql } from "drizzle-orm";
import type { Column } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { openDatabase } from "../../../server/src/db/index.ts";
import type { OpenDatabase } from "../../../server/src/db/index.ts";
import * as schema from "../../../server/src/db/schema.ts";
import { openPostgres, schemaPg } from "../../../server/src/db/postgres.ts";
import { createHarness, seedLoop, signInAdmin } from "../../../server/src/testing/harness.ts";
import { postgresBinDir, startPostgres } from "../../../test/support/postgres.ts";
import type { TestPostgres } from "../../../test/support/postgres.ts";

const CLI = fileURLToPath(new URL("../main.ts", import.meta.url));
const postern = (args: string[]) => execa(process.execPath, [CLI, ...args], { reject: false, timeout: 120_000 });

const bin = postgresBinDir();
if (!bin) console.warn("PostgreSQL (initdb, postgres) is not installed: skipping cli/src/commands/db-copy.test.ts");

const actor = { adminName: "test-admin", ip: "127.0.0.1" };

/** Seeds `file` through the services so that every table holds at least one row. */
async function seed(file: string): Promise<void> {
  const h = await createHarness(file);
  try {
    const s = await seedLoop(h, { clickToGrant: true, maximumGrantDurationSeconds: 300 });
    h.channel.online.add(s.agentId);
    const { session } = await h.services.userSessions.login({
      userName: "alice",
      password: "alice-password",
      kiosk: false,
      ip: "203.0.113.5",
    });
    await h.services.engine.grant(session.sessionId, s.aclId, { userName: "alice", ip: "203.0.113.5", click: true });
    await h.services.engine.handleResults("edge", [{ key: s.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    await expect(
      h.services.userSessions.login({ userName: "alice", password: "wrong", kiosk: false, ip: "198.51.100.7" }),
    ).rejects.toThrow();
    await h.services.groups.create(
      { Name: "eng", Description: "engineers", Type: "local", ACLIDs: [s.aclId], UserIDs: [s.userId] },
      actor,
    );
    await h.services.apiKeys.create({ Name: "robot", Scopes: [], ExpiredAfter: null }, actor);
    // A webhook for every event: its own creation is queued as a delivery (the audit log is followed for it).
    await h.services.webhooks.create(
      { URL: "http://127.0.0.1:9/hook", Events: ["*"], Description: "siem", Enabled: true },
      actor,
    );
    await h.services.webhookDispatcher.collect();
    await signInAdmin(h); // an audit entry still queued for the webhooks (audit_outbox)
    const db = h.services.db;
    await db.insert(schema.settings).values({ key: "copy-test.numeric-string", value: "123" });
    await db.insert(schema.settings).values({ key: "copy-test.object", value: { a: [1, true, null], ü: "x" } });
    await db
      .insert(schema.samlRequests)
      .values({ id: "r1", audience: "user", kiosk: true, createdAt: 1, expiresAt: 2 });
    await db.insert(schema.samlAssertions).values({ id: "as1", expiresAt: 1_800_000_000_000 });
    await db.insert(schema.passkeys).values({
      id: "pk1",
      userId: s.userId,
      name: "laptop",
      credentialId: "cred-1",
      publicKey: "pQECAyYgASFYIA",
      counter: 4_000_000_000,
      transports: ["internal", "hybrid"],
      deviceType: "multiDevice",
      backedUp: true,
      createdAt: 1_700_000_000_123,
    });
    await db.insert(schema.passkeyChallenges).values({
      kind: "admin",
      sessionId: "s1",
      purpose: "authenticate",
      challenge: "c1",
      expiresAt: 1_800_000_000_000,
    });
    // An approval request (issue #14 item 1) on the seeded grant.
    const grant = (await db.select().from(schema.grants).limit(1))[0]!;
    await db.insert(schema.approvalRequests).values({
      id: "ar1",
      grantId: grant.id,
      aclId: s.aclId,
      sessionId: session.sessionId,
      userId: s.userId,
      userName: "alice",
      ipAddress: "203.0.113.5",
      reason: "deploy ü",
      state: "denied",
      createdAt: 1_700_000_000_001,
      expiresAt: 1_700_003_600_001,
      decidedAt: 1_700_000_100_000,
      decidedBy: "root",
      decisionReason: "not now",
      grantMinutes: 30,
    });
    await db
      .insert(schema.auditFolds)
      .values({ key: "loginFailed:198.51.100.7", windowStart: 3, folded: 2, last: { Action: "x" } })
      .onConflictDoNothing();
  } finally {
    await h.close();
  }
}

const sqliteTables = Object.values(schema as Record<string, unknown>).filter((t): t is SQLiteTable =>
  is(t, SQLiteTable),
);
const pgByName = new Map(
  Object.values(schemaPg as Record<string, unknown>)
    .filter((t): t is PgTable => is(t, PgTable))
    .map((t) => [getTableName(t), t]),
);

/** The primary-key column names of a table (its own or the composite one). */
function keyColumns(table: PgTable): string[] {
  const c = pgConfig(table);
  const single = c.columns.filter((col) => col.primary).map((col) => col.name);
  return single.length > 0 ? single : c.primaryKeys[0]!.columns.map((col) => col.name);
}

/** Every row of every table on both sides, ordered by primary key. */
async function allRows(sqliteDb: OpenDatabase, pgDb: ReturnType<typeof openPostgres>) {
  const out: Record<string, { sqlite: unknown[]; pg: unknown[] }> = {};
  for (const st of sqliteTables) {
    const name = getTableName(st);
    const pt = pgByName.get(name)!;
    const keys = keyColumns(pt);
    const sCols = getTableColumns(st) as Record<string, Column>;
    const pCols = getTableColumns(pt) as Record<string, Column>;
    const sOrder = Object.values(sCols)
      .filter((c) => keys.includes(c.name))
      .map((c) => asc(c));
    const pOrder = Object.values(pCols)
      .filter((c) => keys.includes(c.name))
      .map((c) => asc(c));
    out[name] = {
      sqlite: await sqliteDb.db
        .select()
        .from(st)
        .orderBy(...sOrder),
      pg: await pgDb.db
        .select()
        .from(pt)
        .orderBy(...pOrder),
    };
  }
  return out;
}

describe.skipIf(!bin)("postern db copy", () => {
  let server: TestPostgres;
  let root: string;
  let file: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "postern-copy-"));
    file = join(root, "postern.db");
    await seed(file);
    server = await startPostgres();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("copies every table into an empty database, row for row, and refuses a second copy", async () => {
    const url = await server.createDatabase("target");
    const r = await postern(["--json", "db", "copy", "--from", `sqlite:${file}`, "--to", url, "--batch-size", "2"]);
    expect(r.stderr).toContain("copied");
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout) as { Rows: number; Tables: Record<string, number>; From: string };
    expect(report.From).toBe(file);

    const sqliteDb = openDatabase(file);
    const pgDb = openPostgres(url);
    try {
      let rows = await allRows(sqliteDb, pgDb);
      expect(Object.keys(report.Tables).sort()).toEqual(Object.keys(rows).sort());
      // A session's status_version is a cache key that triggers raise on every write to its grants
      // (services/status-cache.ts): the grants copied after their sessions raise it in the target, and it
      // only has to differ after a change, so the copy may have it higher, never lower.
      const versions = (t: { sqlite: unknown[]; pg: unknown[] }) =>
        (["sqlite", "pg"] as const).map((side) =>
          (t[side] as { statusVersion: number }[]).map(({ statusVersion, ...rest }) => {
            return { statusVersion, rest };
          }),
        );
      const withoutVersions = (all: typeof rows) => {
        const [sqliteSessions, pgSessions] = versions(all["user_sessions"]!);
        pgSessions!.forEach((p, i) =>
          expect(p.statusVersion).toBeGreaterThanOrEqual(sqliteSessions![i]!.statusVersion),
        );
        return {
          ...all,
          user_sessions: { sqlite: sqliteSessions!.map((r) => r.rest), pg: pgSessions!.map((r) => r.rest) },
        };
      };
      const copiedRows = rows;
      rows = withoutVersions(copiedRows);
      for (const [name, { sqlite, pg }] of Object.entries(rows)) {
        expect(sqlite.length, `${name} is seeded`).toBeGreaterThan(0);
        expect(report.Tables[name], name).toBe(sqlite.length);
        expect(pg, name).toEqual(sqlite);
        // As text too: JSON values keep their key order (services compare them by JSON.stringify).
        expect(JSON.stringify(pg), name).toBe(JSON.stringify(sqlite));
      }
      expect(report.Rows).toBe(Object.values(rows).reduce((n, t) => n + t.sqlite.length, 0));
      expect(rows["audit_log"]!.sqlite.length).toBeGreaterThan(2); // more than one batch

      // The values keep their JS types on the PostgreSQL side.
      const [user] = await pgDb.db.select().from(schemaPg.users).where(eq(schemaPg.users.userName, "alice"));
      expect(user!.disabled).toBe(false);
      expect(user!.createdAt).toBeGreaterThan(1_600_000_000_000);
      const [acl] = await pgDb.db.select().from(schemaPg.acls);
      expect(acl!.clickToGrant).toBe(true);
      expect(acl!.config).toEqual({ UriToken: "", haproxy: { ID: 1 } });
      const settings = Object.fromEntries(
        (await pgDb.db.select().from(schemaPg.settings)).map((s) => [s.key, s.value] as const),
      );
      expect(settings["copy-test.numeric-string"]).toBe("123");
      expect(settings["copy-test.object"]).toEqual({ a: [1, true, null], ü: "x" });

      // The identity sequences continue past the copied ids.
      const maxId = Math.max(...(rows["audit_log"]!.sqlite as { id: number }[]).map((a) => a.id));
      const [next] = await pgDb.db.insert(schemaPg.auditLog).values({ at: 1, action: "copyTest" }).returning();
      expect(next!.id).toBe(maxId + 1);
      await pgDb.db.delete(schemaPg.auditLog).where(eq(schemaPg.auditLog.id, next!.id));

      // A second copy is refused, naming the tables with rows, and changes nothing.
      const again = await postern(["db", "copy", "--from", `sqlite:${file}`, "--to", url]);
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(/not empty \(rows in .*users.*\).*nothing was changed/);
      expect(await allRows(sqliteDb, pgDb)).toEqual(copiedRows);
    } finally {
      await sqliteDb.close();
      await pgDb.close();
    }
  });

  it("rolls the whole copy back when PostgreSQL cannot hold a row", async () => {
    const bad = join(root, "bad.db");
    await seed(bad);
    const sqliteDb = openDatabase(bad);
    // PostgreSQL text cannot hold NUL; the users table is copied after several others.
    await sqliteDb.db.update(schema.users).set({ company: "a\u0000b" });
    await sqliteDb.close();
    const url = await server.createDatabase("rollback");
    const r = await postern(["db", "copy", "--from", `sqlite:${bad}`, "--to", url]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/copying users \(rows 1-1\) failed: .*(0x00|invalid byte sequence)/);
    expect(r.stderr).not.toContain("argon2"); // no row values (password hashes) in the message
    const pgDb = openPostgres(url);
    try {
      const counts = await pgDb.db.execute<{ n: string }>(
        sql`SELECT (SELECT count(*) FROM agents) + (SELECT count(*) FROM backends) + (SELECT count(*) FROM users) AS n`,
      );
      expect(Number(counts.rows[0]!.n)).toBe(0);
    } finally {
      await pgDb.close();
    }
  });

  it("refuses a source or target it cannot use, before touching the target", async () => {
    const url = await server.createDatabase("untouched");
    expect((await postern(["db", "copy", "--from", join(root, "x.db"), "--to", url])).stderr).toContain(
      "--from must be sqlite:PATH",
    );
    expect((await postern(["db", "copy", "--from", `sqlite:${join(root, "none.db")}`, "--to", url])).stderr).toContain(
      "no SQLite database at",
    );
    expect((await postern(["db", "copy", "--from", `sqlite:${file}`, "--to", "mysql://x/y"])).stderr).toContain(
      "--to must be a postgres:// URL",
    );
    const refused = await postern([
      "db",
      "copy",
      "--from",
      `sqlite:${file}`,
      "--to",
      "postgres://postgres:secret@127.0.0.1:1/x",
    ]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("cannot connect to postgres://postgres:***@127.0.0.1:1/x");
    expect(refused.stderr).not.toContain("secret");
    const pgDb = openPostgres(url);
    try {
      const tables = await pgDb.db.execute(sql`SELECT 1 FROM pg_tables WHERE schemaname = 'public'`);
      expect(tables.rows).toHaveLength(0);
    } finally {
      await pgDb.close();
    }
  });
});

/**
 * The PostgreSQL migrations on a real, throw-away PostgreSQL (issue #12 item 2; docs/decisions.md
 * "PostgreSQL schema"): server/drizzle-pg creates every table of schema-pg.ts with its columns as
 * declared (so a schema change without its generated migration fails here), migrating twice applies
 * nothing, two replicas migrating at once apply each migration once, and the change-counter triggers raise their counters exactly as the SQLite ones do for the
 * same writes (acls: insert, update, delete; users: insert, delete, and updates of the rank key only).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTableConfig } from "drizzle-orm/pg-core";
import { is, sql } from "drizzle-orm";
import { PgTable } from "drizzle-orm/pg-core";
import { migrateDatabase, openDatabase } from "../../server/src/db/index.ts";
import {
  migratePostgres,
  openPostgres,
  pendingPostgresMigrations,
  postgresMigrationCount,
  schemaPg,
} from "../../server/src/db/postgres.ts";
import type { OpenPostgres } from "../../server/src/db/postgres.ts";
import { postgresBinDir, startPostgres } from "../support/postgres.ts";
import type { TestPostgres } from "../support/postgres.ts";

const bin = postgresBinDir();
if (!bin) console.warn("PostgreSQL (initdb, postgres) is not installed: skipping test/db/postgres.test.ts");

/** The writes whose counter effects are compared, in order, each as SQL both dialects run. */
const writes: { what: string; sql: string; acls: number; users: number }[] = [
  {
    what: "insert an agent and backend",
    sql: `INSERT INTO agents (id, name) VALUES ('g1', 'edge')`,
    acls: 0,
    users: 0,
  },
  {
    what: "insert a backend",
    sql: `INSERT INTO backends (id, name, agent_id, type, config) VALUES ('b1', 'proxy', 'g1', 'haproxy', '{}')`,
    acls: 0,
    users: 0,
  },
  {
    what: "insert two acls",
    sql: `INSERT INTO acls (id, description, backend_id, ip_exclusions, grant_type, config)
          VALUES ('a1', 'one', 'b1', '{}', '{}', '{}'), ('a2', 'two', 'b1', '{}', '{}', '{}')`,
    acls: 2,
    users: 0,
  },
  { what: "update one acl", sql: `UPDATE acls SET description = 'uno' WHERE id = 'a1'`, acls: 1, users: 0 },
  { what: "update no acl", sql: `UPDATE acls SET description = 'none' WHERE id = 'zz'`, acls: 0, users: 0 },
  { what: "delete one acl", sql: `DELETE FROM acls WHERE id = 'a2'`, acls: 1, users: 0 },
  {
    what: "insert a user",
    sql: `INSERT INTO users (id, name, user_name, auth_type) VALUES ('u1', 'Alice', 'alice', 'local')`,
    acls: 0,
    users: 1,
  },
  {
    what: "rename the user (not its rank key)",
    sql: `UPDATE users SET name = 'Al' WHERE id = 'u1'`,
    acls: 0,
    users: 0,
  },
  { what: "move the user's created_at", sql: `UPDATE users SET created_at = 5 WHERE id = 'u1'`, acls: 0, users: 1 },
  {
    what: "assign the acl (user_acls)",
    sql: `INSERT INTO user_acls (user_id, acl_id) VALUES ('u1', 'a1')`,
    acls: 0,
    users: 0,
  },
  { what: "delete the user", sql: `DELETE FROM users WHERE id = 'u1'`, acls: 0, users: 1 },
];

type Counters = Record<string, number>;

describe.skipIf(!bin)("PostgreSQL migrations (server/drizzle-pg)", () => {
  let server: TestPostgres;
  let database: OpenPostgres;

  beforeAll(async () => {
    server = await startPostgres();
    database = openPostgres(await server.createDatabase("migrations"));
  });
  afterAll(async () => {
    await database?.close();
    await server?.stop();
  });

  it("creates every table of schema-pg.ts with its columns, once", async () => {
    expect(await pendingPostgresMigrations(database.db)).toBe(postgresMigrationCount());
    expect(await migratePostgres(database.db)).toBe(postgresMigrationCount());
    expect(await migratePostgres(database.db)).toBe(0);
    expect(await pendingPostgresMigrations(database.db)).toBe(0);

    const rows = (
      await database.db.execute<{ table_name: string; column_name: string; is_nullable: string }>(
        sql`SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
      )
    ).rows;
    const actual = new Map<string, string[]>();
    for (const r of rows)
      actual.set(r.table_name, [...(actual.get(r.table_name) ?? []), `${r.column_name}:${r.is_nullable}`]);
    const declared = new Map<string, string[]>();
    for (const table of Object.values(schemaPg as Record<string, unknown>).filter((t): t is PgTable =>
      is(t, PgTable),
    )) {
      const c = getTableConfig(table);
      declared.set(
        c.name,
        c.columns.map((col) => `${col.name}:${col.notNull ? "NO" : "YES"}`),
      );
    }
    expect(new Set(actual.keys())).toEqual(new Set(declared.keys()));
    for (const [name, columns] of declared) expect(actual.get(name)?.sort(), name).toEqual([...columns].sort());
  });

  it("migrates once when two replicas start together (advisory lock)", async () => {
    const url = await server.createDatabase("together");
    const a = openPostgres(url);
    const b = openPostgres(url);
    try {
      const applied = await Promise.all([migratePostgres(a.db), migratePostgres(b.db)]);
      expect(applied.sort()).toEqual([0, postgresMigrationCount()]);
      const rows = await a.db.execute<{ n: string }>(sql`SELECT count(*) AS n FROM drizzle.__drizzle_migrations`);
      expect(Number(rows.rows[0]!.n)).toBe(postgresMigrationCount());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("raises the change counters on the same writes as SQLite", async () => {
    await migratePostgres(database.db);
    const sqlite = openDatabase(":memory:");
    await migrateDatabase(sqlite.db);
    try {
      const pgCounters = async (): Promise<Counters> =>
        Object.fromEntries(
          (
            await database.db.execute<{ name: string; value: string }>(sql`SELECT name, value FROM change_counters`)
          ).rows.map((r) => [r.name, Number(r.value)]),
        );
      const sqliteCounters = async (): Promise<Counters> =>
        Object.fromEntries(
          (await sqlite.db.values<[string, number]>(sql`SELECT name, value FROM change_counters`)).map(([n, v]) => [
            n,
            v,
          ]),
        );
      // Every counter both migrations create, at 0 (the status read's: issue #13 item 2).
      const none = { acls: 0, users: 0, assignments: 0, licenses: 0, status_settings: 0 };
      expect(await pgCounters()).toEqual(none);
      expect(await sqliteCounters()).toEqual(none);
      for (const w of writes) {
        const [pgBefore, sqliteBefore] = [await pgCounters(), await sqliteCounters()];
        await database.db.execute(sql.raw(w.sql));
        await sqlite.db.run(sql.raw(w.sql));
        const [pgAfter, sqliteAfter] = [await pgCounters(), await sqliteCounters()];
        const delta = (a: Counters, b: Counters) => ({
          acls: a["acls"]! - b["acls"]!,
          users: a["users"]! - b["users"]!,
        });
        expect(delta(sqliteAfter, sqliteBefore), `SQLite: ${w.what}`).toEqual({ acls: w.acls, users: w.users });
        expect(delta(pgAfter, pgBefore), `PostgreSQL: ${w.what}`).toEqual({ acls: w.acls, users: w.users });
      }
    } finally {
      await sqlite.close();
    }
  });
});

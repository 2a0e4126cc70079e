/**
 * Prepared queries (db/prepared.ts) run where the caller is: on the database, inside the caller's
 * transaction (seeing its uncommitted writes, and rolled back with it), inside a savepoint, and twice
 * on two databases at once — on SQLite and on PostgreSQL (the suite's database).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import { migrateDatabase, tablesOf, type OpenDatabase, type Queryable } from "./index.ts";
import { openTestDatabase } from "../testing/database.ts";
import { prepared } from "./prepared.ts";
import { rootOf } from "./roots.ts";

const readSetting = prepared<{ key: string }, { value: unknown }[]>("testReadSetting", (q) => {
  const { settings } = tablesOf(q);
  return q
    .select({ value: settings.value })
    .from(settings)
    .where(eq(settings.key, sql.placeholder("key")));
});
const writeSetting = prepared<{ key: string; value: string }, unknown>("testWriteSetting", (q) => {
  const { settings } = tablesOf(q);
  return q.insert(settings).values({ key: sql.placeholder("key"), value: sql`${sql.placeholder("value")}` });
});
const valueOf = async (q: Queryable, key: string) => (await readSetting(q, { key }))[0]?.value;

let a: OpenDatabase;
let b: OpenDatabase;
beforeEach(async () => {
  a = await openTestDatabase();
  b = await openTestDatabase();
  await migrateDatabase(a.db);
  await migrateDatabase(b.db);
});
afterEach(async () => {
  await a.close();
  await b.close();
});

describe("prepared queries (db/prepared.ts)", () => {
  it("run on the database and inside its transaction, seeing and rolled back with the transaction's writes", async () => {
    await writeSetting(a.db, { key: "outside", value: '"kept"' });
    expect(await valueOf(a.db, "outside")).toBe("kept");
    await expect(
      a.db.transaction(async (tx) => {
        expect(rootOf(tx)).toBe(a.db);
        await writeSetting(tx, { key: "inside", value: '"gone"' });
        expect(await valueOf(tx, "inside")).toBe("gone");
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await valueOf(a.db, "inside")).toBeUndefined();
    expect(await valueOf(a.db, "outside")).toBe("kept");
  });

  it("run inside a savepoint, rolled back with it while the transaction commits", async () => {
    await a.db.transaction(async (tx) => {
      await writeSetting(tx, { key: "outer", value: "1" });
      await expect(
        a.db.transaction(async (savepoint) => {
          expect(rootOf(savepoint)).toBe(a.db);
          await writeSetting(savepoint, { key: "inner", value: "2" });
          expect(await valueOf(savepoint, "inner")).toBe(2);
          throw new Error("roll back the savepoint");
        }),
      ).rejects.toThrow("roll back the savepoint");
    });
    expect(await valueOf(a.db, "outer")).toBe(1);
    expect(await valueOf(a.db, "inner")).toBeUndefined();
  });

  it("are prepared per database: two databases keep their own rows", async () => {
    await writeSetting(a.db, { key: "k", value: '"a"' });
    await writeSetting(b.db, { key: "k", value: '"b"' });
    expect(await valueOf(a.db, "k")).toBe("a");
    expect(await valueOf(b.db, "k")).toBe("b");
  });

  it("refuse a name declared twice", () => {
    expect(() => prepared("testReadSetting", () => undefined)).toThrow("declared twice");
  });
});

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cacheStatements } from "./statement-cache.ts";

describe("cacheStatements", () => {
  it("hands out one compiled statement per SQL text, most recently used kept, modes reset", () => {
    const sqlite = new Database(":memory:");
    cacheStatements(sqlite, 2);
    sqlite.exec("create table t (a integer, b text); insert into t values (1, 'x'), (2, 'y')");
    const first = sqlite.prepare("select a, b from t order by a");
    expect(sqlite.prepare("select a, b from t order by a")).toBe(first);
    // A mode left on by one user (drizzle's raw, pragma's pluck) is off for the next.
    expect(first.raw().all()).toEqual([
      [1, "x"],
      [2, "y"],
    ]);
    expect(sqlite.prepare("select a, b from t order by a").all()).toEqual([
      { a: 1, b: "x" },
      { a: 2, b: "y" },
    ]);
    sqlite.prepare("select a, b from t order by a").pluck();
    expect(sqlite.prepare("select a, b from t order by a").get()).toEqual({ a: 1, b: "x" });
    // Parameters bind per run.
    const byA = sqlite.prepare("select b from t where a = ?");
    expect(byA.get(2)).toEqual({ b: "y" });
    expect(sqlite.prepare("select b from t where a = ?").get(1)).toEqual({ b: "x" });
    // At most 2 kept: the least recently used one is compiled again.
    sqlite.prepare("select count(*) as n from t");
    expect(sqlite.prepare("select a, b from t order by a")).not.toBe(first);
    expect(sqlite.prepare("select b from t where a = ?")).not.toBe(byA);
    // Statements that return nothing pass through too.
    sqlite.prepare("insert into t values (?, ?)").run(3, "z");
    sqlite.prepare("insert into t values (?, ?)").run(4, "w");
    expect(sqlite.prepare("select count(*) as n from t").get()).toEqual({ n: 4 });
    sqlite.close();
  });
});

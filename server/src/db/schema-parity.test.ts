/**
 * One schema, both dialects (issue #12 item 2; docs/decisions.md "PostgreSQL schema"): schema.ts
 * (SQLite) and schema-pg.ts (PostgreSQL) declare the same tables with the same columns (name, JS key,
 * JS type, not-null, default, primary key, enum values), unique constraints, indexes and foreign keys,
 * so a column added to one and not the other fails here. Defaults compare by value; SQL defaults (the
 * current time) only as "some SQL" since their text differs by dialect. The last test shows the
 * comparison does see a drift.
 */
import { describe, expect, it } from "vitest";
import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { Column } from "drizzle-orm";
import { getTableConfig as sqliteConfig, integer, SQLiteTable, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bigint, getTableConfig as pgConfig, PgTable, pgTable, text as pgText } from "drizzle-orm/pg-core";
import * as sqliteSchema from "./schema.ts";
import * as pgSchema from "./schema-pg.ts";

type AnyTable = SQLiteTable | PgTable;

/** The text of an SQL default (its string chunks). */
function sqlText(s: SQL): string {
  return s.queryChunks
    .map((c) => (typeof c === "object" && c !== null && "value" in c ? (c.value as string[]).join("") : String(c)))
    .join("");
}

/** A default as a comparable value: literals as they are, a quoted SQL literal as its JSON, other SQL as "<sql>". */
function defaultOf(col: Column): unknown {
  if (!col.hasDefault) return undefined;
  const d = col.default;
  if (is(d, SQL)) {
    const text = sqlText(d).trim();
    const quoted = /^'(.*)'$/.exec(text);
    return quoted ? JSON.parse(quoted[1]!) : "<sql>";
  }
  return d;
}

/** The JS type family of a column: SQLite's JSON text and PostgreSQL's custom json column are both "json". */
function typeOf(col: Column): string {
  if (col.columnType === "PgCustomColumn" && col.getSQLType() === "json") return "json";
  return col.dataType;
}

/** A dialect-neutral description of one table, for comparison. */
function describeTable(table: AnyTable) {
  const config = is(table, PgTable) ? pgConfig(table) : sqliteConfig(table as SQLiteTable);
  const keys = Object.entries(getTableColumns(table)).map(([key, col]) => [col.name, key]);
  const keyOf = new Map(keys as [string, string][]);
  return {
    columns: Object.fromEntries(
      config.columns.map((col) => [
        col.name,
        {
          key: keyOf.get(col.name),
          type: typeOf(col),
          notNull: col.notNull,
          hasDefault: col.hasDefault,
          default: defaultOf(col),
          primary: col.primary,
          enum: col.enumValues ?? [],
        },
      ]),
    ),
    primaryKey: config.primaryKeys.map((pk) => pk.columns.map((c) => c.name)),
    unique: [
      ...config.columns.filter((c) => c.isUnique).map((c) => `${c.uniqueName}(${c.name})`),
      ...config.uniqueConstraints.map((u) => `${u.getName()}(${u.columns.map((c) => c.name).join(",")})`),
    ].sort(),
    indexes: config.indexes
      .map((i) => {
        const cols = i.config.columns.map((c) => (is(c, SQL) ? sqlText(c) : (c as Column).name));
        return `${i.config.unique ? "unique " : ""}${i.config.name}(${cols.join(",")})`;
      })
      .sort(),
    foreignKeys: config.foreignKeys
      .map((fk) => {
        const r = fk.reference();
        const target = is(r.foreignTable, PgTable)
          ? pgConfig(r.foreignTable).name
          : sqliteConfig(r.foreignTable as SQLiteTable).name;
        return `(${r.columns.map((c) => c.name).join(",")}) -> ${target}(${r.foreignColumns.map((c) => c.name).join(",")}) on delete ${fk.onDelete ?? "no action"}`;
      })
      .sort(),
  };
}

/** Every table of a schema module by its SQL name. */
function describeSchema(module: Record<string, unknown>) {
  const tables = Object.values(module).filter((t): t is AnyTable => is(t, SQLiteTable) || is(t, PgTable));
  return Object.fromEntries(
    tables.map((t) => [is(t, PgTable) ? pgConfig(t).name : sqliteConfig(t as SQLiteTable).name, describeTable(t)]),
  );
}

describe("schema parity (SQLite schema.ts, PostgreSQL schema-pg.ts)", () => {
  const sqliteSide = describeSchema(sqliteSchema);
  const pgSide = describeSchema(pgSchema);

  it("declares the same tables, exported under the same names", () => {
    expect(Object.keys(pgSide).sort()).toEqual(Object.keys(sqliteSide).sort());
    const exported = (m: Record<string, unknown>) =>
      Object.entries(m)
        .filter(([, t]) => is(t, SQLiteTable) || is(t, PgTable))
        .map(([k]) => k)
        .sort();
    expect(exported(pgSchema)).toEqual(exported(sqliteSchema));
    expect(Object.keys(sqliteSide).length).toBeGreaterThan(20);
  });

  for (const name of Object.keys(sqliteSide)) {
    it(`table ${name}: same columns, keys, unique constraints, indexes and foreign keys`, () => {
      expect(pgSide[name]).toEqual(sqliteSide[name]);
    });
  }

  it("sees a drift: a column only one side has, a nullability or a default that differs", () => {
    const a = describeSchema({
      t: sqliteTable("t", { id: text("id").primaryKey(), n: integer("n").notNull().default(1) }),
    });
    expect(
      describeSchema({
        t: pgTable("t", { id: pgText("id").primaryKey(), n: bigint("n", { mode: "number" }).notNull().default(1) }),
      }),
    ).toEqual(a);
    const drifts = [
      pgTable("t", {
        id: pgText("id").primaryKey(),
        n: bigint("n", { mode: "number" }).notNull().default(1),
        extra: pgText("extra"),
      }),
      pgTable("t", { id: pgText("id").primaryKey(), n: bigint("n", { mode: "number" }).default(1) }),
      pgTable("t", { id: pgText("id").primaryKey(), n: bigint("n", { mode: "number" }).notNull().default(2) }),
      pgTable("t", {
        id: pgText("id").primaryKey(),
        n: bigint("n", { mode: "number" })
          .notNull()
          .default(sql`1`),
      }),
      pgTable("t", { id: pgText("id").primaryKey(), n: bigint("n", { mode: "number" }).notNull().default(1).unique() }),
      pgTable("t", { id: pgText("id"), n: bigint("n", { mode: "number" }).notNull().default(1) }),
    ];
    for (const t of drifts) expect(describeSchema({ t })).not.toEqual(a);
  });
});

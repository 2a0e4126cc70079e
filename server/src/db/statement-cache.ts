/**
 * Compiled SQLite statements kept for reuse (issue #13 item 2: a status read spent a fifth of its
 * CPU in better-sqlite3's `prepare`, as drizzle compiles every query it runs anew). The database's
 * `prepare` answers a statement it compiled before for the same SQL text, most recently used first,
 * at most `max` of them. Statements bind their parameters on every run, so reuse is safe; the modes
 * drizzle switches on a statement (`raw`) and better-sqlite3's `pragma` switches (`pluck`) are reset
 * each time a statement is handed out. better-sqlite3 is synchronous: a statement is used to the end
 * before anything else can ask for it.
 */
import type BetterSqlite3 from "better-sqlite3";

/** How many compiled statements a database keeps by default. */
export const DEFAULT_STATEMENT_CACHE_SIZE = 512;

/** Makes `sqlite.prepare` reuse compiled statements (see the module comment). */
export function cacheStatements(sqlite: BetterSqlite3.Database, max = DEFAULT_STATEMENT_CACHE_SIZE): void {
  const compile = sqlite.prepare.bind(sqlite);
  const kept = new Map<string, BetterSqlite3.Statement>();
  const prepare = (source: string): BetterSqlite3.Statement => {
    let statement = kept.get(source);
    if (statement) {
      kept.delete(source);
    } else {
      statement = compile(source);
      if (kept.size >= max) kept.delete(kept.keys().next().value as string);
    }
    kept.set(source, statement);
    if (statement.reader) statement.pluck(false).expand(false).raw(false);
    return statement;
  };
  sqlite.prepare = prepare as BetterSqlite3.Database["prepare"];
}

/**
 * Queries built once and run many times (issue #13 item 1, the grant path): drizzle's query building
 * costs more than SQLite running the statement — about 240 µs against 40 µs for a grant read with its
 * session, whose select names two tables' columns. A repository declares a hot query once with
 * `prepared`, written with `sql.placeholder(name)` where its values go; it is prepared on each
 * database the first time it runs there (better-sqlite3 statement on SQLite, a named server-side
 * statement per connection on PostgreSQL) and then only run.
 *
 * A query prepared on a database runs inside the caller's transaction when called from within it: on
 * SQLite every statement goes through one connection and the transaction gate (gate.ts), on
 * PostgreSQL the root handle's statements run on the open transaction's connection (postgres.ts).
 * So the query is prepared on the ROOT handle of the transaction given (roots.ts); a handle whose root
 * is not known (a transaction drizzle opened without our wrappers) gets the query built for that call
 * only, as an unprepared one would be.
 */
import type { Queryable } from "./index.ts";
import { rootOf } from "./roots.ts";

/** A drizzle query builder that can be prepared (select, insert, update, delete of either dialect). */
interface Preparable<R> {
  /** SQLite ignores the name; PostgreSQL names the server-side statement with it. */
  prepare(name: string): { execute(values?: Record<string, unknown>): Promise<R> };
}

/** Names already taken: PostgreSQL refuses one name for two statement texts on a connection. */
const taken = new Set<string>();

/**
 * Declares a query prepared once per database. `name` must be unique in the process (the
 * PostgreSQL statement is named `postern_<name>`); `build` makes the query on the handle it is given
 * (take the tables from it: `tablesOf(q)`), with `sql.placeholder(key)` for each value of `P`.
 * Returns the runner: `(q, values)` runs it on `q` (a database or a transaction of it) and resolves
 * to what awaiting the builder would (rows of a select, the driver's result of a write).
 * @throws Error at declaration when `name` is already taken.
 */
export function prepared<P extends Record<string, unknown>, R>(
  name: string,
  build: (q: Queryable) => unknown,
): (q: Queryable, values: P) => Promise<R> {
  if (taken.has(name)) throw new Error(`prepared query ${name} is declared twice`);
  taken.add(name);
  const statementName = `postern_${name}`;
  const made = new WeakMap<object, ReturnType<Preparable<R>["prepare"]>>();
  return async (q, values) => {
    const root = rootOf(q);
    if (root === undefined) return await (build(q) as Preparable<R>).prepare(statementName).execute(values);
    let query = made.get(root);
    if (query === undefined) {
      query = (build(root) as Preparable<R>).prepare(statementName);
      made.set(root, query);
    }
    return await query.execute(values);
  };
}

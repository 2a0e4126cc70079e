/**
 * Which database handle each transaction handle belongs to (prepared.ts prepares queries on the
 * database, not on one of its transactions). The transaction wrappers of index.ts (SQLite) and
 * postgres.ts record each transaction they open, savepoints included; the opening functions record
 * each database as its own root.
 */
import type { Queryable } from "./index.ts";

const roots = new WeakMap<object, Queryable>();

/** Records `root` as the database of `handle` (a transaction of it, or the database itself). */
export function rememberRoot(handle: object, root: Queryable): void {
  roots.set(handle, root);
}

/** The database `q` belongs to (itself for a database), or undefined when it is not recorded. */
export function rootOf(q: Queryable): Queryable | undefined {
  return roots.get(q);
}

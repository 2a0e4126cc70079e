/**
 * Statements issued at once inside a PostgreSQL transaction (db/postgres.ts `watchConflicts`;
 * docs/decisions.md "One data layer, two databases"): code that issues several statements without
 * awaiting each (a Promise.all over rows, a notice sent without waiting) runs them on the transaction's
 * one connection. They must run one after the other in the order issued, each with its own answer, on
 * that connection and in that transaction, and node-postgres must not warn "Calling client.query() when
 * the client is already executing a query" (it deprecates queueing them itself; pg 9 removes it).
 * Runs on PostgreSQL whatever the suite runs on.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { openPostgres } from "../../server/src/db/postgres.ts";
import type { OpenPostgres } from "../../server/src/db/postgres.ts";
import { freshPostgresDatabase, postgresBinDir } from "../support/postgres.ts";
import type { FreshPostgresDatabase } from "../support/postgres.ts";

const hasPostgres = postgresBinDir() !== undefined;
if (!hasPostgres) console.warn("PostgreSQL is not installed: skipping test/db/postgres-statements.test.ts");

describe.skipIf(!hasPostgres)("statements issued at once inside a PostgreSQL transaction", () => {
  let fresh: FreshPostgresDatabase;
  let open: OpenPostgres;
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);

  beforeAll(async () => {
    fresh = await freshPostgresDatabase();
    open = openPostgres(fresh.url, { max: 4 });
    process.on("warning", onWarning);
  }, 60_000);

  afterAll(async () => {
    process.off("warning", onWarning);
    await open?.close();
    await fresh?.close();
  });

  /** One statement's answer: its number, the connection's backend pid and the transaction id. */
  const probe = (db: Pick<OpenPostgres["db"], "execute">, n: number, sleepSeconds: number) =>
    db
      .execute<{ n: number; pid: number; txid: string }>(
        sql`SELECT ${n}::int AS n, pg_backend_pid() AS pid, txid_current()::text AS txid, pg_sleep(${sleepSeconds})`,
      )
      .then((r) => r.rows[0]!);

  it("runs them one after the other on the transaction's connection, each with its own answer, without node-postgres' warning", async () => {
    const { db } = open;
    const finished: number[] = [];
    const answers = await db.transaction(async (tx) => {
      // Through the transaction handle, the root handle (as service code inside a transaction does) and
      // the pool itself (as a notice sent with pg_notify): all on the transaction's connection.
      const statements = [
        probe(tx, 1, 0.05),
        probe(db, 2, 0.01),
        probe(tx, 3, 0),
        db.$client.query("SELECT 4 AS n, pg_backend_pid() AS pid, txid_current()::text AS txid").then((r) => r.rows[0]),
        probe(db, 5, 0),
      ].map((p, i) => p.then((row) => (finished.push(i + 1), row)));
      return await Promise.all(statements);
    });
    expect(answers.map((a) => Number(a.n))).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(answers.map((a) => a.pid)).size, "connections used").toBe(1);
    expect(new Set(answers.map((a) => a.txid)).size, "transactions used").toBe(1);
    expect(finished, "the order they finished in").toEqual([1, 2, 3, 4, 5]);
    // node-postgres warns at most once per process (util.deprecate): this file runs in a process of its own.
    expect(warnings.map((w) => w.message).filter((m) => /already executing a query/.test(m))).toEqual([]);
  });

  it("answers each statement after a failed one on its own: PostgreSQL refuses the rest of the transaction", async () => {
    const { db } = open;
    const settled = await db
      .transaction(async (tx) => {
        // A drizzle query runs when first awaited (`then`): each is started here, in this order.
        const statements = [probe(tx, 1, 0.02), tx.execute(sql`SELECT 1 / 0`).then((r) => r), probe(tx, 3, 0)];
        return await Promise.allSettled(statements);
      })
      .catch((err: unknown) => err);
    expect(Array.isArray(settled)).toBe(true);
    const [first, failed, after] = settled as PromiseSettledResult<unknown>[];
    expect(first?.status).toBe("fulfilled");
    expect(failed?.status).toBe("rejected");
    // The statement after the failure was still sent, and PostgreSQL refused it: the transaction is aborted.
    expect(after?.status).toBe("rejected");
    expect(
      String((after as PromiseRejectedResult).reason?.cause?.code ?? (after as PromiseRejectedResult).reason?.code),
    ).toBe("25P02");
    // The connection is usable again afterwards.
    expect(Number((await probe(db, 7, 0)).n)).toBe(7);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { migrateDatabase, openDatabase, outsideTransaction, type OpenDatabase } from "./index.ts";
import { settings } from "./schema.ts";

let database: OpenDatabase;
beforeEach(async () => {
  database = openDatabase(":memory:");
  await migrateDatabase(database.db);
});
afterEach(() => database.close());

const read = async (key: string) =>
  (await database.db.select().from(settings).where(eq(settings.key, key)).get())?.value;
const write = (key: string, value: unknown) => database.db.insert(settings).values({ key, value });
/**
 * Work of "another request": `body` runs when `start()` is called, in the async context this was
 * called in (outside any transaction), as a request's own code would.
 */
function elsewhere<T>(body: () => Promise<T>): { start: () => void; done: Promise<T> } {
  let start!: () => void;
  const go = new Promise<void>((resolve) => (start = resolve));
  return { start, done: go.then(body) };
}
/** Resolves after `n` turns of the event loop (macrotasks), so other work can run in between. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("the SQLite transaction gate (db/gate.ts)", () => {
  it("runs a timer started through outsideTransaction outside the open transaction: its write stays when it rolls back", async () => {
    let timerWrite: Promise<void> | undefined;
    let fired!: () => void;
    const timerFired = new Promise<void>((resolve) => (fired = resolve));
    await database.db
      .transaction(async (t) => {
        await t.insert(settings).values({ key: "inside", value: 1 });
        // A listener starting background work (as the audit writer's do) while the transaction is open.
        outsideTransaction(() => {
          setTimeout(() => {
            timerWrite = write("timer", 2).then(() => undefined);
            fired();
          }, 0);
        });
        await timerFired;
        await turns(3);
        throw new Error("roll back");
      })
      .catch(() => undefined);
    await timerWrite;
    expect(await read("inside")).toBeUndefined();
    expect(await read("timer")).toBe(2);
  });

  it("keeps another request's write out of an open transaction: it is not rolled back with it", async () => {
    let outsideDone = false;
    const other = elsewhere(async () => {
      await write("outside", 2);
      outsideDone = true;
    });
    const tx = database.db
      .transaction(async (t) => {
        await t.insert(settings).values({ key: "inside", value: 1 });
        // Another request writes while this transaction is open and waits on I/O.
        other.start();
        await turns(5);
        expect(outsideDone).toBe(false); // held at the gate
        throw new Error("roll back");
      })
      .catch((e: Error) => e.message);
    expect(await tx).toBe("roll back");
    await other.done;
    expect(outsideDone).toBe(true);
    expect(await read("inside")).toBeUndefined();
    expect(await read("outside")).toBe(2);
  });

  it("keeps another request's read from seeing what the open transaction has not committed", async () => {
    let seen: unknown = "not yet";
    const other = elsewhere(async () => (seen = await read("k")));
    await database.db.transaction(async (t) => {
      await t.insert(settings).values({ key: "k", value: "uncommitted" });
      other.start();
      await turns(5);
      expect(seen).toBe("not yet");
    });
    await other.done;
    expect(seen).toBe("uncommitted"); // read after the commit
  });

  it("runs transactions one at a time, in the order they were started", async () => {
    const order: string[] = [];
    const run = (name: string) =>
      database.db.transaction(async (t) => {
        order.push(`${name} begin`);
        await t.insert(settings).values({ key: name, value: name });
        await turns(2);
        order.push(`${name} end`);
      });
    await Promise.all([run("a"), run("b"), run("c")]);
    expect(order).toEqual(["a begin", "a end", "b begin", "b end", "c begin", "c end"]);
  });

  it("makes a transaction started on the root handle inside another a savepoint of it", async () => {
    await database.db.transaction(async (t) => {
      await t.insert(settings).values({ key: "outer", value: 1 });
      await database.db
        .transaction(async (inner) => {
          await inner.insert(settings).values({ key: "inner", value: 2 });
          throw new Error("inner fails");
        })
        .catch(() => undefined);
      await database.db.transaction(async (inner) => {
        await inner.insert(settings).values({ key: "kept", value: 3 });
      });
    });
    expect([await read("outer"), await read("inner"), await read("kept")]).toEqual([1, undefined, 3]);
  });
});

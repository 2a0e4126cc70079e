/**
 * The SQLite transaction gate (issue #12 item 1). SQLite here is one connection shared by every request;
 * with asynchronous repositories a transaction's statements are spread over several turns of the event
 * loop, and a statement of another request run in between would land inside that transaction (and be
 * rolled back with it, or read what it has not committed yet). The gate runs transactions one at a time
 * and holds every statement from outside the open transaction until it ends. Which statements are inside
 * is known from an AsyncLocalStorage context entered for the transaction's whole callback.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Which transaction the running code is inside (one store for every gate: markers are unique). */
const context = new AsyncLocalStorage<object>();

/** Runs `fn` as code outside any SQLite transaction (see db/index.ts `outsideTransaction`). */
export function outsideGateTransaction<T>(fn: () => T): T {
  return context.exit(fn);
}

/** Serialises transactions and keeps other statements out of an open one. */
export class TransactionGate {
  /** The open transaction: its context marker and a promise settled when it ends. */
  private open: { readonly marker: object; readonly ended: Promise<void> } | null = null;
  /** The end of the last transaction queued; the next one starts after it. */
  private queue: Promise<void> = Promise.resolve();

  /** True when the caller runs inside the open transaction's callback. */
  inside(): boolean {
    return this.open !== null && context.getStore() === this.open.marker;
  }

  /** True when a statement of the caller must wait (`pass`): a transaction is open and the caller is outside it. */
  mustWait(): boolean {
    return this.open !== null && context.getStore() !== this.open.marker;
  }

  /** The open transaction's marker object when the caller runs inside it (the owner may keep its handle there). */
  current(): Record<string, unknown> | undefined {
    return this.inside() ? (this.open?.marker as Record<string, unknown>) : undefined;
  }

  /**
   * Resolves when a statement of the caller may run: at once when no transaction is open or the caller
   * is inside it, otherwise when the open transaction (and any that start before the caller resumes) ended.
   */
  async pass(): Promise<void> {
    while (this.open && context.getStore() !== this.open.marker) await this.open.ended;
  }

  /**
   * Runs `body` as the one open transaction, after the ones queued before it; `body` gets the
   * transaction's marker object (see `current`).
   * @throws Error when called from inside an open transaction (the owner nests through `current`
   *   instead); otherwise whatever `body` throws.
   */
  async exclusive<T>(body: (marker: Record<string, unknown>) => Promise<T>): Promise<T> {
    if (this.inside()) throw new Error("a transaction was started on the database inside another one");
    const before = this.queue;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.queue = before.then(() => ended);
    // The transaction before ends by clearing `open`, so this one starts with none open.
    await before;
    const marker: Record<string, unknown> = {};
    this.open = { marker, ended };
    try {
      return await context.run(marker, () => body(marker));
    } finally {
      this.open = null;
      end();
    }
  }
}

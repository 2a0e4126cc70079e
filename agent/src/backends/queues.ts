/**
 * Work queues per backend (issue #10 item 3): a slow FortiManager install or PAN-OS commit never
 * delays an ipset grant on the same agent. Each group (one driver) runs at most `limit` tasks at
 * once; tasks with the same key (one target) run one after the other in the order they were queued,
 * and with a limit of 1 the whole group is first in, first out.
 */

interface Waiting {
  readonly key: string;
  readonly start: () => void;
}

interface Group {
  running: number;
  readonly runningKeys: Map<string, number>;
  readonly waiting: Waiting[];
}

/** Queues keyed by group (any object: a driver) and, within a group, by key (a target). */
export class GroupQueues {
  readonly #groups = new Map<object, Group>();
  #pending = 0;
  #idleWaiters: (() => void)[] = [];

  /** Number of tasks queued or running. */
  get size(): number {
    return this.#pending;
  }

  /**
   * Runs `fn` in `group` once fewer than `limit` (at least 1) of its tasks run and no earlier task of
   * the same `key` is queued or running. Resolves or rejects with `fn`'s outcome.
   */
  run<T>(group: object, limit: number, key: string, fn: () => Promise<T>): Promise<T> {
    let g = this.#groups.get(group);
    if (!g) this.#groups.set(group, (g = { running: 0, runningKeys: new Map(), waiting: [] }));
    const grp = g;
    this.#pending++;
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        grp.running++;
        grp.runningKeys.set(key, (grp.runningKeys.get(key) ?? 0) + 1);
        Promise.resolve()
          .then(fn)
          .then(resolve, reject)
          .finally(() => {
            grp.running--;
            const n = (grp.runningKeys.get(key) ?? 1) - 1;
            if (n === 0) grp.runningKeys.delete(key);
            else grp.runningKeys.set(key, n);
            this.#pending--;
            this.#pump(group, grp, limit);
            if (this.#pending === 0) for (const w of this.#idleWaiters.splice(0)) w();
          });
      };
      grp.waiting.push({ key, start });
      this.#pump(group, grp, limit);
    });
  }

  /** Resolves when no task is queued or running. */
  idle(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #pump(group: object, g: Group, limit: number): void {
    const max = Math.max(1, limit);
    const blocked = new Set<string>();
    for (let i = 0; i < g.waiting.length && g.running < max;) {
      const w = g.waiting[i]!;
      // A key queued earlier and still waiting keeps later tasks of that key waiting too.
      if (g.runningKeys.has(w.key) || blocked.has(w.key)) {
        blocked.add(w.key);
        i++;
        continue;
      }
      g.waiting.splice(i, 1);
      w.start();
    }
    if (g.running === 0 && g.waiting.length === 0) this.#groups.delete(group);
  }
}

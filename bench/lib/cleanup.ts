/**
 * Running a benchmark safely: resources released in reverse order at the end, on SIGINT/SIGTERM/SIGHUP
 * and when a whole-run watchdog fires, so no started process (HAProxy, namespaces, servers) outlives it.
 */

/**
 * Resources to release at the end, released in reverse order, each at most once (each bounded to
 * 15 s). A resource added after the clean-up began (a signal arrived mid set-up) is released at once.
 */
export class Cleanup {
  #steps: { name: string; fn: () => Promise<void> }[] = [];
  #running: Promise<void> | null = null;

  /** Registers `fn` (named for error messages) to run at clean-up. */
  add(name: string, fn: () => Promise<void>): void {
    if (this.#running) {
      fn().catch((e: unknown) => console.error(`cleanup: ${name} failed: ${(e as Error).message}`));
      return;
    }
    this.#steps.push({ name, fn });
  }

  /** Releases everything registered, newest first; resolves when done (never rejects). */
  run(): Promise<void> {
    this.#running ??= (async () => {
      for (const step of this.#steps.reverse()) {
        try {
          await Promise.race([
            step.fn(),
            new Promise((_, reject) => setTimeout(() => reject(new Error("timed out after 15 s")), 15_000).unref()),
          ]);
        } catch (e) {
          console.error(`cleanup: ${step.name} failed: ${(e as Error).message}`);
        }
      }
    })();
    return this.#running;
  }
}

/**
 * Runs `body` with a Cleanup that is run when it ends, on a signal (exit 130/143) or after
 * `timeoutMinutes` (exit 1), then exits the process with `body`'s exit code (1 when it threw).
 */
export function runBenchmark(timeoutMinutes: number, body: (cleanup: Cleanup) => Promise<number>): void {
  const cleanup = new Cleanup();
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) return;
    signalled = true;
    console.error(`\n${signal}: cleaning up`);
    void cleanup.run().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, onSignal);
  const watchdog = setTimeout(() => {
    console.error(`watchdog: the run took longer than ${timeoutMinutes} minutes; cleaning up`);
    void cleanup.run().finally(() => process.exit(1));
  }, timeoutMinutes * 60_000);
  void body(cleanup)
    .catch((e: unknown) => {
      console.error(e);
      return 1;
    })
    .then(async (code) => {
      clearTimeout(watchdog);
      await cleanup.run();
      process.exit(code);
    });
}

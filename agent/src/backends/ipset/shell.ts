/**
 * One long-lived `ipset -exist -` process (ipset's interactive mode) per ipset backend, so that a
 * grant costs a line written to a pipe instead of a process started (issue #13 item 1).
 *
 * ipset buffers its stdout when it is a pipe, but writes errors to stderr at once, so a batch is
 * closed by a sentinel that fails with a message naming it: `create postern-sentinel hash:pstnN`
 * ("typename 'hash:pstnN' is unknown"; nothing is created). The batch is done when that message
 * arrives on stderr; as every error arrives on that one pipe in order, the batch went through cleanly
 * exactly when the sentinel's message is all that stderr says. With `-exist`, adding a present
 * address (refreshing its timeout) and deleting an absent one are not errors. Anything else on
 * stderr, the process dying, or no answer within the timeout makes `apply` answer false: the caller
 * then applies the same batch with `ipset restore`, which says line by line what failed (the lines
 * are idempotent, so applying them twice is harmless). The process is restarted by the next batch.
 */
import type { CommandRunner, InteractiveProcess } from "../../process/runner.ts";

/** A long-lived `ipset -exist -` of one backend. */
export class IpsetShell {
  readonly #start: () => InteractiveProcess;
  readonly #timeoutMs: number;
  #proc: InteractiveProcess | null = null;
  #err = "";
  #batch = 0;
  #chain: Promise<unknown> = Promise.resolve();

  /**
   * `runner` must offer `spawn`; `useSudo` runs `sudo -n ipset`. `timeoutMs` bounds one batch
   * (milliseconds; default 5,000).
   */
  constructor(runner: CommandRunner & Required<Pick<CommandRunner, "spawn">>, useSudo: boolean, timeoutMs = 5_000) {
    this.#start = () =>
      useSudo ? runner.spawn("sudo", ["-n", "ipset", "-exist", "-"]) : runner.spawn("ipset", ["-exist", "-"]);
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Writes `lines` (restore lines: `add SET IP [timeout N]`, `del SET IP`) and waits for them to be
   * applied. True when ipset took every line without an error; false when the caller must apply them
   * another way (see the module comment). Batches run one after the other. Never throws.
   */
  apply(lines: readonly string[]): Promise<boolean> {
    const run = this.#chain.then(() => this.#apply(lines));
    this.#chain = run.catch(() => undefined);
    return run.catch(() => false);
  }

  /** Stops the process (by its PID) and waits for it to exit. */
  async close(): Promise<void> {
    const proc = this.#proc;
    this.#proc = null;
    if (!proc) return;
    proc.stdin.end();
    proc.kill();
    await proc.exited;
  }

  async #apply(lines: readonly string[]): Promise<boolean> {
    if (lines.length === 0) return true;
    const proc = this.#ensure();
    const sentinel = `hash:pstn${++this.#batch}`;
    const expected = `typename '${sentinel}' is unknown`;
    this.#err = "";
    let onData: () => void = () => undefined;
    const answered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.#timeoutMs);
      onData = (): void => {
        if (!this.#err.includes(expected)) return;
        clearTimeout(timer);
        resolve(true);
      };
      proc.stderr.on("data", onData);
      void proc.exited.then(() => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    proc.stdin.write(`${lines.join("\n")}\ncreate postern-sentinel ${sentinel}\n`);
    const ok = await answered;
    proc.stderr.off("data", onData);
    if (!ok) {
      await this.close();
      return false;
    }
    // Clean when the sentinel's line is the only thing stderr said for this batch.
    return this.#err.trim().split("\n").length === 1;
  }

  #ensure(): InteractiveProcess {
    if (this.#proc) return this.#proc;
    const proc = this.#start();
    // The prompts and answers on stdout are not needed, but must be read so the pipe never fills.
    proc.stdout.on("data", () => undefined);
    proc.stderr.on("data", (chunk: Buffer | string) => {
      this.#err += chunk.toString();
    });
    void proc.exited.then(() => {
      if (this.#proc === proc) this.#proc = null;
    });
    this.#proc = proc;
    return proc;
  }
}

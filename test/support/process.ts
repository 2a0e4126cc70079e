/**
 * A process a test starts and must stop by its PID (HAProxy, slapd, php -S, ...): keeps the tail of
 * its output for error messages, and stops it with SIGTERM (or the signal given), then SIGKILL after 5 s, waiting for the
 * exit (bounded), then runs the caller's clean-up (e.g. removing its temp dir). `stop` is idempotent.
 */
import { execa } from "execa";

/** A started process. */
export interface ManagedProcess {
  /** The PID (undefined when it could not start). */
  readonly pid: number | undefined;
  /** The last `keepBytes` characters of stdout and stderr together. */
  output(): string;
  /** True once it has exited. */
  exited(): boolean;
  /** Stops it (SIGTERM, SIGKILL after 5 s) and runs `cleanUp`. Idempotent; never throws for a gone process. */
  stop(): Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Starts `command args` (no shell) in `cwd`. */
export function startProcess(
  command: string,
  args: readonly string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    keepBytes?: number;
    cleanUp?: () => Promise<void>;
    /** Run as this user and group id (the caller must be root), e.g. for daemons that refuse root. */
    uid?: number;
    gid?: number;
    /** The signal that asks it to stop (default SIGTERM; PostgreSQL's fast shutdown is SIGINT). */
    stopSignal?: NodeJS.Signals;
  },
): ManagedProcess {
  const child = execa(command, [...args], {
    reject: false,
    stdin: "ignore",
    cwd: opts.cwd,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  const keepBytes = opts.keepBytes ?? 8_000;
  let out = "";
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-keepBytes));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  const done = child.then(
    () => (exited = true),
    () => (exited = true),
  );
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(child.pid, name);
    } catch {
      // already gone
    }
  };
  let stopped: Promise<void> | null = null;
  return {
    pid: child.pid,
    output: () => out,
    exited: () => exited,
    stop: () =>
      (stopped ??= (async () => {
        if (child.pid !== undefined && !exited) {
          signal(opts.stopSignal ?? "SIGTERM");
          if (!(await Promise.race([done.then(() => true), sleep(5_000).then(() => false)]))) {
            signal("SIGKILL");
            await Promise.race([done, sleep(2_000)]);
          }
        }
        await opts.cleanUp?.();
      })()),
  };
}

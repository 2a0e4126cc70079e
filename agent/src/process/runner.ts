/**
 * The process boundary of the agent. Every external command (ipset, sudo, scripts) runs through a
 * `CommandRunner` with an argument array, never a shell. Unit tests substitute a fake runner; the
 * real one uses execa.
 */

/** Result of one command. A non-zero exit code is returned, not thrown. */
export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Options of one command run. `input` is written to stdin; `timeoutMs` kills it when exceeded. */
export interface RunOptions {
  readonly input?: string;
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /**
   * Run the command in its own process group and stop the whole group on timeout or cancellation, so
   * children it started (a script's `sleep`, `curl`) cannot keep it alive (scripts).
   */
  readonly processGroup?: boolean;
}

/**
 * A long-lived process the agent talks to line by line (`ipset -`): its standard streams, its PID,
 * and a promise settled when it has exited. `kill()` stops it (SIGTERM, then SIGKILL).
 */
export interface InteractiveProcess {
  readonly pid: number | undefined;
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  readonly exited: Promise<void>;
  kill(): void;
}

/** Runs an executable with arguments and returns its exit code and output. Throws only when it cannot start. */
export interface CommandRunner {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
  /**
   * Starts an executable (argument array, no shell) that keeps running with its standard streams
   * open. Optional: a runner without it (the fake runner of unit tests) makes callers fall back to
   * one `run` per call.
   */
  spawn?(
    command: string,
    args: readonly string[],
    options?: { env?: Readonly<Record<string, string>> },
  ): InteractiveProcess;
}

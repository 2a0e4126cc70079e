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

/** Runs an executable with arguments and returns its exit code and output. Throws only when it cannot start. */
export interface CommandRunner {
  run(command: string, args: readonly string[], options?: RunOptions): Promise<CommandResult>;
}

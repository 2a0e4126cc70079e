/**
 * The real `CommandRunner`: runs executables through execa with an argument array, never a shell.
 *
 * A non-zero exit, a timeout and a cancellation are all returned as a `CommandResult` (never thrown);
 * only a command that cannot start at all (missing executable, permission denied) throws.
 */
import { spawn } from "node:child_process";
import { execa } from "execa";
import type { CommandResult, CommandRunner, InteractiveProcess, RunOptions } from "./runner.ts";

/** Exit code reported when a command was killed because it exceeded `timeoutMs` (as coreutils `timeout`). */
export const EXIT_TIMED_OUT = 124;
/** Exit code reported when a command was killed because its `signal` was aborted. */
export const EXIT_CANCELLED = 130;

/** Options of an `ExecaRunner`. */
export interface ExecaRunnerOptions {
  /** Timeout in milliseconds applied when a call gives none (default 60,000 ms). 0 disables it. */
  readonly defaultTimeoutMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL when a command is timed out or cancelled (default 2,000 ms). */
  readonly killGraceMs?: number;
}

/** Error thrown when a command cannot be started; `code` is the system error code (e.g. `ENOENT`). */
export class CommandStartError extends Error {
  /** System error code such as `ENOENT` or `EACCES`, when known. */
  readonly code: string | undefined;
  /** The executable that could not be started. */
  readonly command: string;

  /** Builds the error for `command` with the system `code` and the underlying `cause`. */
  constructor(command: string, code: string | undefined, message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "CommandStartError";
    this.command = command;
    this.code = code;
  }
}

/**
 * Runs commands with execa (`reject: false`, no shell).
 *
 * - `input` is written to stdin; without it stdin is closed (`ignore`), so nothing waits on it.
 * - `timeoutMs` (milliseconds) kills the process; the result then has exit code 124 and the reason
 *   appended to stderr.
 * - `signal` aborts the process; the result then has exit code 130.
 * - `env` is added to the agent's own environment (PATH and the rest stay available).
 * - Output is returned as UTF-8 text, unmodified (final newline kept).
 *
 * @throws CommandStartError when the executable cannot be started (e.g. not installed: code ENOENT).
 */
export class ExecaRunner implements CommandRunner {
  readonly #defaultTimeoutMs: number;
  readonly #killGraceMs: number;

  /** Creates a runner; see `ExecaRunnerOptions` for the defaults. */
  constructor(options: ExecaRunnerOptions = {}) {
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 60_000;
    this.#killGraceMs = options.killGraceMs ?? 2_000;
  }

  /** Runs `command` with `args`; see the class documentation for the semantics. */
  async run(command: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
    const timeout = options.timeoutMs ?? this.#defaultTimeoutMs;
    const group = options.processGroup === true;
    const subprocess = execa(command, [...args], {
      reject: false,
      shell: false,
      stripFinalNewline: false,
      encoding: "utf8",
      ...(options.input !== undefined ? { input: options.input } : { stdin: "ignore" as const }),
      ...(timeout > 0 && !group ? { timeout } : {}),
      ...(options.signal && !group ? { cancelSignal: options.signal } : {}),
      ...(options.env ? { env: { ...options.env }, extendEnv: true } : {}),
      ...(group ? { detached: true } : {}),
      forceKillAfterDelay: this.#killGraceMs,
    });
    let groupStop: "timeout" | "cancel" | null = null;
    const timers: NodeJS.Timeout[] = [];
    const stopGroup = (why: "timeout" | "cancel"): void => {
      if (groupStop || subprocess.pid === undefined) return;
      groupStop = why;
      killGroup(subprocess.pid, "SIGTERM");
      timers.push(setTimeout(() => killGroup(subprocess.pid!, "SIGKILL"), this.#killGraceMs));
    };
    const onAbort = (): void => stopGroup("cancel");
    if (group) {
      if (timeout > 0) timers.push(setTimeout(() => stopGroup("timeout"), timeout));
      options.signal?.addEventListener("abort", onAbort, { once: true });
    }
    const result = await subprocess;
    for (const t of timers) clearTimeout(t);
    options.signal?.removeEventListener("abort", onAbort);
    const stdout = typeof result.stdout === "string" ? result.stdout : "";
    const stderr = typeof result.stderr === "string" ? result.stderr : "";
    if (groupStop === "timeout")
      return {
        exitCode: EXIT_TIMED_OUT,
        stdout,
        stderr: appendLine(stderr, `${command}: timed out after ${timeout} ms`),
      };
    if (groupStop === "cancel")
      return { exitCode: EXIT_CANCELLED, stdout, stderr: appendLine(stderr, `${command}: cancelled`) };
    if (typeof result.exitCode === "number") return { exitCode: result.exitCode, stdout, stderr };
    if (result.timedOut) {
      return {
        exitCode: EXIT_TIMED_OUT,
        stdout,
        stderr: appendLine(stderr, `${command}: timed out after ${timeout} ms`),
      };
    }
    if (result.isCanceled) {
      return { exitCode: EXIT_CANCELLED, stdout, stderr: appendLine(stderr, `${command}: cancelled`) };
    }
    if (result.signal) {
      return {
        exitCode: 128 + signalNumber(result.signal),
        stdout,
        stderr: appendLine(stderr, `${command}: killed by ${result.signal}`),
      };
    }
    // No exit code, no signal, not timed out: the process never started.
    const cause = result.cause;
    const code =
      typeof (cause as { code?: unknown } | undefined)?.code === "string"
        ? (cause as { code: string }).code
        : undefined;
    throw new CommandStartError(
      command,
      code,
      `cannot run ${command}: ${code ?? (cause instanceof Error ? cause.message : "failed to start")}`,
      cause,
    );
  }

  /**
   * Starts `command` with `args` (no shell) with piped standard streams, kept running until it exits
   * or `kill()` stops it (SIGTERM, SIGKILL after the kill grace). A process that cannot start settles
   * `exited` at once (its error arrives as an "error" event, not thrown).
   */
  spawn(
    command: string,
    args: readonly string[],
    options: { env?: Readonly<Record<string, string>> } = {},
  ): InteractiveProcess {
    const child = spawn(command, [...args], {
      shell: false,
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    const exited = new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    // A write to a process that has gone away must not crash the agent.
    child.stdin.on("error", () => undefined);
    return {
      pid: child.pid,
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      exited,
      kill: () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill("SIGTERM");
        const force = setTimeout(() => child.kill("SIGKILL"), this.#killGraceMs);
        force.unref();
        void exited.then(() => clearTimeout(force));
      },
    };
  }
}

/** Sends `signal` to the process group led by `pid`; a group already gone is ignored. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group has exited
  }
}

function appendLine(text: string, line: string): string {
  if (text === "") return `${line}\n`;
  return text.endsWith("\n") ? `${text}${line}\n` : `${text}\n${line}\n`;
}

const SIGNALS: Readonly<Record<string, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGABRT: 6,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGTERM: 15,
};

function signalNumber(signal: string): number {
  return SIGNALS[signal] ?? 0;
}

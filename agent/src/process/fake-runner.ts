/**
 * A scripted `CommandRunner` for unit tests: it records every call and answers from a queue of
 * results, then from handlers matched against the command line. It fakes the process boundary only;
 * the logic under test runs for real.
 */
import { CommandStartError } from "./execa-runner.ts";
import type { CommandResult, CommandRunner, RunOptions } from "./runner.ts";

/** One recorded call: executable, arguments and options exactly as the code under test passed them. */
export interface RecordedCall {
  readonly command: string;
  readonly args: readonly string[];
  readonly options: RunOptions;
  /** `command` and `args` joined by single spaces, handy for matching and assertions. */
  readonly line: string;
}

/** What a fake answers: a result (missing fields default to exit 0 and empty output) or an Error to throw. */
export type FakeAnswer = Partial<CommandResult> | Error;

/** Computes the answer to one call (may be async); throwing simulates a command that cannot start. */
export type FakeHandler = (call: RecordedCall) => FakeAnswer | Promise<FakeAnswer>;

/** Selects calls: a prefix of `line`, a RegExp tested against `line`, or a predicate. */
export type FakeMatcher = string | RegExp | ((call: RecordedCall) => boolean);

/**
 * A fake runner. Answers, in order of precedence:
 * 1. the next queued answer (`enqueue`), first in first out;
 * 2. the first handler whose matcher selects the call (`on`), in registration order;
 * 3. otherwise it throws, so an unexpected command fails the test.
 */
export class FakeRunner implements CommandRunner {
  /** Every call made so far, in order. */
  readonly calls: RecordedCall[] = [];
  readonly #queue: FakeAnswer[] = [];
  readonly #handlers: { match: FakeMatcher; handler: FakeHandler }[] = [];

  /** Queues answers given to the next calls regardless of the command. Returns `this`. */
  enqueue(...answers: FakeAnswer[]): this {
    this.#queue.push(...answers);
    return this;
  }

  /** Registers an answer (fixed, or computed by a handler) for calls selected by `match`. Returns `this`. */
  on(match: FakeMatcher, answer: FakeHandler | FakeAnswer): this {
    const handler: FakeHandler = typeof answer === "function" ? answer : () => answer;
    this.#handlers.push({ match, handler });
    return this;
  }

  /** The recorded calls selected by `match`. */
  callsMatching(match: FakeMatcher): RecordedCall[] {
    return this.calls.filter((c) => matches(match, c));
  }

  /** Records the call and answers it; see the class documentation. Throws when the answer is an Error. */
  async run(command: string, args: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
    const call: RecordedCall = { command, args: [...args], options, line: [command, ...args].join(" ") };
    this.calls.push(call);
    let answer: FakeAnswer | undefined = this.#queue.shift();
    if (answer === undefined) {
      const entry = this.#handlers.find((h) => matches(h.match, call));
      if (!entry) throw new Error(`FakeRunner: no answer scripted for "${call.line}"`);
      answer = await entry.handler(call);
    }
    if (answer instanceof Error) throw answer;
    return { exitCode: answer.exitCode ?? 0, stdout: answer.stdout ?? "", stderr: answer.stderr ?? "" };
  }
}

/** The error the real runner throws when an executable is missing (a `CommandStartError`, code ENOENT). */
export function missingCommand(command: string): CommandStartError {
  return new CommandStartError(command, "ENOENT", `cannot run ${command}: ENOENT`);
}

function matches(match: FakeMatcher, call: RecordedCall): boolean {
  if (typeof match === "string") return call.line === match || call.line.startsWith(`${match} `);
  if (match instanceof RegExp) return match.test(call.line);
  return match(call);
}

/**
 * Reading an ipset set's members line by line (issue #13 item 7: the drift check re-reads every set
 * every few seconds; a set of 10,000 members as one 250 kB output string, a line array and a member
 * array was megabytes of garbage that V8 kept resident until its next full collection).
 *
 * `IpsetSaveReader` takes `ipset list SET -output save` output in chunks as they arrive and reports
 * the member of each `add SET MEMBER ...` line; `streamIpsetList` runs that command as a process
 * (`CommandRunner.spawn`) and feeds its stdout to a reader as it is written.
 */
import { normaliseIp } from "@postern/shared";
import type { InteractiveProcess } from "../../process/runner.ts";
import { ChunkLines } from "../chunk-lines.ts";

/**
 * Reads `ipset list SET -output save` / `ipset save SET` output given in chunks (`push` each, in order,
 * then `end`), calling `fn` with the member of every `add SET MEMBER` line: addresses normalised (IPv6
 * canonical, IPv4-mapped to IPv4), other members (CIDRs) as printed. Only a line cut between two
 * chunks is put together; no line array.
 */
export class IpsetSaveReader {
  readonly #fn: (member: string) => void;
  readonly #lines = new ChunkLines((text, start, end) => this.#line(text.slice(start, end)));

  /** `fn` is called with each member, in order. */
  constructor(fn: (member: string) => void) {
    this.#fn = fn;
  }

  /** Reads the next chunk of the output. */
  push(chunk: string): void {
    this.#lines.push(chunk);
  }

  /** The output is complete: reads a last line that ended without a newline. */
  end(): void {
    this.#lines.end();
  }

  #line(text: string): void {
    const line = text.trim();
    if (!line.startsWith("add ")) return;
    const setEnd = line.indexOf(" ", 4);
    if (setEnd <= 4) return;
    let end = line.indexOf(" ", setEnd + 1);
    if (end < 0) end = line.length;
    const member = line.slice(setEnd + 1, end);
    if (member === "") return;
    this.#fn(normaliseIp(member)?.ip ?? member);
  }
}

/**
 * Runs `start()` (a process printing `ipset list SET -output save`), hands its stdout to `fn` member by
 * member as it arrives (IpsetSaveReader), and resolves once the process exited and its output ended:
 * to null, or to why the listing failed (ipset's message, the first 4 kB of stderr: ipset reports
 * every failure there, e.g. a missing set; or that it could not be started or timed out), when `fn`
 * may have been called for some members already. `timeoutMs` (MILLISECONDS) bounds the whole
 * listing: the process is killed then.
 * @throws what `fn` threw (the output is still read to its end).
 */
export async function streamIpsetList(
  start: () => InteractiveProcess,
  timeoutMs: number,
  fn: (member: string) => void,
): Promise<string | null> {
  const proc = start();
  proc.stdin.end();
  let failure: { error: unknown } | null = null;
  const reader = new IpsetSaveReader((member) => {
    if (failure) return;
    try {
      fn(member);
    } catch (error) {
      failure = { error };
    }
  });
  let stderr = "";
  proc.stdout.setEncoding("utf8");
  proc.stderr.setEncoding("utf8");
  proc.stdout.on("data", (chunk: string) => reader.push(chunk));
  proc.stderr.on("data", (chunk: string) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  const ended = new Promise<void>((resolve) => {
    proc.stdout.once("end", resolve);
    proc.stdout.once("close", resolve);
    proc.stdout.once("error", () => resolve());
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), timeoutMs);
  });
  const late = await Promise.race([Promise.all([proc.exited, ended]).then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) {
    proc.kill();
    return `no complete answer within ${timeoutMs} ms`;
  }
  reader.end();
  if (proc.pid === undefined) return `ipset could not be started${stderr ? `: ${stderr.trim()}` : ""}`;
  if (stderr.trim() !== "") return stderr.trim();
  if (failure) throw (failure as { error: unknown }).error;
  return null;
}

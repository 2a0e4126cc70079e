/**
 * The HAProxy enforcement backend (docs/reference.md design "Agent protocol").
 *
 * Talks the HAProxy runtime API directly over node:net, on a unix socket (`Protocol: "unix"`, `Address`
 * = socket path) or TCP (`Protocol: "tcp"`, `Address` = `host:port` or `[v6]:port`), in interactive
 * `prompt` mode so several commands are pipelined and each answer is read on its own (every answer
 * ends with the `\n> ` prompt). Commands used: `show info`, `show acl` (find the file behind `#ID`),
 * `get acl #ID IP` (look one address up), `add acl #ID IP`, `del acl #ID IP`, `show acl #ID` (list).
 *
 * One connection per runtime address is KEPT between calls (issue #13 item 1; docs/decisions.md "The
 * HAProxy backend keeps its runtime API session"), used by one call at a time, reopened when it failed
 * or closed, closed after `idleCloseMs` (default 5 s) unused and by `close()`. `show acl` is read once
 * per connection. A call's first batch is reads only, or adds of addresses believed absent (below):
 * on a kept connection it starts with `show info` (an HAProxy that is `Stopping` after a reload keeps
 * its old CLI connections: the call moves to a new connection, which reaches the new process), and it
 * is repeated once on a new connection when the kept one turns out closed before answering. Other adds
 * and deletes are never resent.
 *
 * The runtime API is the live path: a change is answered as soon as HAProxy took it. HAProxy forgets
 * runtime changes on reload, so the backend also keeps the ACL FILE behind `#ID` in step: within
 * `fileSyncDelayMs` (default 500 ms) of a change, once for all the changes of that time, it reads the
 * live entries back (`show acl #ID`, the whole list) and rewrites the file atomically (temp file in the
 * same directory, fsync, rename; issue #13 item 1: no fsync per change). A reload then loads the same
 * set (and the agent's drift check repairs anything a reload in between dropped). A file that cannot
 * be written is reported on the entries of the next change to that ACL (and retried then).
 * `fileSyncDelayMs: 0` writes the file before answering. HAProxy has no native expiry: this backend
 * only adds and removes; removing entries on time is the daemon's job.
 *
 * HAProxy keeps patterns as text (`add acl` twice stores two copies; `del acl` matches the text and
 * removes every copy with it). The backend therefore looks each wanted address up first (`get acl`,
 * one per address, pipelined: HAProxy answers the longest-prefix match as stored, so only a pattern
 * that is the address itself — normalised, also as `/32` or `/128` — counts, never a subnet holding
 * it), adds only addresses not present, and on remove deletes the stored text `get acl` names and
 * looks again, until no exact form is left (at most 8 rounds): every textual form goes. Addresses the
 * enforcer believes absent (`AddHints`: not held by this agent before the change, or just listed
 * missing) are added without the look-up, in the call's first round trip (issue #13, the grant path):
 * when the belief was wrong, HAProxy holds a second copy of the same text, which `del acl` removes
 * with the first and the ACL file rewrite writes once.
 */
import { createConnection } from "node:net";
import type { Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { open, readFile, rename, stat, unlink, chown } from "node:fs/promises";
import { basename, dirname, isAbsolute, join } from "node:path";
import type { Entry, Target } from "@postern/shared";
import type { AddHints, Backend, EntryOutcome } from "../backend.ts";
import { canonicalIp } from "../../ip.ts";
import { ChunkLines } from "../chunk-lines.ts";

/** Where the runtime API listens: a unix socket path, or a TCP host and port. */
export type RuntimeAddress = { readonly path: string } | { readonly host: string; readonly port: number };

/** Timeouts of runtime API sessions, in MILLISECONDS. */
export interface HaproxyTimeouts {
  /** Longest wait for the connection to open (default 2,000 ms). */
  readonly connectTimeoutMs?: number;
  /** Longest silence while an answer is awaited (default 5,000 ms); the session then fails. */
  readonly readTimeoutMs?: number;
}

/** Options of a `HaproxyBackend`. */
export interface HaproxyBackendOptions extends HaproxyTimeouts {
  /** Commands written before waiting for their answers (default 1,000); bounds memory on huge batches. */
  readonly pipelineDepth?: number;
  /** MILLISECONDS between a change and the ACL file rewrite that follows it (default 500; 0: before answering). */
  readonly fileSyncDelayMs?: number;
  /** MILLISECONDS a kept runtime API session may stay unused before the backend closes it (default 5,000). */
  readonly idleCloseMs?: number;
}

/** A pending or failed rewrite of the file behind one ACL. */
interface FileSync {
  readonly address: RuntimeAddress;
  readonly id: number;
  readonly file: string;
  timer: NodeJS.Timeout | null;
  /** Why the last rewrite failed (reported on the next change), or null. */
  error: string | null;
}

/** One row of `show acl`: the numeric id, the file it was loaded from (null when inline) and its description. */
export interface AclReference {
  readonly id: number;
  readonly file: string | null;
  readonly description: string;
}

/** The first line of every ACL file the backend writes (HAProxy skips `#` lines in pattern files). */
export const ACL_FILE_HEADER = "# Managed by postern-agent: rewritten on every change, manual edits are lost.";

/**
 * Parses the runtime address of a haproxy BackendConfig. `unix`: the path as given. `tcp`: `host:port`
 * or `[ipv6]:port`.
 * @throws Error when a tcp address has no valid port (1–65535).
 */
export function parseRuntimeAddress(config: {
  readonly Protocol: "unix" | "tcp";
  readonly Address: string;
}): RuntimeAddress {
  const address = config.Address.trim();
  if (config.Protocol === "unix") return { path: address };
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  const port = Number(m?.[2]);
  if (!m?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`invalid HAProxy runtime API address "${address}": expected host:port`);
  }
  return { host: m[1], port };
}

/**
 * Parses `show acl` (no argument): one `AclReference` per row `ID (FILE) DESCRIPTION`. `file` is set
 * only for ACLs loaded from a file (`pattern loaded from file ...`), null for inline ones.
 */
export function parseAclReferences(text: string): AclReference[] {
  const out: AclReference[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    const fromFile = /^(\d+) \((.*)\) (pattern loaded from file .*)$/.exec(line);
    if (fromFile?.[1] && fromFile[2] !== undefined) {
      out.push({ id: Number(fromFile[1]), file: fromFile[2] || null, description: fromFile[3] ?? "" });
      continue;
    }
    const other = /^(\d+) \((.*?)\) ?(.*)$/.exec(line);
    if (other?.[1]) out.push({ id: Number(other[1]), file: null, description: other[3] ?? "" });
  }
  return out;
}

/**
 * Parses `show acl #ID` (its text, or its parts as `sendParts` gives them): the pattern text of each
 * `0xADDR PATTERN` row, as HAProxy stores it (not normalised).
 */
export function parseAclEntries(answer: string | readonly string[]): string[] {
  const out: string[] = [];
  forEachAclEntry(typeof answer === "string" ? [answer] : answer, (pattern) => out.push(pattern));
  return out;
}

/**
 * Calls `fn` with the pattern text of each `0xADDR PATTERN` row of a `show acl #ID` answer given as
 * its parts (RuntimeSession `sendParts`), in order (see `AclRowReader`).
 */
function forEachAclEntry(parts: readonly string[], fn: (pattern: string) => void): void {
  const rows = new AclRowReader(fn);
  for (const part of parts) rows.push(part);
  rows.end();
}

/**
 * Reads the rows of a `show acl #ID` answer as its parts arrive (`push` each part, in order, then
 * `end`), calling `fn` with the pattern text of each `0xADDR PATTERN` row, as HAProxy stores it. One
 * pass without a line array or a match per row, and without joining the parts: the drift check reads
 * every ACL every few seconds, 10,000 rows each in bench/memory.ts, and a joined 270 kB answer is a
 * large object V8 frees only at its next full collection (issue #13 items 4 and 7). Only a row cut
 * between two parts is put together.
 */
export class AclRowReader {
  readonly #lines: ChunkLines;

  /** `fn` is called with each row's pattern text, in order. */
  constructor(fn: (pattern: string) => void) {
    this.#lines = new ChunkLines((text, start, end) => aclEntryOfRow(text, start, end, fn));
  }

  /** Reads the next part of the answer. */
  push(part: string): void {
    this.#lines.push(part);
  }

  /** The answer is complete: reads a last row that ended without a newline. */
  end(): void {
    this.#lines.end();
  }
}

/** Calls `fn` with the pattern of the row `text[at, end)` when it is a `0xADDR PATTERN` row. */
function aclEntryOfRow(text: string, at: number, end: number, fn: (pattern: string) => void): void {
  let from = at;
  while (from < end && isBlank(text.charCodeAt(from))) from++;
  let to = end;
  while (to > from && isBlank(text.charCodeAt(to - 1))) to--;
  // `0x`, at least one hex digit, one space, then the pattern.
  if (to - from < 5 || text.charCodeAt(from) !== 48 || text.charCodeAt(from + 1) !== 120) return;
  let space = from + 2;
  while (space < to && isHexDigit(text.charCodeAt(space))) space++;
  if (space === from + 2 || space >= to - 1 || text.charCodeAt(space) !== 32) return;
  let start = space + 1;
  while (start < to && isBlank(text.charCodeAt(start))) start++;
  if (start < to) fn(text.slice(start, to));
}

/** True for the characters `trim()` removes that HAProxy's answers contain (space, tab, CR). */
function isBlank(c: number): boolean {
  return c === 32 || c === 9 || c === 13;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102);
}

/** The runtime API connection closed or failed (not a read timeout): a read may be repeated on a new one. */
export class ConnectionLostError extends Error {}

/**
 * One runtime API connection in interactive (`prompt`) mode. `send` pipelines commands and resolves
 * with one answer per command (its text without the trailing blank line; "" when HAProxy printed
 * nothing, which for add/del means success).
 */
export class RuntimeSession {
  readonly #socket: Socket;
  readonly #readTimeoutMs: number;
  readonly #splitter = new PromptSplitter();
  readonly #answers: string[][] = [];
  #waiter: { count: number; resolve: (a: string[][]) => void; reject: (e: Error) => void } | null = null;
  #timer: NodeJS.Timeout | null = null;
  #error: Error | null = null;

  private constructor(socket: Socket, readTimeoutMs: number) {
    this.#socket = socket;
    this.#readTimeoutMs = readTimeoutMs;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.#onData(chunk));
    socket.on("error", (e) => this.#fail(new ConnectionLostError(`HAProxy runtime API: ${e.message}`)));
    socket.on("close", () => this.#fail(new ConnectionLostError("HAProxy runtime API closed the connection")));
  }

  /**
   * Connects (bounded by `connectTimeoutMs`) and enters prompt mode.
   * @throws Error when the connection is refused, times out, or HAProxy does not answer the prompt.
   */
  static async open(address: RuntimeAddress, timeouts: HaproxyTimeouts = {}): Promise<RuntimeSession> {
    const connectTimeoutMs = timeouts.connectTimeoutMs ?? 2_000;
    const where = "path" in address ? address.path : `${address.host}:${address.port}`;
    const session = await new Promise<RuntimeSession>((resolve, reject) => {
      const s =
        "path" in address
          ? createConnection({ path: address.path })
          : createConnection({ host: address.host, port: address.port });
      const onError = (e: Error): void => {
        clearTimeout(timer);
        s.destroy();
        reject(new Error(`HAProxy runtime API ${where}: ${e.message}`));
      };
      const timer = setTimeout(() => {
        s.off("error", onError);
        s.destroy();
        reject(new Error(`HAProxy runtime API ${where}: connect timed out after ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      s.once("error", onError);
      s.once("connect", () => {
        clearTimeout(timer);
        s.off("error", onError);
        // The session attaches its own error handler synchronously, before any further event.
        resolve(new RuntimeSession(s, timeouts.readTimeoutMs ?? 5_000));
      });
    });
    try {
      await session.send(["prompt"]);
    } catch (e) {
      session.close();
      throw e;
    }
    return session;
  }

  /**
   * Sends commands (one per line) and resolves with their answers, in order.
   * @throws Error when the connection fails, closes, or stays silent longer than the read timeout.
   */
  async send(commands: readonly string[]): Promise<string[]> {
    return (await this.sendParts(commands)).map(joinAnswer);
  }

  /**
   * Like `send`, each answer as the parts it arrived in (PromptSplitter): a long answer (`show acl #ID`)
   * is read without ever being one string.
   * @throws Error as `send`.
   */
  async sendParts(commands: readonly string[]): Promise<string[][]> {
    if (commands.length === 0) return [];
    if (this.#error) throw this.#error;
    if (this.#waiter) throw new Error("RuntimeSession.send called while another send is in flight");
    for (const c of commands)
      if (/[\n\r;]/.test(c)) throw new Error(`refusing unsafe runtime API command ${JSON.stringify(c)}`);
    const done = new Promise<string[][]>((resolve, reject) => {
      this.#waiter = { count: commands.length, resolve, reject };
    });
    this.#arm();
    this.#socket.write(commands.join("\n") + "\n");
    this.#drain();
    return done;
  }

  /**
   * Sends one command and hands its answer to `onPart` piece by piece as it arrives (PromptSplitter
   * `sink`), keeping none of it; resolves once the answer is complete. For a long read (`show acl
   * #ID`, issue #13 item 7): no part of the answer outlives the socket read it came with.
   * @throws Error as `send`, or what `onPart` threw (the answer is still read to its end).
   */
  async stream(command: string, onPart: (part: string) => void): Promise<void> {
    if (this.#waiter) throw new Error("RuntimeSession.stream called while another send is in flight");
    let failure: { error: unknown } | null = null;
    this.#splitter.sink = (part) => {
      if (failure) return;
      try {
        onPart(part);
      } catch (error) {
        failure = { error };
      }
    };
    try {
      await this.sendParts([command]);
    } finally {
      this.#splitter.sink = null;
    }
    if (failure) throw (failure as { error: unknown }).error;
  }

  /** False once the connection failed, closed or timed out: the session cannot be used again. */
  get alive(): boolean {
    return this.#error === null && !this.#socket.destroyed;
  }

  /** Leaves the session (`quit`) and closes the connection. Never throws. */
  close(): void {
    this.#clearTimer();
    this.#waiter = null;
    this.#error ??= new Error("session closed");
    if (!this.#socket.destroyed) {
      this.#socket.end("quit\n");
      setTimeout(() => this.#socket.destroy(), 1_000).unref();
    }
  }

  #onData(chunk: string): void {
    for (const answer of this.#splitter.push(chunk)) this.#answers.push(answer);
    if (this.#waiter) this.#arm();
    this.#drain();
  }

  #drain(): void {
    const w = this.#waiter;
    if (!w || this.#answers.length < w.count) return;
    this.#waiter = null;
    this.#clearTimer();
    w.resolve(this.#answers.splice(0, w.count));
  }

  #fail(e: Error): void {
    this.#error ??= e;
    this.#clearTimer();
    const w = this.#waiter;
    this.#waiter = null;
    w?.reject(e);
  }

  #arm(): void {
    this.#clearTimer();
    this.#timer = setTimeout(() => {
      this.#fail(new Error(`HAProxy runtime API: no answer within ${this.#readTimeoutMs} ms`));
      this.#socket.destroy();
    }, this.#readTimeoutMs);
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/**
 * Splits a prompt-mode runtime API stream into answers at each `\n> ` prompt, each answer as the parts
 * it arrived in (no part empty), without its trailing newlines (`joinAnswer` makes it one string). Only
 * each new chunk (with the two characters before it, where a prompt may begin) is searched: appending
 * every chunk to one string flattened and searched a 270 kB `show acl` answer again per 64 kB read,
 * megabytes of garbage per drift check (issue #13 item 4).
 */
export class PromptSplitter {
  #parts: string[] = [];
  /** The last two characters received since the last prompt. */
  #tail = "";
  /**
   * When set, the answer being read is handed to it as it arrives instead of being kept: every part
   * but its last two characters (where a prompt may begin) at once, the rest when the prompt arrives
   * (trailing newlines may have been handed on already); that answer is then given as no parts. It is cleared at the
   * end of that answer, so it applies to one answer only.
   */
  sink: ((part: string) => void) | null = null;

  /** Takes the next chunk of the stream; returns the answers it completed, in order. */
  push(chunk: string): string[][] {
    const answers: string[][] = [];
    let rest = chunk;
    for (;;) {
      const carry = this.#tail;
      const at = (carry + rest).indexOf("\n> ");
      if (at < 0) {
        if (rest !== "") this.#parts.push(rest);
        this.#tail = (carry + rest).slice(-2);
        if (this.sink) this.#handOn(this.sink);
        return answers;
      }
      // Where the prompt starts in `rest`; -1 or -2 when it began in the parts already kept.
      const cut = at - carry.length;
      if (cut > 0) this.#parts.push(rest.slice(0, cut));
      const answer = trimAnswer(this.#parts, cut < 0 ? -cut : 0);
      const sink = this.sink;
      this.sink = null;
      if (sink) for (const part of answer) sink(part);
      answers.push(sink ? [] : answer);
      this.#parts = [];
      this.#tail = "";
      rest = rest.slice(cut + 3);
    }
  }

  /** Hands every kept part but the last two characters to `sink`; keeps those two. */
  #handOn(sink: (part: string) => void): void {
    const parts = this.#parts;
    const kept: string[] = [];
    let keep = 2;
    while (keep > 0 && parts.length > 0) {
      const last = parts.pop() as string;
      if (last.length <= keep) {
        kept.unshift(last);
        keep -= last.length;
      } else {
        kept.unshift(last.slice(last.length - keep));
        parts.push(last.slice(0, last.length - keep));
        keep = 0;
      }
    }
    this.#parts = kept;
    for (const part of parts) sink(part);
  }
}

/** An answer as one string. */
export function joinAnswer(parts: readonly string[]): string {
  return parts.length === 1 ? (parts[0] as string) : parts.join("");
}

/** `parts` without their last `drop` characters and then without trailing newlines; no part left empty. */
function trimAnswer(parts: string[], drop: number): string[] {
  let left = drop;
  while (parts.length > 0) {
    const last = parts[parts.length - 1] as string;
    const dropped = Math.min(left, last.length);
    left -= dropped;
    let end = last.length - dropped;
    if (left === 0) while (end > 0 && last.charCodeAt(end - 1) === 10) end--;
    if (end > 0) {
      if (end < last.length) parts[parts.length - 1] = last.slice(0, end);
      return parts;
    }
    parts.pop();
  }
  return parts;
}

/**
 * Writes `entries` (one per line, after `ACL_FILE_HEADER`) to `file` atomically: a temp file in the same
 * directory, fsync, the previous file's mode and owner, then rename over `file`. Does nothing when the
 * file already has exactly that content. Returns true when it wrote.
 * @throws Error (fs errors such as EACCES) when the file cannot be written.
 */
export async function writeAclFileAtomically(file: string, entries: Iterable<string>): Promise<boolean> {
  const content = [ACL_FILE_HEADER, ...entries].join("\n") + "\n";
  const old = await stat(file).catch(() => null);
  // Read back only when the size matches (after a change it rarely does): 270 kB with 10,000 entries.
  const current = old?.size === Buffer.byteLength(content) ? await readFile(file, "utf8").catch(() => null) : null;
  if (current === content) return false;
  const tmp = join(dirname(file), `.${basename(file)}.postern-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(tmp, "wx", old ? old.mode & 0o7777 : 0o644);
  try {
    await handle.writeFile(content, "utf8");
    await handle.sync();
    if (old) await handle.chmod(old.mode & 0o7777);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await handle.close();
  try {
    if (old && (process.getuid?.() ?? -1) === 0) await chown(tmp, old.uid, old.gid).catch(() => undefined);
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  return true;
}

/**
 * The runtime API session kept open for one runtime address between calls (issue #13 item 1), used by
 * one call at a time (`use`). It is opened on demand, replaced when it failed or closed, and closed
 * after `idleCloseMs` without a call (HAProxy's `stats timeout`, default 10 s, would close it anyway).
 * It remembers `show acl` (the ACL ids and their files) for as long as the connection lives.
 */
class KeptSession {
  readonly #address: RuntimeAddress;
  readonly #timeouts: HaproxyTimeouts;
  readonly #idleCloseMs: number;
  readonly #pipelineDepth: number;
  #session: RuntimeSession | null = null;
  /** `show acl` as read on `#session`, or null when not read yet. */
  #refs: AclReference[] | null = null;
  /** Calls that finished on `#session`: a session with none was opened by the running call. */
  #calls = 0;
  #idle: NodeJS.Timeout | null = null;
  #chain: Promise<void> = Promise.resolve();

  constructor(address: RuntimeAddress, timeouts: HaproxyTimeouts, idleCloseMs: number, pipelineDepth: number) {
    this.#address = address;
    this.#timeouts = timeouts;
    this.#idleCloseMs = idleCloseMs;
    this.#pipelineDepth = pipelineDepth;
  }

  /** Runs `fn` with the session once every earlier call finished; closes the session when idle afterwards. */
  async use<T>(fn: (lease: Lease) => Promise<T>): Promise<T> {
    const previous = this.#chain;
    let release = (): void => undefined;
    this.#chain = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#clearIdle();
    try {
      return await fn(new Lease(this, this.#pipelineDepth));
    } finally {
      if (this.#session?.alive) {
        this.#calls++;
        this.#idle = setTimeout(() => this.#drop(), this.#idleCloseMs);
        this.#idle.unref();
      } else this.#drop();
      release();
    }
  }

  /** Closes the session once the running calls finished. Never throws. */
  async close(): Promise<void> {
    await this.use(() => Promise.resolve());
    this.#clearIdle();
    this.#drop();
  }

  /** The open session (`reused`: an earlier call used it), or a new one. @throws Error when none can be opened. */
  async checkout(): Promise<{ session: RuntimeSession; reused: boolean }> {
    if (this.#session?.alive) return { session: this.#session, reused: this.#calls > 0 };
    this.#drop();
    this.#session = await RuntimeSession.open(this.#address, this.#timeouts);
    return { session: this.#session, reused: false };
  }

  /** `show acl` of the current session, or null when it was not read on it yet. */
  get refs(): AclReference[] | null {
    return this.#refs;
  }

  set refs(refs: AclReference[]) {
    this.#refs = refs;
  }

  /** Closes the current session (failed, stale or idle); the next checkout opens a new one. */
  #drop(): void {
    this.#clearIdle();
    this.#session?.close();
    this.#session = null;
    this.#refs = null;
    this.#calls = 0;
  }

  /** Drops `session` when it is still the current one (it failed or talks to a stopping HAProxy). */
  discard(session: RuntimeSession): void {
    if (this.#session === session) this.#drop();
    else session.close();
  }

  #clearIdle(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
  }
}

/**
 * One call's use of a `KeptSession`. The FIRST `send` of a lease must be reads only (`show`, `get`)
 * or adds of addresses believed absent (AddHints): on a kept session it is preceded by `show info` (a
 * process that is `Stopping` after a reload keeps its CLI connections: the lease then moves to a new
 * connection, to the new process) and, once per session, by `show acl`; when the kept connection turns
 * out closed before answering, it is repeated once on a new connection. Repeating such an add, or
 * having sent it to the stopping process, stores at most a second copy of its text, which `del acl`
 * removes with the first. Later sends stay on that connection and are never repeated.
 */
class Lease {
  readonly #kept: KeptSession;
  readonly #pipelineDepth: number;
  #session: RuntimeSession | null = null;
  #refs: AclReference[] = [];

  constructor(kept: KeptSession, pipelineDepth: number) {
    this.#kept = kept;
    this.#pipelineDepth = pipelineDepth;
  }

  /** `show acl` of the HAProxy this lease talks to (read with the first send). */
  get refs(): AclReference[] {
    return this.#refs;
  }

  /**
   * Sends commands, at most `pipelineDepth` per round trip, and resolves with one answer per command.
   * @throws Error when the runtime API cannot be reached, closes or times out (the session is then dropped).
   */
  async send(commands: readonly string[]): Promise<string[]> {
    return (await this.sendParts(commands)).map(joinAnswer);
  }

  /** Like `send`, each answer as its parts (RuntimeSession `sendParts`). @throws Error as `send`. */
  async sendParts(commands: readonly string[]): Promise<string[][]> {
    if (this.#session === null) return this.#first(commands);
    const session = this.#session;
    const out: string[][] = [];
    try {
      for (let i = 0; i < commands.length; i += this.#pipelineDepth)
        out.push(...(await session.sendParts(commands.slice(i, i + this.#pipelineDepth))));
    } catch (e) {
      this.#kept.discard(session);
      throw e;
    }
    return out;
  }

  /**
   * Sends one read command (`show acl #ID`) and hands its answer to `onPart` as it arrives
   * (RuntimeSession `stream`). When it is the lease's first, an empty first send comes before it
   * (the `show info` / `show acl` check on the kept connection; one more round trip).
   * @throws Error as `send`, or what `onPart` threw.
   */
  async stream(command: string, onPart: (part: string) => void): Promise<void> {
    if (this.#session === null) await this.sendParts([]);
    const session = this.#session as RuntimeSession | null;
    if (session === null) throw new Error("HAProxy runtime API: no session after the first send");
    try {
      await session.stream(command, onPart);
    } catch (e) {
      if (!session.alive) this.#kept.discard(session);
      throw e;
    }
  }

  async #first(commands: readonly string[]): Promise<string[][]> {
    const head = commands.slice(0, this.#pipelineDepth);
    for (let attempt = 0; ; attempt++) {
      const { session, reused } = await this.#kept.checkout();
      const known = this.#kept.refs;
      const prefix = [...(reused ? ["show info"] : []), ...(known ? [] : ["show acl"])];
      let answers: string[][];
      try {
        answers = await session.sendParts([...prefix, ...head]);
      } catch (e) {
        this.#kept.discard(session);
        if (attempt === 0 && reused && e instanceof ConnectionLostError) continue;
        throw e;
      }
      if (reused && /^Stopping: 1$/m.test(joinAnswer(answers.shift() ?? []))) {
        this.#kept.discard(session);
        continue; // the new connection reaches the new process (reused is false then)
      }
      this.#refs = known ?? parseAclReferences(joinAnswer(answers.shift() ?? []));
      this.#kept.refs = this.#refs;
      this.#session = session;
      return [...answers, ...(await this.sendParts(commands.slice(head.length)))];
    }
  }
}

/**
 * Enforces entries in an HAProxy ACL `#ID` over the runtime API. See the module documentation.
 * `add`/`remove` throw only when the runtime API cannot be reached (connection refused, timeout);
 * everything else is reported per address.
 */
export class HaproxyBackend implements Backend {
  /** The BackendConfig key handled: `haproxy`. */
  readonly type = "haproxy";
  readonly #timeouts: HaproxyTimeouts;
  readonly #pipelineDepth: number;
  readonly #fileSyncDelayMs: number;
  readonly #idleCloseMs: number;
  readonly #locks = new Map<string, Promise<unknown>>();
  readonly #files = new Map<string, FileSync>();
  readonly #kept = new Map<string, KeptSession>();

  /** Creates the backend; see `HaproxyBackendOptions` for the defaults. */
  constructor(options: HaproxyBackendOptions = {}) {
    this.#timeouts = {
      connectTimeoutMs: options.connectTimeoutMs ?? 2_000,
      readTimeoutMs: options.readTimeoutMs ?? 5_000,
    };
    this.#pipelineDepth = Math.max(1, options.pipelineDepth ?? 1_000);
    this.#fileSyncDelayMs = Math.max(0, options.fileSyncDelayMs ?? 500);
    this.#idleCloseMs = Math.max(0, options.idleCloseMs ?? 5_000);
  }

  /**
   * Rewrites the file of `target`'s ACL now when a change to it is pending (instead of at its timer,
   * up to `fileSyncDelayMs` later). The enforcer calls it after a full reconcile (Backend `settle`),
   * so a sync is acknowledged with the files in step, and the rewrite's memory is given back with
   * the sync's (issue #13 item 7: four rewrites after the collection held ~4 MB more). A failed
   * rewrite is kept for the next change's entries, as at its timer. Never throws.
   */
  async settle(target: Target): Promise<void> {
    const { address, id } = haproxyTarget(target);
    const key = lockKey(address, id);
    const sync = this.#files.get(key);
    if (!sync?.timer) return;
    clearTimeout(sync.timer);
    sync.timer = null;
    await this.#locked(key, () => this.#writeFile(sync));
  }

  /**
   * Rewrites every ACL file with a change pending now, instead of at its timer. Resolves to the
   * errors of the rewrites that failed (each is also kept for the next change's entries).
   */
  async flushFiles(): Promise<string[]> {
    const errors: string[] = [];
    for (const sync of [...this.#files.values()]) {
      if (sync.timer === null) continue;
      clearTimeout(sync.timer);
      sync.timer = null;
      const error = await this.#locked(lockKey(sync.address, sync.id), () => this.#writeFile(sync));
      if (error) errors.push(error);
    }
    return errors;
  }

  /** Writes the pending ACL files and closes the kept runtime API sessions (the agent is stopping). */
  async close(): Promise<void> {
    await this.flushFiles();
    await Promise.all([...this.#kept.values()].map((k) => k.close()));
  }

  /**
   * Adds addresses that are not yet in ACL `#ID`, then keeps the ACL file in step. `now` is epoch
   * milliseconds; entries not expiring after `now` are skipped (ok). One outcome per entry, in order,
   * with `ip` as given.
   * @throws Error when the runtime API cannot be reached.
   */
  async add(target: Target, entries: readonly Entry[], now: number, hints?: AddHints): Promise<EntryOutcome[]> {
    const { address, id } = haproxyTarget(target);
    const outcomes: (EntryOutcome | undefined)[] = entries.map(() => undefined);
    const given = entries.map((e) => e.ip);
    const wanted = new Map<string, number | number[]>();
    entries.forEach((e, i) => {
      const n = canonicalIp(e.ip);
      if (!n) outcomes[i] = fail(e.ip, `invalid IP address "${e.ip}"`);
      else if (e.expiresAt <= now) outcomes[i] = { ip: e.ip, ok: true };
      else addIndex(wanted, n, i);
    });
    if (wanted.size === 0) return finish(outcomes, given);
    return this.#locked(lockKey(address, id), () =>
      this.#withSession(address, async (lease) => {
        // Addresses believed absent are added in the first round trip; the others are looked up first.
        const believedAbsent = hints?.absent ?? (() => false);
        const absent = [...wanted.keys()].filter((ip) => believedAbsent(ip));
        const ips = [...wanted.keys()].filter((ip) => !believedAbsent(ip));
        const first = await lease.send([
          ...ips.map((ip) => `get acl #${id} ${ip}`),
          ...absent.map((ip) => `add acl #${id} ${ip}`),
        ]);
        const ref = reference(lease.refs, id);
        if (typeof ref === "string") return settle(outcomes, wanted, given, () => ref);
        const errors = new Map<string, string>();
        const refused = (added: readonly string[], answers: readonly string[]): void =>
          added.forEach((ip, k) => {
            const answer = answers[k] ?? "no answer";
            if (answer.trim() !== "") errors.set(ip, `HAProxy refused "add acl #${id} ${ip}": ${oneLine(answer)}`);
          });
        refused(absent, first.slice(ips.length));
        const toAdd: string[] = [];
        ips.forEach((ip, k) => {
          const got = parseGetAcl(first[k] ?? "");
          if (typeof got === "object") {
            if (got.pattern === null || patternIp(got.pattern) !== ip) toAdd.push(ip);
          } else errors.set(ip, `HAProxy could not look up ${ip} in ACL #${id}: ${got}`);
        });
        if (toAdd.length > 0) refused(toAdd, await lease.send(toAdd.map((ip) => `add acl #${id} ${ip}`)));
        const changed = toAdd.length > 0 || absent.length > 0 || errors.size > 0;
        const fileError = changed ? await this.#fileChanged(lease, address, id, ref) : null;
        return settle(outcomes, wanted, given, (ip) => errors.get(ip) ?? fileError);
      }),
    );
  }

  /**
   * Removes addresses (every textual form HAProxy holds) from ACL `#ID`, then keeps the ACL file in
   * step. An absent address succeeds. One outcome per address, in order, as given.
   * @throws Error when the runtime API cannot be reached.
   */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const { address, id } = haproxyTarget(target);
    const outcomes: (EntryOutcome | undefined)[] = ips.map(() => undefined);
    const wanted = new Map<string, number | number[]>();
    ips.forEach((ip, i) => {
      const n = canonicalIp(ip);
      if (!n) outcomes[i] = fail(ip, `invalid IP address "${ip}"`);
      else addIndex(wanted, n, i);
    });
    if (wanted.size === 0) return finish(outcomes, ips);
    return this.#locked(lockKey(address, id), () =>
      this.#withSession(address, async (lease) => {
        const errors = new Map<string, string>();
        // Round 1 looks every address up; each later round deletes the exact form found and looks the
        // address up again in the same round trip, until no exact form is left.
        let pending = [...wanted.keys()];
        let found = await lease.send(pending.map((ip) => `get acl #${id} ${ip}`));
        const ref = reference(lease.refs, id);
        if (typeof ref === "string") return settle(outcomes, wanted, ips, () => ref);
        let deleted = false;
        for (let round = 0; pending.length > 0; round++) {
          const next: { ip: string; text: string }[] = [];
          pending.forEach((ip, k) => {
            const got = parseGetAcl(found[k] ?? "");
            if (typeof got === "string") errors.set(ip, `HAProxy could not look up ${ip} in ACL #${id}: ${got}`);
            else if (got.pattern !== null && patternIp(got.pattern) === ip) next.push({ ip, text: got.pattern });
          });
          if (next.length > 0 && round >= MAX_DELETE_ROUNDS) {
            for (const { ip, text } of next)
              errors.set(ip, `HAProxy still holds "${text}" in ACL #${id} after ${MAX_DELETE_ROUNDS} deletions`);
            break;
          }
          if (next.length === 0) break;
          const answers = await lease.send(
            next.flatMap(({ ip, text }) => [`del acl #${id} ${text}`, `get acl #${id} ${ip}`]),
          );
          deleted = true;
          pending = [];
          found = [];
          next.forEach(({ ip, text }, k) => {
            const answer = (answers[2 * k] ?? "no answer").trim();
            // "Key not found." means it is already gone (e.g. removed concurrently): that is success.
            if (answer !== "" && !/key not found/i.test(answer)) {
              errors.set(ip, `HAProxy refused "del acl #${id} ${text}": ${oneLine(answer)}`);
              return;
            }
            pending.push(ip);
            found.push(answers[2 * k + 1] ?? "");
          });
        }
        const fileError = deleted || errors.size > 0 ? await this.#fileChanged(lease, address, id, ref) : null;
        return settle(outcomes, wanted, ips, (ip) => errors.get(ip) ?? fileError);
      }),
    );
  }

  /**
   * Reads the live entries of ACL `#ID` (`show acl #ID`), normalised; an address HAProxy holds in two
   * forms is listed twice (see `forEachListed`).
   * @throws Error when the runtime API cannot be reached or HAProxy has no ACL `#ID`.
   */
  async list(target: Target): Promise<string[]> {
    const out: string[] = [];
    await this.forEachListed(target, (ip) => out.push(ip));
    return out;
  }

  /**
   * Calls `fn` with each live entry of ACL `#ID` (see `patternIp`; other patterns as stored), in
   * HAProxy's order, while `show acl #ID` is read: each part of the answer is parsed as it arrives
   * from the socket (AclRowReader), so the listing is never held whole (issue #13 item 7: 10,000 rows
   * per ACL re-read every drift check). An address held in two forms (`10.0.0.1`, `10.0.0.1/32`) is
   * reported twice.
   * @throws Error when the runtime API cannot be reached or HAProxy has no ACL `#ID` (no address was
   *   reported then), or what `fn` threw.
   */
  async forEachListed(target: Target, fn: (ip: string) => void): Promise<void> {
    const { address, id } = haproxyTarget(target);
    await this.#withSession(address, async (lease) => {
      const rows = new AclRowReader((t) => fn(patternIp(t) ?? t));
      let head = "";
      await lease.stream(`show acl #${id}`, (part) => {
        if (head.length < 200) head += part.slice(0, 200 - head.length);
        rows.push(part);
      });
      rows.end();
      if (isUnknownAcl([head])) throw new Error(`HAProxy has no ACL #${id}`);
    });
  }

  /**
   * After a change to `#id`: with a file behind it, the rewrite is scheduled (or, with
   * `fileSyncDelayMs` 0, done now through `lease`). Returns the error to report on the change's
   * entries: the last rewrite's failure (then retried now), or null.
   */
  async #fileChanged(
    lease: Lease,
    address: RuntimeAddress,
    id: number,
    ref: { file: string | null },
  ): Promise<string | null> {
    if (ref.file === null) return null;
    const key = lockKey(address, id);
    let sync = this.#files.get(key);
    if (!sync || sync.file !== ref.file) {
      if (sync?.timer) clearTimeout(sync.timer);
      sync = { address, id, file: ref.file, timer: null, error: null };
      this.#files.set(key, sync);
    }
    if (this.#fileSyncDelayMs === 0 || sync.error !== null) {
      if (sync.timer) clearTimeout(sync.timer);
      sync.timer = null;
      return this.#writeFileWith(lease, sync);
    }
    const pending = sync;
    pending.timer ??= setTimeout(() => {
      pending.timer = null;
      void this.#locked(key, () => this.#writeFile(pending));
    }, this.#fileSyncDelayMs);
    pending.timer.unref?.();
    return null;
  }

  /** Rewrites the file of `sync` from the live entries, on the kept session; the error or null. */
  async #writeFile(sync: FileSync): Promise<string | null> {
    try {
      return await this.#withSession(sync.address, (lease) => this.#writeFileWith(lease, sync));
    } catch (e) {
      sync.error = `the ACL file ${sync.file} could not be brought in step: ${e instanceof Error ? e.message : String(e)}`;
      return sync.error;
    }
  }

  /** Rewrites the file of `sync` to the live entries (the whole `show acl #ID`) read through `lease`; the error or null. */
  async #writeFileWith(lease: Lease, sync: FileSync): Promise<string | null> {
    try {
      // Read as it arrives, each address kept once (issue #13 item 7: after a full sync these rewrites
      // run after its memory was given back, and the whole answer, its rows and copies stayed as garbage).
      const live = new Set<string>();
      const rows = new AclRowReader((t) => live.add(patternIp(t) ?? t));
      await lease.stream(`show acl #${sync.id}`, (part) => rows.push(part));
      rows.end();
      await writeAclFileAtomically(sync.file, live);
      sync.error = null;
    } catch (e) {
      sync.error = `changed live in HAProxy but the ACL file ${sync.file} could not be written (a reload would undo it): ${e instanceof Error ? e.message : String(e)}`;
    }
    return sync.error;
  }

  /** Runs `fn` on the session kept for `address`, once no other call uses it. @throws Error when it cannot be opened. */
  #withSession<T>(address: RuntimeAddress, fn: (lease: Lease) => Promise<T>): Promise<T> {
    const key = addressKey(address);
    let kept = this.#kept.get(key);
    if (!kept) {
      kept = new KeptSession(address, this.#timeouts, this.#idleCloseMs, this.#pipelineDepth);
      this.#kept.set(key, kept);
    }
    return kept.use(fn);
  }

  /** Runs `fn` after every earlier call on the same key finished, so ACL file rewrites never interleave. */
  async #locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    }
  }
}

/** Rounds of `del acl` + `get acl` a remove runs at most for one address (one per textual form held). */
const MAX_DELETE_ROUNDS = 8;

/**
 * Parses a `get acl #ID IP` answer of HAProxy 2.6: `type=ip, case=sensitive, match=yes, idx=tree,
 * pattern="10.0.0.0/8"` (the longest-prefix match: the key may be a subnet holding the address, as
 * stored) or `... match=no`. Returns the pattern (null on no match), or HAProxy's text when it is neither.
 */
export function parseGetAcl(answer: string): { pattern: string | null } | string {
  if (/\bmatch=no\b/.test(answer)) return { pattern: null };
  const m = /\bmatch=yes\b.*\b(?:pattern|key)="([^"]*)"/.exec(answer);
  return m?.[1] !== undefined ? { pattern: m[1] } : oneLine(answer) || "no answer";
}

/**
 * The canonical address a stored pattern stands for: the address itself, also written as a `/32`
 * (IPv4) or `/128` (IPv6) prefix; null for a wider subnet or anything else.
 */
export function patternIp(text: string): string | null {
  if (!text.includes("/")) return canonicalIp(text);
  const m = /^(.+)\/(\d+)$/.exec(text);
  if (!m?.[1]) return canonicalIp(text);
  const ip = canonicalIp(m[1]);
  if (ip === null) return null;
  return m[2] === (ip.includes(":") ? "128" : "32") ? ip : null;
}

/** Whether an answer (as parts) is HAProxy's refusal of an unknown ACL id: a short answer, not a listing. */
function isUnknownAcl(answer: readonly string[]): boolean {
  let head = "";
  for (const part of answer) {
    head += part;
    if (head.length >= 200) break;
  }
  return /unknown acl identifier/i.test(head);
}

/** Fills the outcome of every wanted address: failed with `errorOf(ip)` when it gives one, else ok. */
function settle(
  outcomes: (EntryOutcome | undefined)[],
  wanted: ReadonlyMap<string, number | number[]>,
  given: readonly string[],
  errorOf: (ip: string) => string | null | undefined,
): EntryOutcome[] {
  for (const [ip, indices] of wanted) {
    const error = errorOf(ip);
    for (const i of each(indices)) outcomes[i] = error ? fail(given[i], error) : { ip: given[i] ?? ip, ok: true };
  }
  return finish(outcomes, given);
}

/** The file behind `#id` in `show acl` (null when inline), or an error message when there is no such ACL. */
function reference(refs: readonly AclReference[], id: number): { file: string | null } | string {
  const ref = refs.find((r) => r.id === id);
  if (!ref) return `HAProxy has no ACL #${id} (show acl lists ${refs.map((r) => `#${r.id}`).join(", ") || "none"})`;
  if (ref.file !== null && !isAbsolute(ref.file)) {
    return `HAProxy ACL #${id} is loaded from the relative path "${ref.file}"; use an absolute path in the HAProxy configuration so the agent can keep the file in step`;
  }
  return { file: ref.file };
}

/** Adds `value` under `key` of a map that keeps one value as it is and several as an array (no array per entry). */
function addIndex<T>(map: Map<string, T | T[]>, key: string, value: T): void {
  const had = map.get(key);
  if (had === undefined) map.set(key, value);
  else if (Array.isArray(had)) had.push(value);
  else map.set(key, [had, value]);
}

/** The values of a one-or-several map value (see `addIndex`). */
function each<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

function haproxyTarget(target: Target): { address: RuntimeAddress; id: number } {
  if (!("haproxy" in target.backend) || !target.backend.haproxy)
    throw new Error(`target ${target.key} is not on a haproxy backend`);
  if (!("haproxy" in target.acl)) throw new Error(`target ${target.key} is not an HAProxy ACL`);
  return { address: parseRuntimeAddress(target.backend.haproxy), id: target.acl.haproxy.ID };
}

function addressKey(address: RuntimeAddress): string {
  return "path" in address ? `unix:${address.path}` : `tcp:${address.host}:${address.port}`;
}

function lockKey(address: RuntimeAddress, id: number): string {
  return `${addressKey(address)}#${id}`;
}

function finish(outcomes: readonly (EntryOutcome | undefined)[], ips: readonly string[]): EntryOutcome[] {
  return outcomes.map((o, i) => o ?? fail(ips[i], "internal error: no outcome"));
}

function fail(ip: string | undefined, error: string): EntryOutcome {
  return { ip: ip ?? "", ok: false, error };
}

function oneLine(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join("; ");
}

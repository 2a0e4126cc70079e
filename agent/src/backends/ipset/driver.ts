/**
 * The ipset enforcement backend (docs/reference.md design "Agent protocol").
 *
 * A target names up to two sets (ACL config `V4SetName`, `V6SetName`); each address goes to the set of
 * its family. A batch (lines `add SET IP [timeout N]` / `del SET IP`) is written to one long-lived
 * `ipset -exist -` process (shell.ts) when the runner can keep one; when that process reports
 * anything, or cannot be used, the batch runs as ONE `ipset restore -exist` process, so 10,000 entries
 * cost one process instead of 10,000, and failures are narrowed down line by line.
 * When the set was created with timeout support (`timeout` in its header) every added entry carries
 * a native ipset timeout, in whole SECONDS until its absolute expiry (rounded up, at least 1), so access
 * ends on time even if the agent is down. When a batch fails, the line ipset names (or, failing that,
 * each line on its own) is found so every address gets its own outcome.
 */
import { normaliseIp } from "@postern/shared";
import type { AddressFamily, Entry, Target } from "@postern/shared";
import type { CommandResult, CommandRunner, InteractiveProcess } from "../../process/runner.ts";
import type { Backend, EntryOutcome } from "../backend.ts";
import { IpsetSaveReader, streamIpsetList } from "./listing.ts";
import { IpsetShell } from "./shell.ts";

/** Largest timeout ipset accepts, in seconds (kernel IPSET_MAX_TIMEOUT, about 24.8 days). */
export const IPSET_MAX_TIMEOUT_SECONDS = 2_147_483;

/** Options of an `IpsetBackend`. */
export interface IpsetBackendOptions {
  /** Runs the `ipset` (or `sudo`) command. */
  readonly runner: CommandRunner;
  /** When true every command is run as `sudo -n ipset ...` (non-interactive sudo). */
  readonly useSudo: boolean;
  /** Timeout of each `ipset` process in milliseconds (default 30,000 ms, plus 1 ms per batch line). */
  readonly timeoutMs?: number;
  /** Use a long-lived `ipset -` process when the runner can spawn one (default true). */
  readonly interactive?: boolean;
}

/** What the backend knows about one set: its family and whether it was created with timeout support. */
export interface IpsetSetInfo {
  readonly family: AddressFamily | null;
  readonly timeout: boolean;
}

/** The message given when a set does not exist on this agent, with the command that creates it. */
export function missingSetMessage(set: string, family: AddressFamily = "inet"): string {
  return `ipset set ${set} does not exist on this agent; create it with: ipset create ${set} hash:ip family ${family} timeout 0`;
}

/**
 * Parses the output of `ipset list -t SET` (or the header part of `ipset list`): the family from
 * `Header: family inet ...` and timeout support from a `timeout N` in the header.
 */
export function parseIpsetHeader(text: string): IpsetSetInfo {
  const header = /^Header:(.*)$/m.exec(text)?.[1] ?? "";
  const family = /\bfamily (inet6?)\b/.exec(header)?.[1];
  return {
    family: family === "inet" || family === "inet6" ? family : null,
    timeout: /\btimeout \d+/.test(header),
  };
}

/**
 * Parses `ipset list SET -output save` / `ipset save SET` output: the member of every `add SET MEMBER`
 * line, addresses normalised (IPv6 canonical, IPv4-mapped to IPv4), other members (CIDRs) kept as printed.
 */
export function parseIpsetSave(text: string): string[] {
  const out: string[] = [];
  const reader = new IpsetSaveReader((member) => out.push(member));
  reader.push(text);
  reader.end();
  return out;
}

/**
 * Seconds until `expiresAt` as an ipset timeout: rounded up, at least 1, at most
 * `IPSET_MAX_TIMEOUT_SECONDS`. Both arguments are epoch MILLISECONDS; the result is SECONDS.
 */
export function ipsetTimeoutSeconds(expiresAt: number, now: number): number {
  return Math.min(IPSET_MAX_TIMEOUT_SECONDS, Math.max(1, Math.ceil((expiresAt - now) / 1000)));
}

/** One line of a restore batch and the caller's entries (indices) it stands for. */
interface BatchLine {
  readonly set: string;
  readonly family: AddressFamily;
  readonly ip: string;
  readonly op: "add" | "del";
  /** Native timeout in seconds, or undefined for none. */
  timeout: number | undefined;
  readonly indices: number[];
}

type LineResult = { ok: true } | { ok: false; error: string };

const NO_SUCH_SET = /set with the given name does not exist/i;
const NO_TIMEOUT_SUPPORT = /timeout cannot be used/i;
const SET_FULL = /is full/i;

/**
 * Enforces entries in ipset sets. See the module documentation. Never throws for one bad address;
 * throws only when ipset cannot be run at all (e.g. the command is missing, `CommandStartError`).
 */
export class IpsetBackend implements Backend {
  /** The BackendConfig key handled: `ipset`. */
  readonly type = "ipset";
  readonly #runner: CommandRunner;
  readonly #useSudo: boolean;
  readonly #timeoutMs: number;
  readonly #sets = new Map<string, IpsetSetInfo>();
  readonly #shell: IpsetShell | null;

  /** Creates the backend; see `IpsetBackendOptions`. */
  constructor(options: IpsetBackendOptions) {
    this.#runner = options.runner;
    this.#useSudo = options.useSudo;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    const runner = options.runner;
    this.#shell =
      options.interactive !== false && runner.spawn
        ? new IpsetShell({ run: runner.run.bind(runner), spawn: runner.spawn.bind(runner) }, options.useSudo)
        : null;
  }

  /** Stops the long-lived ipset process. */
  async close(): Promise<void> {
    await this.#shell?.close();
  }

  /**
   * Adds entries (or refreshes their native timeout) in one `ipset restore -exist`. `now` is epoch
   * milliseconds; entries not expiring after `now` are skipped (ok). Returns one outcome per entry, in
   * the order given, with `ip` as given.
   */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const sets = setNames(target);
    const outcomes: (EntryOutcome | undefined)[] = entries.map(() => undefined);
    // Group by (family, set): a set normally holds one family, but a misconfigured ACL may name the
    // same set for both; each group is checked against the set's header on its own.
    const groups = new Map<
      string,
      { set: string; family: AddressFamily; ips: Map<string, { expiresAt: number; indices: number[] }> }
    >();
    entries.forEach((entry, i) => {
      const n = normaliseIp(entry.ip);
      if (!n) {
        outcomes[i] = fail(entry.ip, `invalid IP address "${entry.ip}"`);
        return;
      }
      if (entry.expiresAt <= now) {
        outcomes[i] = { ip: entry.ip, ok: true };
        return;
      }
      const set = n.family === "inet" ? sets.v4 : sets.v6;
      if (!set) {
        outcomes[i] = fail(entry.ip, noSetMessage(target, n.family, entry.ip));
        return;
      }
      if (!isValidSetName(set)) {
        outcomes[i] = fail(entry.ip, invalidSetNameMessage(set));
        return;
      }
      const key = `${n.family} ${set}`;
      let group = groups.get(key);
      if (!group) {
        group = { set, family: n.family, ips: new Map() };
        groups.set(key, group);
      }
      const prev = group.ips.get(n.ip);
      if (prev) {
        prev.expiresAt = Math.max(prev.expiresAt, entry.expiresAt);
        prev.indices.push(i);
      } else {
        group.ips.set(n.ip, { expiresAt: entry.expiresAt, indices: [i] });
      }
    });

    const lines: BatchLine[] = [];
    for (const { set, family, ips } of groups.values()) {
      const info = await this.#setInfo(set);
      let error: string | undefined;
      if ("error" in info) error = info.missing ? missingSetMessage(set, family) : info.error;
      else if (info.family && info.family !== family) {
        error = `ipset set ${set} has family ${info.family}; it cannot hold ${family === "inet" ? "IPv4" : "IPv6"} addresses`;
      }
      if (error !== undefined || "error" in info) {
        for (const { indices } of ips.values())
          for (const i of indices) outcomes[i] = fail(entries[i]?.ip, error ?? "unknown set");
        continue;
      }
      for (const [ip, { expiresAt, indices }] of ips) {
        lines.push({
          set,
          family,
          ip,
          op: "add",
          timeout: info.timeout ? ipsetTimeoutSeconds(expiresAt, now) : undefined,
          indices,
        });
      }
    }
    await this.#applyLines(
      lines,
      entries.map((e) => e.ip),
      outcomes,
    );
    return outcomes.map((o, i) => o ?? fail(entries[i]?.ip, "internal error: no outcome"));
  }

  /** Removes addresses in one `ipset restore -exist`; an absent address succeeds. One outcome per address, as given. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const sets = setNames(target);
    const outcomes: (EntryOutcome | undefined)[] = ips.map(() => undefined);
    const byKey = new Map<string, BatchLine>();
    ips.forEach((ip, i) => {
      const n = normaliseIp(ip);
      if (!n) {
        outcomes[i] = fail(ip, `invalid IP address "${ip}"`);
        return;
      }
      const set = n.family === "inet" ? sets.v4 : sets.v6;
      if (!set) {
        outcomes[i] = fail(ip, noSetMessage(target, n.family, ip));
        return;
      }
      if (!isValidSetName(set)) {
        outcomes[i] = fail(ip, invalidSetNameMessage(set));
        return;
      }
      const key = `${set} ${n.ip}`;
      const line = byKey.get(key);
      if (line) line.indices.push(i);
      else byKey.set(key, { set, family: n.family, ip: n.ip, op: "del", timeout: undefined, indices: [i] });
    });
    await this.#applyLines([...byKey.values()], ips, outcomes);
    return outcomes.map((o, i) => o ?? fail(ips[i], "internal error: no outcome"));
  }

  /**
   * Reads the members of the target's sets (`ipset list SET -output save`), normalised, v4 set first,
   * each once.
   * @throws Error when a set does not exist (the message says how to create it) or ipset fails.
   */
  async list(target: Target): Promise<string[]> {
    const out = new Set<string>();
    await this.forEachListed(target, (ip) => out.add(ip));
    return [...out];
  }

  /**
   * Calls `fn` with each member of the target's sets (see `list`; a member of both sets twice), v4 set
   * first, as `ipset list SET -output save` prints them: read from the process's output as it arrives
   * when the runner can spawn one (listing.ts; issue #13 item 7), else from its whole output.
   * @throws Error as `list` (some members may have been reported before), or what `fn` threw.
   */
  async forEachListed(target: Target, fn: (ip: string) => void): Promise<void> {
    const sets = setNames(target);
    for (const [set, family] of [
      [sets.v4, "inet"],
      [sets.v6, "inet6"],
    ] as const) {
      if (!set) continue;
      if (!isValidSetName(set)) throw new Error(invalidSetNameMessage(set));
      const args = ["list", set, "-output", "save"];
      const runner = this.#runner;
      if (!runner.spawn) {
        const r = await this.#ipset(args);
        if (r.exitCode !== 0) throw listFailure(set, family, r.stderr, r.stdout);
        const reader = new IpsetSaveReader(fn);
        reader.push(r.stdout);
        reader.end();
        continue;
      }
      const start = (): InteractiveProcess =>
        this.#useSudo ? runner.spawn!("sudo", ["-n", "ipset", ...args]) : runner.spawn!("ipset", args);
      const failed = await streamIpsetList(start, this.#timeoutMs, fn);
      if (failed !== null) throw listFailure(set, family, failed, "");
    }
  }

  /** Forgets the cached set headers (timeout support), e.g. after sets were recreated. */
  forgetSets(): void {
    this.#sets.clear();
  }

  async #setInfo(set: string): Promise<IpsetSetInfo | { error: string; missing: boolean }> {
    const cached = this.#sets.get(set);
    if (cached) return cached;
    const r = await this.#ipset(["list", "-t", set]);
    if (r.exitCode !== 0) {
      if (NO_SUCH_SET.test(r.stderr)) return { error: missingSetMessage(set), missing: true };
      return { error: `ipset list -t ${set} failed: ${oneLine(r.stderr || r.stdout)}`, missing: false };
    }
    const info = parseIpsetHeader(r.stdout);
    this.#sets.set(set, info);
    return info;
  }

  /**
   * Applies the batch through one `ipset restore -exist` and, when it fails, narrows the failure down
   * so that each line gets its own result. Fills `outcomes` for every index of every line.
   */
  async #applyLines(
    lines: readonly BatchLine[],
    ips: readonly string[],
    outcomes: (EntryOutcome | undefined)[],
  ): Promise<void> {
    if (lines.length === 0) return;
    const results = await this.#restoreAll(lines);
    lines.forEach((line, k) => {
      const r = results[k] ?? { ok: false, error: "internal error: line not applied" };
      for (const i of line.indices)
        outcomes[i] = r.ok ? { ip: ips[i] ?? line.ip, ok: true } : fail(ips[i] ?? line.ip, r.error);
    });
  }

  async #restoreAll(lines: readonly BatchLine[]): Promise<LineResult[]> {
    if (this.#shell && (await this.#shell.apply(lines.map(formatLine)))) return lines.map(() => ({ ok: true }));
    const results: (LineResult | undefined)[] = lines.map(() => undefined);
    let pending = lines.map((_, k) => k);
    const retriedWithoutTimeout = new Set<string>();
    // Each round settles at least one line, except one retry without timeouts per set (at most two
    // sets per target), so the loop ends within lines.length + 3 rounds.
    for (let round = 0; round < lines.length + 3 && pending.length > 0; round++) {
      const r = await this.#restore(pending.map((k) => lines[k] as BatchLine));
      if (r.exitCode === 0) {
        for (const k of pending) results[k] = { ok: true };
        pending = [];
        break;
      }
      const failure = parseRestoreError(r);
      const failedAt = failure.line !== null ? pending[failure.line - 1] : undefined;
      if (failedAt === undefined) {
        // No usable line number: a failure of the whole run, or of an unnamed line. Probe line by line.
        pending = await this.#oneByOne(lines, pending, results, failure.message);
        continue;
      }
      const bad = lines[failedAt] as BatchLine;
      if (NO_SUCH_SET.test(failure.message)) {
        // The whole set is missing: every line for it fails the same way.
        this.#sets.delete(bad.set);
        const msg = missingSetMessage(bad.set, bad.family);
        pending = settle(pending, (k) => lines[k]?.set === bad.set, results, msg);
      } else if (NO_TIMEOUT_SUPPORT.test(failure.message) && !retriedWithoutTimeout.has(bad.set)) {
        // The set was recreated without timeout support since its header was cached: add without timeout.
        retriedWithoutTimeout.add(bad.set);
        this.#sets.set(bad.set, { family: this.#sets.get(bad.set)?.family ?? null, timeout: false });
        for (const k of pending) if (lines[k]?.set === bad.set) (lines[k] as BatchLine).timeout = undefined;
      } else if (SET_FULL.test(failure.message) && bad.op === "add") {
        // The set is full: every new address for it would fail the same way, while re-adding a member
        // (refreshing its timeout) still works. Read the members once instead of retrying line by line.
        // Only lines after the failing one are judged: the ones before were sent first and are retried.
        const members = await this.#members(bad.set);
        const after = new Set(pending.slice((failure.line ?? 1) - 1));
        const pick = (k: number): boolean =>
          k === failedAt ||
          (members !== null &&
            after.has(k) &&
            lines[k]?.set === bad.set &&
            lines[k]?.op === "add" &&
            !members.has(lines[k].ip));
        pending = settle(
          pending,
          pick,
          results,
          (k) => `ipset refused ${lines[k]?.ip} for set ${bad.set}: ${failure.message}`,
        );
      } else {
        pending = settle(
          pending,
          (k) => k === failedAt,
          results,
          `ipset refused ${bad.ip} for set ${bad.set}: ${failure.message}`,
        );
      }
    }
    for (const k of pending) results[k] ??= { ok: false, error: "ipset restore did not settle this entry" };
    return results.map((r) => r ?? { ok: false, error: "ipset restore did not settle this entry" });
  }

  /**
   * Applies pending lines one restore each. When the first probe fails without naming a line, the
   * failure is taken as one of the whole command (sudo refused, kernel error) and given to every line.
   * Returns the lines still pending (none, unless a probe named a line: then the batch is retried).
   */
  async #oneByOne(
    lines: readonly BatchLine[],
    pending: number[],
    results: (LineResult | undefined)[],
    batchMessage: string,
  ): Promise<number[]> {
    const rest = [...pending];
    let first = true;
    while (rest.length > 0) {
      const k = rest[0] as number;
      const line = lines[k] as BatchLine;
      const r = await this.#restore([line]);
      if (r.exitCode === 0) {
        results[k] = { ok: true };
        rest.shift();
      } else {
        const failure = parseRestoreError(r);
        if (first && failure.line === null) {
          for (const j of rest)
            results[j] = { ok: false, error: `ipset restore failed: ${failure.message || batchMessage}` };
          return [];
        }
        results[k] = {
          ok: false,
          error: NO_SUCH_SET.test(failure.message)
            ? missingSetMessage(line.set, line.family)
            : `ipset refused ${line.ip} for set ${line.set}: ${failure.message}`,
        };
        rest.shift();
        if (failure.line !== null) return rest; // the single line was named: the batch works again, retry it
      }
      first = false;
    }
    return [];
  }

  /** The members of `set`, normalised, or null when they cannot be read. */
  async #members(set: string): Promise<Set<string> | null> {
    const r = await this.#ipset(["list", set, "-output", "save"]);
    return r.exitCode === 0 ? new Set(parseIpsetSave(r.stdout)) : null;
  }

  async #restore(lines: readonly BatchLine[]): Promise<CommandResult> {
    const input = lines.map(formatLine).join("\n") + "\n";
    return this.#ipset(["restore", "-exist"], input, this.#timeoutMs + lines.length);
  }

  async #ipset(args: readonly string[], input?: string, timeoutMs = this.#timeoutMs): Promise<CommandResult> {
    const options = { timeoutMs, ...(input !== undefined ? { input } : {}) };
    if (this.#useSudo) return this.#runner.run("sudo", ["-n", "ipset", ...args], options);
    return this.#runner.run("ipset", args, options);
  }
}

/**
 * True for a name ipset accepts and that cannot smuggle anything into a restore batch: 1–31 printable
 * characters without whitespace, not starting with `-`.
 */
export function isValidSetName(name: string): boolean {
  return /^[\x21-\x7e]{1,31}$/.test(name) && !name.startsWith("-");
}

function invalidSetNameMessage(set: string): string {
  return `invalid ipset set name ${JSON.stringify(set)}: 1–31 printable characters without spaces`;
}

/** Formats one restore line: `add SET IP [timeout N]` or `del SET IP`. */
function formatLine(line: BatchLine): string {
  if (line.op === "del") return `del ${line.set} ${line.ip}`;
  return line.timeout !== undefined
    ? `add ${line.set} ${line.ip} timeout ${line.timeout}`
    : `add ${line.set} ${line.ip}`;
}

/** Extracts `Error in line N: message` from a failed restore; `line` is 1-based or null when not named. */
function parseRestoreError(r: CommandResult): { line: number | null; message: string } {
  const text = (r.stderr || r.stdout).trim();
  const m = /Error in line (\d+):\s*(.*)/.exec(text);
  if (m?.[1]) return { line: Number(m[1]), message: (m[2] ?? "").trim() };
  return { line: null, message: oneLine(text.replace(/^ipset v[\d.]+:\s*/, "")) || `exit code ${r.exitCode}` };
}

function settle(
  pending: number[],
  pick: (k: number) => boolean,
  results: (LineResult | undefined)[],
  error: string | ((k: number) => string),
): number[] {
  const rest: number[] = [];
  for (const k of pending) {
    if (pick(k)) results[k] = { ok: false, error: typeof error === "string" ? error : error(k) };
    else rest.push(k);
  }
  return rest;
}

function setNames(target: Target): { v4: string; v6: string } {
  if (!("ipset" in target.acl)) throw new Error(`target ${target.key} is not an ipset ACL`);
  return { v4: target.acl.ipset.V4SetName.trim(), v6: target.acl.ipset.V6SetName.trim() };
}

function noSetMessage(target: Target, family: AddressFamily, ip: string): string {
  return family === "inet"
    ? `ACL ${target.key} has no IPv4 set (V4SetName is empty); cannot enforce ${ip}`
    : `ACL ${target.key} has no IPv6 set (V6SetName is empty); cannot enforce ${ip}`;
}

function fail(ip: string | undefined, error: string): EntryOutcome {
  return { ip: ip ?? "", ok: false, error };
}

/** The error of a failed `ipset list SET`: how to create a missing set, or ipset's message. */
function listFailure(set: string, family: AddressFamily, stderr: string, stdout: string): Error {
  if (NO_SUCH_SET.test(stderr)) return new Error(missingSetMessage(set, family));
  return new Error(`ipset list ${set} failed: ${oneLine(stderr || stdout)}`);
}

function oneLine(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join("; ");
}

/**
 * The nftables driver (issue #10 item 9; docs/decisions.md "nftables backend"). An ACL names a table
 * (`<family> <name>`, default `inet postern`) and up to two sets created by hand with `flags timeout`
 * (`V4SetName` of type ipv4_addr, `V6SetName` of type ipv6_addr); each address goes to the set of its
 * family. Every batch is ONE `nft -f -` transaction. Elements carry their expiry as a native timeout in
 * whole SECONDS (rounded up), so access ends on time even while the agent is down.
 *
 * nft has no "add or update the timeout": an add is written `add element` (so it exists), `delete
 * element`, `add element ... timeout Ns`, and a delete `add element` then `delete element`, which makes
 * both idempotent inside one transaction. A failing transaction changes nothing; the batch is then
 * applied one address per transaction so every address gets its own outcome.
 */
import { normaliseIp } from "@postern/shared";
import type { AddressFamily, Entry, Target } from "@postern/shared";
import type { CommandResult, CommandRunner } from "../../process/runner.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";
import { parseNftElements } from "./parse.ts";

/** Options of an `NftablesDriver`. */
export interface NftablesDriverOptions {
  readonly runner: CommandRunner;
  /** Run `sudo -n nft` instead of `nft`. */
  readonly useSudo: boolean;
  /** Timeout of one nft process, MILLISECONDS (default 30,000). */
  readonly timeoutMs?: number;
}

/** Longest element timeout written, in seconds (30 days; longer grants are refreshed by drift repair). */
export const NFT_MAX_TIMEOUT_SECONDS = 30 * 24 * 3600;

const NAME = /^[A-Za-z0-9_.-]{1,63}$/;

/** The table and sets of a target. @throws Error when the target is not an nftables ACL or names are unsafe. */
export function nftTarget(target: Target): { family: string; table: string; v4: string; v6: string } {
  if (!("nftables" in target.acl)) throw new Error(`target ${target.key} is not an nftables ACL`);
  const a = target.acl.nftables;
  const m = /^(ip|ip6|inet) ([A-Za-z0-9_.-]{1,63})$/.exec(a.Table.trim());
  if (!m) throw new Error(`invalid nftables table ${JSON.stringify(a.Table)}: expected "<ip|ip6|inet> <name>"`);
  for (const s of [a.V4SetName, a.V6SetName])
    if (s && !NAME.test(s)) throw new Error(`invalid nftables set name ${JSON.stringify(s)}`);
  return { family: m[1]!, table: m[2]!, v4: a.V4SetName, v6: a.V6SetName };
}

/** The message given when a set is missing, with the commands that create it. */
export function missingNftSetMessage(family: string, table: string, set: string, af: AddressFamily): string {
  const type = af === "inet" ? "ipv4_addr" : "ipv6_addr";
  return `nftables set ${family} ${table} ${set} does not exist on this agent; create it with: nft add table ${family} ${table} && nft add set ${family} ${table} ${set} '{ type ${type}; flags timeout; }'`;
}

/** Seconds until `expiresAt` (both epoch MILLISECONDS): rounded up, at least 1, at most `NFT_MAX_TIMEOUT_SECONDS`. */
export function nftTimeoutSeconds(expiresAt: number, now: number): number {
  return Math.min(NFT_MAX_TIMEOUT_SECONDS, Math.max(1, Math.ceil((expiresAt - now) / 1000)));
}

interface Change {
  readonly index: number;
  readonly set: string;
  readonly af: AddressFamily;
  readonly ip: string;
  readonly lines: string[];
}

/** Enforces entries in nftables sets; see the module documentation. */
export class NftablesDriver implements Driver {
  /** The BackendConfig key handled: `nftables`. */
  readonly type = "nftables";
  readonly concurrency = 1;
  readonly #o: NftablesDriverOptions;

  constructor(options: NftablesDriverOptions) {
    this.#o = options;
  }

  /** Adds entries (or sets their timeout) in one transaction; expired ones are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const t = nftTarget(target);
    const out: (EntryOutcome | undefined)[] = entries.map(() => undefined);
    const changes: Change[] = [];
    entries.forEach((e, index) => {
      const n = normaliseIp(e.ip);
      if (!n) return void (out[index] = { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` });
      if (e.expiresAt <= now) return void (out[index] = { ip: e.ip, ok: true });
      const set = n.family === "inet" ? t.v4 : t.v6;
      if (!set) return void (out[index] = { ip: e.ip, ok: false, error: noSetMessage(target, n.family, e.ip) });
      const el = `${t.family} ${t.table} ${set} { ${n.ip}`;
      const timeout = nftTimeoutSeconds(e.expiresAt, now);
      changes.push({
        index,
        set,
        af: n.family,
        ip: e.ip,
        lines: [`add element ${el} }`, `delete element ${el} }`, `add element ${el} timeout ${timeout}s }`],
      });
    });
    await this.#apply(t, changes, out);
    return out.map((o, i) => o ?? { ip: entries[i]?.ip ?? "", ok: false, error: "internal error: no outcome" });
  }

  /** Removes addresses in one transaction; an absent address succeeds. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const t = nftTarget(target);
    const out: (EntryOutcome | undefined)[] = ips.map(() => undefined);
    const changes: Change[] = [];
    ips.forEach((ip, index) => {
      const n = normaliseIp(ip);
      if (!n) return void (out[index] = { ip, ok: false, error: `invalid IP address "${ip}"` });
      const set = n.family === "inet" ? t.v4 : t.v6;
      if (!set) return void (out[index] = { ip, ok: false, error: noSetMessage(target, n.family, ip) });
      const el = `${t.family} ${t.table} ${set} { ${n.ip} }`;
      changes.push({ index, set, af: n.family, ip, lines: [`add element ${el}`, `delete element ${el}`] });
    });
    await this.#apply(t, changes, out);
    return out.map((o, i) => o ?? { ip: ips[i] ?? "", ok: false, error: "internal error: no outcome" });
  }

  /**
   * Reads the elements of the target's sets (`nft -j list set`), normalised, v4 set first.
   * @throws Error when a set is missing (the message says how to create it) or nft fails.
   */
  async list(target: Target): Promise<string[]> {
    const t = nftTarget(target);
    const out: string[] = [];
    for (const [set, af] of [
      [t.v4, "inet"],
      [t.v6, "inet6"],
    ] as const) {
      if (!set) continue;
      const r = await this.#nft(["-j", "list", "set", t.family, t.table, set]);
      if (r.exitCode !== 0) {
        if (/no such file or directory/i.test(r.stderr))
          throw new Error(missingNftSetMessage(t.family, t.table, set, af));
        throw new Error(`nft list set ${t.family} ${t.table} ${set} failed: ${oneLine(r.stderr || r.stdout)}`);
      }
      out.push(...parseNftElements(r.stdout));
    }
    return [...new Set(out)];
  }

  /** One transaction for all changes; on failure one transaction per change. Fills `out`. */
  async #apply(
    t: { family: string; table: string },
    changes: readonly Change[],
    out: (EntryOutcome | undefined)[],
  ): Promise<void> {
    if (changes.length === 0) return;
    const all = await this.#transaction(changes.flatMap((c) => c.lines));
    if (all.exitCode === 0) {
      for (const c of changes) out[c.index] = { ip: c.ip, ok: true };
      return;
    }
    if (changes.length > 1 && !/^\/dev\/stdin:\d+/m.test(all.stderr)) {
      // No line named: not one address's fault (no rights, kernel error); every change fails the same way.
      const error = `nft -f failed: ${oneLine(all.stderr || all.stdout) || `exit code ${all.exitCode}`}`;
      for (const c of changes) out[c.index] = { ip: c.ip, ok: false, error };
      return;
    }
    for (const c of changes) {
      const r = changes.length === 1 ? all : await this.#transaction(c.lines);
      out[c.index] = r.exitCode === 0 ? { ip: c.ip, ok: true } : { ip: c.ip, ok: false, error: this.#explain(t, c, r) };
    }
  }

  #explain(t: { family: string; table: string }, c: Change, r: CommandResult): string {
    if (/no such file or directory/i.test(r.stderr)) return missingNftSetMessage(t.family, t.table, c.set, c.af);
    const first = r.stderr
      .split("\n")
      .find((l) => /Error:/.test(l))
      ?.replace(/^\/dev\/stdin:[\d:-]+:\s*/, "");
    return `nft refused ${c.ip} for set ${c.set}: ${first ?? (oneLine(r.stderr) || `exit code ${r.exitCode}`)}`;
  }

  #transaction(lines: readonly string[]): Promise<CommandResult> {
    return this.#nft(["-f", "-"], lines.join("\n") + "\n", (this.#o.timeoutMs ?? 30_000) + lines.length);
  }

  #nft(args: readonly string[], input?: string, timeoutMs = this.#o.timeoutMs ?? 30_000): Promise<CommandResult> {
    const options = { timeoutMs, ...(input !== undefined ? { input } : {}) };
    return this.#o.useSudo
      ? this.#o.runner.run("sudo", ["-n", "nft", ...args], options)
      : this.#o.runner.run("nft", args, options);
  }
}

function noSetMessage(target: Target, family: AddressFamily, ip: string): string {
  return family === "inet"
    ? `ACL ${target.key} has no IPv4 set (V4SetName is empty); cannot enforce ${ip}`
    : `ACL ${target.key} has no IPv6 set (V6SetName is empty); cannot enforce ${ip}`;
}

function oneLine(text: string): string {
  return text
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join("; ");
}

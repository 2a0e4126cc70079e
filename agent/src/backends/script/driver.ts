/**
 * The script driver (issue #10 item 6; docs/reference.md admin-console §3 "script"): runs the backend's Command, an
 * absolute path to an executable, once per address with the arguments `<action> <ACL name> <address>`
 * (`flush <ACL name>` to empty the ACL), the `knoc_*` variables and the backend's and ACL's variables
 * (Sensitive ones opened on the agent) in its environment, bounded by a timeout. Exit 0 is success;
 * otherwise the entry fails with the script's stderr, trimmed (or its exit code).
 *
 * A script cannot be read back: `list` reports what this driver applied since its last flush, a full
 * reconcile is `flush` then one `add` per address (`replace`), and drift on the target itself is not
 * seen (the driver declares no drift re-read beyond its own record).
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { CommandRunner } from "../../process/runner.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";
import { AppliedRecord } from "./applied.ts";
import { aclVariables, knocVariables, scriptAcl } from "./env.ts";
import type { ScriptAction } from "./env.ts";

/** Longest error text kept from a script's stderr, in characters. */
const MAX_ERROR_CHARS = 1_000;

/** Options of a `ScriptDriver`. */
export interface ScriptDriverOptions {
  readonly runner: CommandRunner;
  /** Absolute path of the executable. */
  readonly command: string;
  /** Longest run of one call, MILLISECONDS. */
  readonly timeoutMs: number;
  /** Opens a sealed Sensitive variable. */
  readonly openSecret: (sealed: string) => string;
}

/** Runs a script per address; see the module documentation. */
export class ScriptDriver implements Driver {
  /** The BackendConfig key handled: `script`. */
  readonly type = "script";
  readonly concurrency = 1;
  readonly #o: ScriptDriverOptions;
  /** What this driver applied since its last flush, per ACL name. */
  readonly #applied = new AppliedRecord();

  /** @throws Error when `command` is not an absolute path. */
  constructor(options: ScriptDriverOptions) {
    if (!options.command.startsWith("/")) throw new Error(`script Command must be an absolute path`);
    this.#o = options;
  }

  /** Runs `add` for each entry not yet expired at `now` (epoch ms); expired ones are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const out: EntryOutcome[] = [];
    for (const e of entries) {
      if (e.expiresAt <= now) out.push({ ip: e.ip, ok: true });
      else out.push(await this.#one(target, "add", e.ip, e.user));
    }
    return out;
  }

  /** Runs `del` for each address; a script that treats an absent address as success makes this idempotent. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const out: EntryOutcome[] = [];
    for (const ip of ips) out.push(await this.#one(target, "del", ip, undefined));
    return out;
  }

  /** What this driver applied to the ACL since its last flush (a script cannot be read back). */
  async list(target: Target): Promise<string[]> {
    return this.#applied.list(scriptAcl(target).Name);
  }

  /**
   * Runs `flush`, then `add` per entry. @throws Error with the script's error when the flush fails
   * (nothing is added then).
   */
  async replace(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const flushed = await this.#run(target, "flush", "", undefined);
    if (flushed !== null) throw new Error(flushed);
    this.#applied.flushed(scriptAcl(target).Name);
    return this.add(target, entries, now);
  }

  async #one(target: Target, action: ScriptAction, ip: string, user: string | undefined): Promise<EntryOutcome> {
    const n = normaliseIp(ip);
    if (!n) return { ip, ok: false, error: `invalid IP address "${ip}"` };
    const error = await this.#run(target, action, n.ip, user);
    if (error !== null) return { ip, ok: false, error };
    this.#applied.note(scriptAcl(target).Name, action === "add" ? "add" : "del", n.ip);
    return { ip, ok: true };
  }

  /** Runs one call; null on exit 0, else the error text. */
  async #run(target: Target, action: ScriptAction, ip: string, user: string | undefined): Promise<string | null> {
    const name = scriptAcl(target).Name;
    let env: Record<string, string>;
    try {
      env = { ...aclVariables(target, this.#o.openSecret), ...knocVariables(action, name, ip, user) };
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    const args = action === "flush" ? [action, name] : [action, name, ip];
    try {
      const r = await this.#o.runner.run(this.#o.command, args, {
        env,
        timeoutMs: this.#o.timeoutMs,
        processGroup: true,
      });
      if (r.exitCode === 0) return null;
      const text = r.stderr.trim();
      return text ? text.slice(0, MAX_ERROR_CHARS) : `${this.#o.command} exited with code ${r.exitCode}`;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
}

/**
 * The knocproxy driver (issue #10 item 8; docs/reference.md admin-console §3 "knocproxy"): an HAProxy that protects by
 * named ACLs. The ACL's Name (letters, digits, underscores) names the file `<dir>/<Name>.acl` (the
 * agent's `knocproxyDir`, default `/etc/haproxy/postern/`), which HAProxy loads with
 * `acl <anything> src -f /etc/haproxy/postern/<Name>.acl`. The runtime API addresses the ACL by that
 * path: `show acl <file>` to read, `add acl`/`del acl` for changes (an address is added only when not
 * present, and every textual form is deleted), and a full reconcile is atomic through `prepare acl`,
 * `add acl @<version>` and `commit acl @<version>` (HAProxy 2.4+). After every change the file is
 * rewritten atomically with the live entries, so a reload keeps them.
 */
import { join } from "node:path";
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";
import { parseAclEntries, RuntimeSession, writeAclFileAtomically } from "../haproxy/driver.ts";
import type { HaproxyTimeouts, RuntimeAddress } from "../haproxy/driver.ts";

/** The agent's default folder of knocproxy ACL files. */
export const DEFAULT_KNOCPROXY_DIR = "/etc/haproxy/postern";

/** Options of a `KnocproxyDriver`. */
export interface KnocproxyDriverOptions extends HaproxyTimeouts {
  /** Folder of the `<Name>.acl` files (absolute, no whitespace). */
  readonly dir: string;
  /** Where the runtime API listens (the backend's Protocol and Address). */
  readonly address: RuntimeAddress;
}

/** The ACL file of a knocproxy target. @throws Error when the Name is not letters, digits, underscores. */
export function knocproxyFile(dir: string, target: Target): string {
  if (!("knocproxy" in target.acl)) throw new Error(`target ${target.key} is not a knocproxy ACL`);
  const name = target.acl.knocproxy.Name;
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`invalid knocproxy ACL name ${JSON.stringify(name)}`);
  return join(dir, `${name}.acl`);
}

/** Enforces entries in named HAProxy ACL files; see the module documentation. */
export class KnocproxyDriver implements Driver {
  /** The BackendConfig key handled: `knocproxy`. */
  readonly type = "knocproxy";
  readonly concurrency = 1;
  readonly #o: KnocproxyDriverOptions;

  /** @throws Error when `dir` is not absolute or holds whitespace. */
  constructor(options: KnocproxyDriverOptions) {
    if (!options.dir.startsWith("/") || /\s/.test(options.dir))
      throw new Error(`knocproxyDir must be an absolute path without spaces: ${JSON.stringify(options.dir)}`);
    this.#o = options;
  }

  /** Adds the addresses not yet in the ACL, then rewrites its file. Expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const file = knocproxyFile(this.#o.dir, target);
    return this.#session(async (s) => {
      const present = await this.#present(s, file);
      const out: EntryOutcome[] = [];
      const commands: { i: number; ip: string }[] = [];
      entries.forEach((e, i) => {
        const n = normaliseIp(e.ip);
        if (!n) out[i] = { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
        else if (e.expiresAt <= now || present.has(n.ip)) out[i] = { ip: e.ip, ok: true };
        else if (commands.some((c) => c.ip === n.ip)) out[i] = { ip: e.ip, ok: true };
        else commands.push({ i, ip: n.ip });
      });
      const answers = await s.send(commands.map((c) => `add acl ${file} ${c.ip}`));
      commands.forEach((c, k) => {
        const a = (answers[k] ?? "no answer").trim();
        const ip = entries[c.i]!.ip;
        out[c.i] = a === "" ? { ip, ok: true } : { ip, ok: false, error: `HAProxy refused "add acl": ${a}` };
      });
      const fileError = await this.#syncFile(s, file);
      return out.map((o, i) => (fileError && o?.ok ? { ip: entries[i]!.ip, ok: false, error: fileError } : o!));
    });
  }

  /** Deletes every textual form of each address; an absent address succeeds. Then rewrites the file. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const file = knocproxyFile(this.#o.dir, target);
    return this.#session(async (s) => {
      const present = await this.#present(s, file);
      const out: EntryOutcome[] = [];
      const commands: { i: number; text: string }[] = [];
      ips.forEach((ip, i) => {
        const n = normaliseIp(ip);
        if (!n) return void (out[i] = { ip, ok: false, error: `invalid IP address "${ip}"` });
        out[i] = { ip, ok: true };
        for (const text of present.get(n.ip) ?? []) commands.push({ i, text });
      });
      const answers = await s.send(commands.map((c) => `del acl ${file} ${c.text}`));
      commands.forEach((c, k) => {
        const a = (answers[k] ?? "no answer").trim();
        if (a !== "" && !/key not found/i.test(a))
          out[c.i] = { ip: ips[c.i]!, ok: false, error: `HAProxy refused "del acl": ${a}` };
      });
      const fileError = await this.#syncFile(s, file);
      return out.map((o, i) => (fileError && o.ok ? { ip: ips[i]!, ok: false, error: fileError } : o));
    });
  }

  /** The live entries of the ACL, normalised. @throws Error when HAProxy has no ACL loaded from the file. */
  async list(target: Target): Promise<string[]> {
    const file = knocproxyFile(this.#o.dir, target);
    return this.#session(async (s) => [...(await this.#present(s, file)).keys()]);
  }

  /** Replaces the whole ACL atomically (prepare, add @version, commit), then rewrites the file. */
  async replace(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const file = knocproxyFile(this.#o.dir, target);
    return this.#session(async (s) => {
      await this.#present(s, file); // fails clearly when HAProxy has no such ACL
      const [prepared = ""] = await s.send([`prepare acl ${file}`]);
      const version = /New version created:\s*(\d+)/i.exec(prepared)?.[1];
      if (!version) throw new Error(`HAProxy refused "prepare acl ${file}": ${prepared.trim()}`);
      const out: EntryOutcome[] = [];
      const adds: { i: number; ip: string }[] = [];
      entries.forEach((e, i) => {
        const n = normaliseIp(e.ip);
        if (!n) out[i] = { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
        else if (e.expiresAt <= now) out[i] = { ip: e.ip, ok: true };
        else adds.push({ i, ip: n.ip });
      });
      const answers = await s.send(adds.map((a) => `add acl @${version} ${file} ${a.ip}`));
      adds.forEach((a, k) => {
        const answer = (answers[k] ?? "no answer").trim();
        const ip = entries[a.i]!.ip;
        out[a.i] = answer === "" ? { ip, ok: true } : { ip, ok: false, error: `HAProxy refused "add acl": ${answer}` };
      });
      const [committed = ""] = await s.send([`commit acl @${version} ${file}`]);
      if (committed.trim() !== "") throw new Error(`HAProxy refused "commit acl ${file}": ${committed.trim()}`);
      const fileError = await this.#syncFile(s, file);
      return out.map((o, i) => (fileError && o.ok ? { ip: entries[i]!.ip, ok: false, error: fileError } : o));
    });
  }

  async #session<T>(fn: (s: RuntimeSession) => Promise<T>): Promise<T> {
    const s = await RuntimeSession.open(this.#o.address, this.#o);
    try {
      return await fn(s);
    } finally {
      s.close();
    }
  }

  /** normalised address → the texts HAProxy holds for it. */
  async #present(s: RuntimeSession, file: string): Promise<Map<string, string[]>> {
    const [answer = ""] = await s.send([`show acl ${file}`]);
    if (/unknown acl|not found|missing/i.test(answer) && !/^0x/m.test(answer))
      throw new Error(
        `HAProxy has no ACL loaded from ${file}; add "acl <name> src -f ${file}" to its configuration and reload it`,
      );
    const out = new Map<string, string[]>();
    for (const text of parseAclEntries(answer)) {
      const ip = normaliseIp(text)?.ip ?? text;
      out.set(ip, [...(out.get(ip) ?? []), text]);
    }
    return out;
  }

  /** Rewrites the file with the live entries; returns an error message or null. */
  async #syncFile(s: RuntimeSession, file: string): Promise<string | null> {
    try {
      await writeAclFileAtomically(file, [...(await this.#present(s, file)).keys()]);
      return null;
    } catch (e) {
      return `changed live in HAProxy but the ACL file ${file} could not be written (a reload would undo it): ${e instanceof Error ? e.message : String(e)}`;
    }
  }
}

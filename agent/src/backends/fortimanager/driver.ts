/**
 * The FortiManager driver (issue #10 item 10; `shared/vendors.md` §2): JSON-RPC at `/jsonrpc` with
 * the API key as bearer token, in ADOM `root`. A grant is an address object `kk_<ip>` (IPv6 in
 * `address6`, `:` written `-`) added as a single member of the ACL's group (`addrgrp`, `addrgrp6`);
 * status -2 ("already exists") and -3 ("does not exist") are success, -7 ("in use") leaves the object.
 * FortiManager pushes objects to the FortiGates only on install, so the driver's commit step runs a
 * partial install of the group (`/securityconsole/install/objects/v2`) after every batch that changed
 * it and waits (bounded) for its task. One call at a time; drift is re-read once a minute.
 *
 * Not handled yet: workspace mode (lock, commit, unlock), ADOMs other than root.
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { HttpClient } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";

/** Options of a `FortimanagerDriver`. */
export interface FortimanagerDriverOptions {
  readonly http: HttpClient;
  /** Host of FortiManager, or a base URL with its scheme. */
  readonly hostname: string;
  readonly insecure: boolean;
  /** Never logged, never in an error. */
  readonly apiKey: string;
  /** Longest wait for an install task, MILLISECONDS (default 120,000); polled every `pollMs` (default 1,000). */
  readonly installTimeoutMs?: number;
  readonly pollMs?: number;
}

interface RpcResult {
  status?: { code?: number; message?: string };
  data?: unknown;
}

const ADOM = "/pm/config/adom/root";
const PREFIX = "kk_";

/** Keeps address objects in a FortiManager group and installs them; see the module documentation. */
export class FortimanagerDriver implements Driver {
  /** The BackendConfig key handled: `fortimanager`. */
  readonly type = "fortimanager";
  readonly concurrency = 1;
  readonly driftIntervalMs = 60_000;
  readonly #o: FortimanagerDriverOptions;
  #id = 0;

  /** @throws Error without a host or API key. */
  constructor(options: FortimanagerDriverOptions) {
    if (!options.hostname) throw new Error("the FortiManager backend has no Hostname");
    if (!options.apiKey) throw new Error("the FortiManager backend has no API key for this agent");
    this.#o = options;
  }

  /** Creates each object (if missing) and adds it to the group; expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const group = groupOf(target);
    const out: EntryOutcome[] = [];
    for (const e of entries) {
      const n = normaliseIp(e.ip);
      if (!n) out.push({ ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` });
      else if (e.expiresAt <= now) out.push({ ip: e.ip, ok: true });
      else {
        const v6 = n.family === "inet6";
        const name = `${PREFIX}${n.ip.replaceAll(":", "-")}`;
        try {
          await this.#ok(
            "add",
            `${ADOM}/obj/firewall/${v6 ? "address6" : "address"}`,
            v6 ? { name, ip6: `${n.ip}/128` } : { name, type: "ipmask", subnet: [n.ip, "255.255.255.255"] },
            [-2],
          );
          await this.#ok("add", `${ADOM}/obj/firewall/${v6 ? "addrgrp6" : "addrgrp"}/${group}/member`, [name], [-2]);
          out.push({ ip: e.ip, ok: true });
        } catch (err) {
          out.push({ ip: e.ip, ok: false, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
    return out;
  }

  /** Takes each object out of the group and deletes it; absent ones succeed. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const group = groupOf(target);
    const out: EntryOutcome[] = [];
    for (const ip of ips) {
      const n = normaliseIp(ip);
      if (!n) {
        out.push({ ip, ok: false, error: `invalid IP address "${ip}"` });
        continue;
      }
      const v6 = n.family === "inet6";
      const name = `${PREFIX}${n.ip.replaceAll(":", "-")}`;
      try {
        await this.#ok("delete", `${ADOM}/obj/firewall/${v6 ? "addrgrp6" : "addrgrp"}/${group}/member`, [name], [-3]);
        await this.#ok("delete", `${ADOM}/obj/firewall/${v6 ? "address6" : "address"}/${name}`, undefined, [-3, -7]);
        out.push({ ip, ok: true });
      } catch (err) {
        out.push({ ip, ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return out;
  }

  /** The addresses of the group's `kk_` members (IPv4 and IPv6 groups). */
  async list(target: Target): Promise<string[]> {
    const group = groupOf(target);
    const out: string[] = [];
    for (const kind of ["addrgrp", "addrgrp6"] as const) {
      const r = await this.#rpc("get", `${ADOM}/obj/firewall/${kind}/${group}`);
      if (r.status?.code === -3 && kind === "addrgrp6") continue;
      if (r.status?.code !== 0) throw new Error(`FortiManager could not read group ${group}: ${describe(r)}`);
      const members = (r.data as { member?: string[] } | undefined)?.member ?? [];
      for (const m of members) {
        if (!m.startsWith(PREFIX)) continue;
        const text = m.slice(PREFIX.length);
        const ip = normaliseIp(kind === "addrgrp6" ? text.replaceAll("-", ":") : text)?.ip;
        if (ip) out.push(ip);
      }
    }
    return [...new Set(out)];
  }

  /** Installs the group to its devices (partial install) and waits for the task. @throws Error when it fails. */
  async commit(target: Target): Promise<void> {
    const group = groupOf(target);
    const r = await this.#rpc("exec", "/securityconsole/install/objects/v2", {
      adom: "root",
      flags: 0,
      objects: [["update", `obj/firewall/addrgrp/${group}`, "", ""]],
      // (an IPv6 group of the same name goes with it: FortiManager installs the objects it references)
    });
    if (r.status?.code !== 0) throw new Error(`FortiManager refused the install of ${group}: ${describe(r)}`);
    const task = (r.data as { task?: number } | undefined)?.task;
    if (task === undefined) return;
    const deadline = Date.now() + (this.#o.installTimeoutMs ?? 120_000);
    for (;;) {
      const t = await this.#rpc("get", `/task/task/${task}`);
      const d = (t.data ?? {}) as { percent?: number; num_err?: number; state?: string };
      if ((d.num_err ?? 0) > 0) throw new Error(`FortiManager install task ${task} of ${group} failed`);
      if ((d.percent ?? 0) >= 100) return;
      if (Date.now() > deadline)
        throw new Error(`FortiManager install task ${task} of ${group} did not finish in time`);
      await new Promise((res) => setTimeout(res, this.#o.pollMs ?? 1_000));
    }
  }

  /** Runs one call; success or an ignorable code passes, anything else throws. */
  async #ok(method: string, url: string, data: unknown, fine: number[]): Promise<void> {
    const r = await this.#rpc(method, url, data);
    const code = r.status?.code;
    if (code === 0 || (code !== undefined && fine.includes(code))) return;
    throw new Error(`FortiManager refused ${method} ${url.replace(ADOM, "")}: ${describe(r)}`);
  }

  async #rpc(method: string, url: string, data?: unknown): Promise<RpcResult> {
    const h = this.#o.hostname;
    const base = /^https?:\/\//.test(h) ? h.replace(/\/+$/, "") : `https://${h}`;
    const r = await this.#o.http.request({
      method: "POST",
      url: `${base}/jsonrpc`,
      headers: { authorization: `Bearer ${this.#o.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ id: ++this.#id, method, params: [{ url, ...(data === undefined ? {} : { data }) }] }),
      insecure: this.#o.insecure,
      timeoutMs: 30_000,
    });
    if (r.status === 401 || r.status === 403) return { status: { code: -11, message: "the API key was refused" } };
    try {
      return ((JSON.parse(r.body) as { result?: RpcResult[] }).result ?? [])[0] ?? {};
    } catch {
      return { status: { code: -1, message: `HTTP ${r.status}` } };
    }
  }
}

function groupOf(target: Target): string {
  if (!("fortimanager" in target.acl)) throw new Error(`target ${target.key} is not a fortimanager ACL`);
  return target.acl.fortimanager.Name;
}

function describe(r: RpcResult): string {
  return `status ${r.status?.code ?? "?"}${r.status?.message ? ` (${r.status.message})` : ""}`;
}

/**
 * The Sophos UTM driver (issue #10 item 10; `shared/vendors.md` §5): the UTM REST API with the API
 * token as Basic auth (`token:<ApiKey>`). A grant is a host object `kk_<ip>` (IPv6 in `address6`)
 * referenced from the network group named by the ACL's GroupReference. The group's member list is
 * replaced whole (GET, then PATCH of `members`), so each batch does one read and one write, and the
 * driver runs one call at a time (`concurrency` 1) so two batches never interleave. Host objects are
 * found by address and name prefix before one is created; a revoked host is deleted with
 * `X-Restd-Err-Ack: all`. Drift is re-read once a minute.
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { HttpClient, HttpResponse } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";

/** Options of a `SophosUtmDriver`. */
export interface SophosUtmDriverOptions {
  readonly http: HttpClient;
  /** Host of the UTM (`utm.example`, port 4444 implied) or a base URL with its scheme. */
  readonly hostname: string;
  readonly insecure: boolean;
  /** Never logged, never in an error. */
  readonly apiKey: string;
  /** Timeout of one request, MILLISECONDS (default 15,000). */
  readonly timeoutMs?: number;
}

interface Host {
  _ref: string;
  name: string;
  address?: string;
  address6?: string;
}

const PREFIX = "kk_";

/** Keeps host objects in a UTM network group; see the module documentation. */
export class SophosUtmDriver implements Driver {
  /** The BackendConfig key handled: `sophosutm`. */
  readonly type = "sophosutm";
  readonly concurrency = 1;
  readonly driftIntervalMs = 60_000;
  readonly #o: SophosUtmDriverOptions;

  /** @throws Error without a host or API key. */
  constructor(options: SophosUtmDriverOptions) {
    if (!options.hostname) throw new Error("the Sophos UTM backend has no Hostname");
    if (!options.apiKey) throw new Error("the Sophos UTM backend has no API key for this agent");
    this.#o = options;
  }

  /** Ensures a host per address and one PATCH of the group's members; expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const group = groupOf(target);
    const out: EntryOutcome[] = [];
    const wanted: { i: number; ip: string; v6: boolean }[] = [];
    entries.forEach((e, i) => {
      const n = normaliseIp(e.ip);
      out[i] = n ? { ip: e.ip, ok: true } : { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
      if (n && e.expiresAt > now) wanted.push({ i, ip: n.ip, v6: n.family === "inet6" });
    });
    if (wanted.length === 0) return out;
    try {
      const hosts = await this.#hosts();
      const refs: string[] = [];
      for (const w of wanted) {
        let host = findHost(hosts, w.ip);
        if (!host) {
          const r = await this.#call("POST", "/objects/network/host/", {
            name: `${PREFIX}${w.ip}`,
            ...(w.v6 ? { address: "", address6: w.ip } : { address: w.ip, address6: "" }),
            resolved: false,
            resolved6: false,
            comment: "postern",
          });
          this.#check(r, `create host ${PREFIX}${w.ip}`);
          host = JSON.parse(r.body) as Host;
          hosts.push(host);
        }
        refs.push(host._ref);
      }
      const members = await this.#members(group);
      const next = [...members, ...refs.filter((r) => !members.includes(r))];
      if (next.length !== members.length) await this.#setMembers(group, next);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      for (const w of wanted) out[w.i] = { ip: entries[w.i]!.ip, ok: false, error };
    }
    return out;
  }

  /** One PATCH without the addresses' hosts, then deletes those hosts; absent ones succeed. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const group = groupOf(target);
    const out: EntryOutcome[] = ips.map((ip) =>
      normaliseIp(ip) ? { ip, ok: true } : { ip, ok: false, error: `invalid IP address "${ip}"` },
    );
    try {
      const hosts = await this.#hosts();
      const gone = ips.flatMap((ip) => {
        const h = findHost(hosts, normaliseIp(ip)?.ip ?? "");
        return h ? [h._ref] : [];
      });
      if (gone.length === 0) return out;
      const members = await this.#members(group);
      const next = members.filter((m) => !gone.includes(m));
      if (next.length !== members.length) await this.#setMembers(group, next);
      for (const ref of gone) {
        const r = await this.#call("DELETE", `/objects/network/host/${encodeURIComponent(ref)}`, undefined, {
          "x-restd-err-ack": "all",
        });
        if (r.status !== 404) this.#check(r, `delete host ${ref}`);
      }
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      return out.map((o) => (o.ok ? { ip: o.ip, ok: false, error } : o));
    }
    return out;
  }

  /** The addresses of the group's `kk_` hosts. @throws Error when the group cannot be read. */
  async list(target: Target): Promise<string[]> {
    const members = new Set(await this.#members(groupOf(target)));
    const hosts = await this.#hosts();
    return hosts
      .filter((h) => members.has(h._ref) && h.name.startsWith(PREFIX))
      .map((h) => normaliseIp(h.address || h.address6 || "")?.ip)
      .filter((ip): ip is string => !!ip);
  }

  async #hosts(): Promise<Host[]> {
    const r = await this.#call("GET", "/objects/network/host/");
    this.#check(r, "list hosts");
    return JSON.parse(r.body) as Host[];
  }

  async #members(group: string): Promise<string[]> {
    const r = await this.#call("GET", `/objects/network/group/${encodeURIComponent(group)}`);
    if (r.status === 404) throw new Error(`Sophos UTM has no network group ${group}`);
    this.#check(r, `read network group ${group}`);
    return (JSON.parse(r.body) as { members?: string[] }).members ?? [];
  }

  async #setMembers(group: string, members: string[]): Promise<void> {
    const r = await this.#call("PATCH", `/objects/network/group/${encodeURIComponent(group)}`, { members });
    this.#check(r, `update network group ${group}`);
  }

  #call(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<HttpResponse> {
    const h = this.#o.hostname;
    const base = /^https?:\/\//.test(h) ? h.replace(/\/+$/, "") : `https://${h}:4444`;
    return this.#o.http.request({
      method,
      url: `${base}/api${path}`,
      headers: {
        authorization: `Basic ${Buffer.from(`token:${this.#o.apiKey}`).toString("base64")}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...extra,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      insecure: this.#o.insecure,
      timeoutMs: this.#o.timeoutMs ?? 15_000,
    });
  }

  /** @throws Error with the step, the status and the UTM's error names (never the key). */
  #check(r: HttpResponse, what: string): void {
    if (r.status >= 200 && r.status < 300) return;
    let names = "";
    try {
      const errs = JSON.parse(r.body) as { name?: string }[];
      if (Array.isArray(errs))
        names = errs
          .map((e) => e.name)
          .filter(Boolean)
          .join(", ");
    } catch {
      // not the error array
    }
    const hint = r.status === 401 || r.status === 403 ? ": the API key was refused" : "";
    throw new Error(`Sophos UTM could not ${what}: HTTP ${r.status}${names ? ` (${names})` : ""}${hint}`);
  }
}

function groupOf(target: Target): string {
  if (!("sophosutm" in target.acl)) throw new Error(`target ${target.key} is not a sophosutm ACL`);
  return target.acl.sophosutm.GroupReference;
}

function findHost(hosts: readonly Host[], ip: string): Host | undefined {
  return hosts.find(
    (h) =>
      h.name.startsWith(PREFIX) &&
      (normaliseIp(h.address ?? "")?.ip === ip || normaliseIp(h.address6 ?? "")?.ip === ip),
  );
}

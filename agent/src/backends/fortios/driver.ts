/**
 * The FortiOS driver (issue #10 item 10; `shared/vendors.md` §1): a FortiGate's REST API with a
 * bearer token. A grant is an address object `<Prefix><ip>` (Prefix default `kk_`; IPv6 objects in
 * `address6` with `:` written as `-`) that is a member of the ACL's address group (`addrgrp`, or
 * `addrgrp6` for IPv6, both named by the ACL's Name), in the backend's VDOM when set. Members are
 * added and removed one by one through the group's `member` sub-table (no read-modify-write).
 * "Already there" (error -5) and "not there" (-3, HTTP 404) are success; an object still used by
 * another group (-23) stays. Drift is re-read once a minute.
 *
 * FortiOS below 7.2 cannot hold an empty address group (vendors.md §1 "Empty groups"; its error for
 * that is not documented): when taking a member out is refused, the built-in address `none`
 * (0.0.0.0/32, ::/128 for address6) goes in as a placeholder and the member is taken out again; the
 * placeholder leaves when the next grant comes in. Calls on one target run one after the other (the
 * driver's default concurrency of 1).
 */
import { normaliseIp } from "@postern/shared";
import type { AddressFamily, Entry, Target } from "@postern/shared";
import type { HttpClient, HttpResponse } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";

/** Options of a `FortiosDriver`. */
export interface FortiosDriverOptions {
  readonly http: HttpClient;
  /** Base URL of the REST API (`https://fw.example`). */
  readonly url: string;
  readonly insecure: boolean;
  /** The API token. Never logged, never in an error. */
  readonly bearer: string;
  readonly prefix: string;
  /** VDOM, or "" for the default one. */
  readonly vdom: string;
  /** Timeout of one request, MILLISECONDS (default 15,000). */
  readonly timeoutMs?: number;
}

interface FortiosAnswer {
  status?: string;
  error?: number;
  results?: { member?: { name: string }[] }[];
}

/** The object name of an address: `<prefix><ip>`, `:` written as `-` for IPv6. */
export function fortiosObjectName(prefix: string, ip: string): string {
  return `${prefix}${ip.replaceAll(":", "-")}`;
}

/** Enforces entries as address objects in a FortiGate address group; see the module documentation. */
export class FortiosDriver implements Driver {
  /** The BackendConfig key handled: `fortios`. */
  readonly type = "fortios";
  readonly concurrency = 2;
  readonly driftIntervalMs = 60_000;
  readonly #o: FortiosDriverOptions;

  /** @throws Error when the URL is not http(s) or no token is given. */
  constructor(options: FortiosDriverOptions) {
    const u = new URL(options.url);
    if (u.protocol !== "https:" && u.protocol !== "http:") throw new Error("FortiOS Url must be http or https");
    if (!options.bearer) throw new Error("the FortiOS backend has no API token for this agent");
    this.#o = options;
  }

  /** Creates the object (if missing) and adds it to the group; expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const group = groupOf(target);
    const out: EntryOutcome[] = [];
    for (const e of entries) {
      const n = normaliseIp(e.ip);
      if (!n) out.push({ ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` });
      else if (e.expiresAt <= now) out.push({ ip: e.ip, ok: true });
      else out.push(await this.#add(group, n.ip, n.family, e.ip));
    }
    return out;
  }

  /** Takes each address's object out of the group and deletes it; absent ones succeed. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const group = groupOf(target);
    const out: EntryOutcome[] = [];
    for (const ip of ips) {
      const n = normaliseIp(ip);
      if (!n) out.push({ ip, ok: false, error: `invalid IP address "${ip}"` });
      else out.push(await this.#remove(group, n.ip, n.family, ip));
    }
    return out;
  }

  /** The addresses of the group's members that carry the prefix (IPv4 and IPv6 groups). */
  async list(target: Target): Promise<string[]> {
    const group = groupOf(target);
    const out: string[] = [];
    for (const kind of ["addrgrp", "addrgrp6"] as const) {
      const r = await this.#call("GET", `/api/v2/cmdb/firewall/${kind}/${enc(group)}`);
      if (isMissing(r)) {
        if (kind === "addrgrp") throw new Error(`FortiOS has no address group ${group}${this.#where()}`);
        continue;
      }
      this.#check(r, `read address group ${group}`);
      for (const m of (parse(r).results?.[0]?.member ?? []).map((x) => x.name)) {
        if (!m.startsWith(this.#o.prefix)) continue;
        const text = m.slice(this.#o.prefix.length);
        const ip = normaliseIp(kind === "addrgrp6" ? text.replaceAll("-", ":") : text)?.ip;
        if (ip) out.push(ip);
      }
    }
    return [...new Set(out)];
  }

  async #add(group: string, ip: string, family: AddressFamily, given: string): Promise<EntryOutcome> {
    const name = fortiosObjectName(this.#o.prefix, ip);
    const v6 = family === "inet6";
    try {
      const created = await this.#call(
        "POST",
        `/api/v2/cmdb/firewall/${v6 ? "address6" : "address"}`,
        v6
          ? { name, ip6: `${ip}/128`, comment: "postern" }
          : { name, type: "ipmask", subnet: `${ip}/32`, comment: "postern" },
      );
      if (!isDuplicate(created)) this.#check(created, `create address ${name}`);
      const member = await this.#call(
        "POST",
        `/api/v2/cmdb/firewall/${v6 ? "addrgrp6" : "addrgrp"}/${enc(group)}/member`,
        {
          name,
        },
      );
      if (isMissing(member)) throw new Error(`FortiOS has no address group ${group}${this.#where()}`);
      if (!isDuplicate(member)) this.#check(member, `add ${name} to ${group}`);
      // The placeholder of an empty group is no longer needed (absent: fine).
      const placeholder = await this.#call(
        "DELETE",
        `/api/v2/cmdb/firewall/${v6 ? "addrgrp6" : "addrgrp"}/${enc(group)}/member/${PLACEHOLDER}`,
      );
      if (!isMissing(placeholder)) this.#check(placeholder, `remove the placeholder ${PLACEHOLDER} from ${group}`);
      return { ip: given, ok: true };
    } catch (err) {
      return { ip: given, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  async #remove(group: string, ip: string, family: AddressFamily, given: string): Promise<EntryOutcome> {
    const name = fortiosObjectName(this.#o.prefix, ip);
    const v6 = family === "inet6";
    try {
      const kind = v6 ? "addrgrp6" : "addrgrp";
      const path = `/api/v2/cmdb/firewall/${kind}/${enc(group)}/member`;
      let member = await this.#call("DELETE", `${path}/${enc(name)}`);
      if (!isMissing(member) && !succeeded(member)) {
        // FortiOS below 7.2 refuses to empty a group: hold it with the placeholder, then try again.
        const placed = await this.#call("POST", path, { name: PLACEHOLDER });
        if (!isDuplicate(placed)) this.#check(placed, `add the placeholder ${PLACEHOLDER} to ${group}`);
        member = await this.#call("DELETE", `${path}/${enc(name)}`);
      }
      if (!isMissing(member)) this.#check(member, `remove ${name} from ${group}`);
      const object = await this.#call("DELETE", `/api/v2/cmdb/firewall/${v6 ? "address6" : "address"}/${enc(name)}`);
      if (!isMissing(object) && parse(object).error !== -23) this.#check(object, `delete address ${name}`);
      return { ip: given, ok: true };
    } catch (err) {
      return { ip: given, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  async #call(method: string, path: string, body?: unknown): Promise<HttpResponse> {
    const url = new URL(path, this.#o.url.replace(/\/+$/, "") + "/");
    if (this.#o.vdom) url.searchParams.set("vdom", this.#o.vdom);
    return this.#o.http.request({
      method,
      url: url.toString(),
      headers: {
        authorization: `Bearer ${this.#o.bearer}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      insecure: this.#o.insecure,
      timeoutMs: this.#o.timeoutMs ?? 15_000,
    });
  }

  /** @throws Error naming the step, the HTTP status and FortiOS's error code (never the token). */
  #check(r: HttpResponse, what: string): void {
    const a = parse(r);
    if (r.status >= 200 && r.status < 300 && a.status !== "error") return;
    const code = a.error !== undefined ? ` (error ${a.error})` : "";
    const hint = r.status === 401 || r.status === 403 ? ": the API token was refused" : "";
    throw new Error(`FortiOS could not ${what}${this.#where()}: HTTP ${r.status}${code}${hint}`);
  }

  #where(): string {
    return this.#o.vdom ? ` in VDOM ${this.#o.vdom}` : "";
  }
}

/** The built-in FortiOS address (and address6) that holds a group that would be empty. */
const PLACEHOLDER = "none";

function groupOf(target: Target): string {
  if (!("fortios" in target.acl)) throw new Error(`target ${target.key} is not a fortios ACL`);
  return target.acl.fortios.Name;
}

function enc(s: string): string {
  return encodeURIComponent(s);
}

function parse(r: HttpResponse): FortiosAnswer {
  try {
    return JSON.parse(r.body) as FortiosAnswer;
  } catch {
    return {};
  }
}

/** "Already there": -5 (duplicate entry) or -15 (duplicate entry found). */
function isDuplicate(r: HttpResponse): boolean {
  const e = parse(r).error;
  return e === -5 || e === -15;
}

/** A 2xx answer that is not an error envelope. */
function succeeded(r: HttpResponse): boolean {
  return r.status >= 200 && r.status < 300 && parse(r).status !== "error";
}

/** "Not there": HTTP 404 or error -3. */
function isMissing(r: HttpResponse): boolean {
  return r.status === 404 || parse(r).error === -3;
}

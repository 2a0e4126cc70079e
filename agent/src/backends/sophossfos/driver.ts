/**
 * The Sophos Firewall (SFOS, XG) driver (issue #10 item 10; `shared/vendors.md` §6): the XML API at
 * `/webconsole/APIController` (port 4444), one form field `reqxml` per request carrying `<Login>`
 * with the user name and password. A grant is an IP host `kk_<ip>` (IPv6 hosts with `:` written `-`,
 * `IPFamily` IPv6) listed in the IP host group named by the ACL's GroupName (IPv4) or GroupNameV6
 * (IPv6).
 *
 * - The group's HostList is replaced whole (Get, then `Set operation="update"` with the full list, as
 *   the Sophos SDK's `IPHostGroup.update` does), so each batch does one read and at most one write per
 *   family, and the driver runs one call at a time (`concurrency` 1).
 * - Adding a host that exists (code 502, "Entity having same name already exists") is success; a
 *   host already listed is not added again; revoking an absent address changes nothing.
 * - A revoke takes the hosts out of the group, then removes them (`<Remove><IPHost>`). The code SFOS
 *   answers for a missing or still used host is not documented, so a failed Remove does not fail the
 *   revoke: the address is out of the group, which is what grants access; the host object stays.
 * - Only `kk_` hosts are the driver's: other hosts in the group are the admin's and are kept.
 * - Code 532 (API access not enabled), 534 (this address not allowed to use the API) and
 *   "Authentication Failure" fail the whole call with that reason. Drift is re-read once a minute.
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { HttpClient } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";
import { parseSfosResponse, sfosEscape, sfosHostList, sfosStatus } from "./xml.ts";
import type { SfosEntity, SfosResponse } from "./xml.ts";

/** The name prefix of the hosts this driver owns. */
export const SFOS_PREFIX = "kk_";

/** The host name of an address: `kk_<ip>`, `:` written `-` for IPv6. */
export function sfosHostName(ip: string): string {
  return `${SFOS_PREFIX}${ip.replaceAll(":", "-")}`;
}

/** The address a `kk_` host name stands for, or undefined for other names. */
export function sfosHostAddress(name: string, v6: boolean): string | undefined {
  if (!name.startsWith(SFOS_PREFIX)) return undefined;
  const text = name.slice(SFOS_PREFIX.length);
  return normaliseIp(v6 ? text.replaceAll("-", ":") : text)?.ip;
}

/** Options of a `SophosSfosDriver`. */
export interface SophosSfosDriverOptions {
  readonly http: HttpClient;
  /** Host of the firewall (`fw.example`, port 4444 implied) or a base URL with its scheme. */
  readonly hostname: string;
  readonly insecure: boolean;
  readonly username: string;
  /** Never logged, never in an error. */
  readonly password: string;
  /** Timeout of one request, MILLISECONDS (default 30,000). */
  readonly timeoutMs?: number;
}

type Family = "IPv4" | "IPv6";

/** Keeps IP hosts in an SFOS IP host group; see the module documentation. */
export class SophosSfosDriver implements Driver {
  /** The BackendConfig key handled: `sophossfos`. */
  readonly type = "sophossfos";
  readonly concurrency = 1;
  readonly driftIntervalMs = 60_000;
  readonly #o: SophosSfosDriverOptions;

  /** @throws Error without a host, user name or password. */
  constructor(options: SophosSfosDriverOptions) {
    if (!options.hostname) throw new Error("the Sophos Firewall backend has no Hostname");
    if (!options.username) throw new Error("the Sophos Firewall backend has no Username");
    if (!options.password) throw new Error("the Sophos Firewall backend has no password for this agent");
    this.#o = options;
  }

  /** Creates the missing hosts and lists them in the family's group (one update each); expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const groups = groupsOf(target);
    const out: EntryOutcome[] = [];
    const byFamily: Record<Family, { i: number; ip: string }[]> = { IPv4: [], IPv6: [] };
    entries.forEach((e, i) => {
      const n = normaliseIp(e.ip);
      if (!n) out[i] = { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
      else {
        out[i] = { ip: e.ip, ok: true };
        if (e.expiresAt > now) byFamily[n.family === "inet6" ? "IPv6" : "IPv4"].push({ i, ip: n.ip });
      }
    });
    for (const family of ["IPv4", "IPv6"] as const) {
      const wanted = byFamily[family];
      if (wanted.length === 0) continue;
      const group = groups[family];
      const fail = (error: string, which = wanted) => {
        for (const w of which) out[w.i] = { ip: entries[w.i]!.ip, ok: false, error };
      };
      if (!group) {
        fail(`the ACL has no ${family === "IPv4" ? "GroupName" : "GroupNameV6"} for ${family} addresses`);
        continue;
      }
      try {
        const current = await this.#group(group);
        const list = sfosHostList(current);
        const added: string[] = [];
        for (const w of wanted) {
          const name = sfosHostName(w.ip);
          if (list.includes(name) || added.includes(name)) continue;
          const error = await this.#createHost(name, w.ip, family);
          if (error) fail(error, [w]);
          else added.push(name);
        }
        if (added.length > 0) await this.#setHosts(current, group, family, [...list, ...added]);
      } catch (err) {
        fail(
          err instanceof Error ? err.message : String(err),
          wanted.filter((w) => out[w.i]!.ok),
        );
      }
    }
    return out;
  }

  /** Takes the addresses' hosts out of their groups (one update each), then removes the hosts; absent ones succeed. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const groups = groupsOf(target);
    const out: EntryOutcome[] = [];
    const byFamily: Record<Family, { i: number; name: string }[]> = { IPv4: [], IPv6: [] };
    ips.forEach((ip, i) => {
      const n = normaliseIp(ip);
      out[i] = n ? { ip, ok: true } : { ip, ok: false, error: `invalid IP address "${ip}"` };
      if (n) byFamily[n.family === "inet6" ? "IPv6" : "IPv4"].push({ i, name: sfosHostName(n.ip) });
    });
    for (const family of ["IPv4", "IPv6"] as const) {
      const gone = byFamily[family];
      const group = groups[family];
      if (gone.length === 0 || !group) continue;
      try {
        const current = await this.#group(group);
        const list = sfosHostList(current);
        const names = new Set(gone.map((g) => g.name));
        const kept = list.filter((h) => !names.has(h));
        if (kept.length !== list.length) await this.#setHosts(current, group, family, kept);
        for (const name of names) {
          await this.#request(`<Remove><IPHost><Name>${sfosEscape(name)}</Name></IPHost></Remove>`);
        }
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        for (const g of gone) out[g.i] = { ip: ips[g.i]!, ok: false, error };
      }
    }
    return out;
  }

  /** The addresses of the `kk_` hosts listed in the ACL's groups. @throws Error when a group cannot be read. */
  async list(target: Target): Promise<string[]> {
    const groups = groupsOf(target);
    const out: string[] = [];
    for (const family of ["IPv4", "IPv6"] as const) {
      const group = groups[family];
      if (!group) continue;
      for (const name of sfosHostList(await this.#group(group))) {
        const ip = sfosHostAddress(name, family === "IPv6");
        if (ip) out.push(ip);
      }
    }
    return [...new Set(out)];
  }

  /** Reads one IP host group. @throws Error when it does not exist or cannot be read. */
  async #group(name: string): Promise<SfosEntity> {
    const r = await this.#request(
      `<Get><IPHostGroup><Filter><key name="Name" criteria="=">${sfosEscape(name)}</key></Filter></IPHostGroup></Get>`,
    );
    const found = (r.entities["IPHostGroup"] ?? []).find((g) => String(g["Name"] ?? "") === name);
    if (!found) throw new Error(`Sophos Firewall has no IP host group ${name}`);
    return found;
  }

  /** Creates an IP host; returns why it failed, or "" (502 "already exists" is success). */
  async #createHost(name: string, ip: string, family: Family): Promise<string> {
    const r = await this.#request(
      `<Set operation="add"><IPHost transactionid=""><Name>${sfosEscape(name)}</Name><IPFamily>${family}</IPFamily>` +
        `<HostType>IP</HostType><IPAddress>${sfosEscape(ip)}</IPAddress></IPHost></Set>`,
    );
    const s = sfosStatus((r.entities["IPHost"] ?? [])[0]?.Status);
    if (s && (s.code.startsWith("2") || s.code === "502")) return "";
    return `Sophos Firewall could not create host ${name}: ${s ? `${s.code} ${s.text}`.trim() : "no status"}`;
  }

  /** Writes a group's whole HostList (keeping its description). @throws Error when refused. */
  async #setHosts(current: SfosEntity, name: string, family: Family, hosts: string[]): Promise<void> {
    const description = typeof current["Description"] === "string" ? current["Description"] : "";
    const r = await this.#request(
      `<Set operation="update"><IPHostGroup transactionid=""><Name>${sfosEscape(name)}</Name>` +
        `<Description>${sfosEscape(description)}</Description><HostList>` +
        hosts.map((h) => `<Host>${sfosEscape(h)}</Host>`).join("") +
        `</HostList><IPFamily>${family}</IPFamily></IPHostGroup></Set>`,
    );
    const s = sfosStatus((r.entities["IPHostGroup"] ?? [])[0]?.Status);
    if (!s?.code.startsWith("2"))
      throw new Error(
        `Sophos Firewall could not update IP host group ${name}: ${s ? `${s.code} ${s.text}`.trim() : "no status"}`,
      );
  }

  /**
   * Sends one request (`body` after the Login). @throws Error on a transport failure, a non-2xx HTTP
   * status, an answer that is not a Response, 532/534 or a refused login (never the password).
   */
  async #request(body: string): Promise<SfosResponse> {
    const h = this.#o.hostname;
    const base = /^https?:\/\//.test(h) ? h.replace(/\/+$/, "") : `https://${h}:4444`;
    const xml =
      `<Request><Login><Username>${sfosEscape(this.#o.username)}</Username>` +
      `<Password>${sfosEscape(this.#o.password)}</Password></Login>${body}</Request>`;
    const r = await this.#o.http.request({
      method: "POST",
      url: `${base}/webconsole/APIController`,
      headers: { accept: "application/xml", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ reqxml: xml }).toString(),
      insecure: this.#o.insecure,
      timeoutMs: this.#o.timeoutMs ?? 30_000,
    });
    if (r.status < 200 || r.status >= 300) throw new Error(`Sophos Firewall answered HTTP ${r.status}`);
    let parsed: SfosResponse;
    try {
      parsed = parseSfosResponse(r.body);
    } catch (err) {
      throw new Error(`Sophos Firewall: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    const code = parsed.status?.code;
    if (code === "532") throw new Error("Sophos Firewall refused the call: API access is not enabled (532)");
    if (code === "534")
      throw new Error("Sophos Firewall refused the call: this agent's address is not allowed to use the API (534)");
    if (parsed.login === "Authentication Failure")
      throw new Error("Sophos Firewall refused the login: the user name or password was refused");
    return parsed;
  }
}

function groupsOf(target: Target): Record<Family, string> {
  if (!("sophossfos" in target.acl)) throw new Error(`target ${target.key} is not a sophossfos ACL`);
  return { IPv4: target.acl.sophossfos.GroupName, IPv6: target.acl.sophossfos.GroupNameV6 };
}

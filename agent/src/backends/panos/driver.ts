/**
 * The PAN-OS driver, active mode (issue #10 item 10; `shared/vendors.md` §3): the XML API's User-ID
 * `register`/`unregister` of each address on the tag named by the ACL's GroupName (the match of a
 * Dynamic Address Group), with the grant's expiry as the tag's native timeout (seconds, at most 30
 * days), so PAN-OS ends access on time by itself. No commit is needed. One `uid-message` per batch;
 * the per-entry messages "already exists, ignore" and "does not exist, ignore unreg" are success (as
 * pan-os-python does). The tag is read back with `show object registered-ip tag`. Drift is re-read
 * once a minute.
 *
 * Passive+ (an ACL with EDLName, the hidden child of a Passive+ Knoc): the firewall reads the list from
 * the server's allowlist URL by itself, so add and remove only record the addresses (`list` answers
 * from that record: the list cannot be read back here) and the commit step after a changed batch asks
 * the firewall to fetch it now: `type=op` `request system external-list refresh type ip name
 * <EDLName>`, sent through Panorama to the device `target=<SerialNumber>` when SerialNumber is set.
 *
 * Not handled yet: MapUser (login/logout).
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { HttpClient, HttpResponse } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";
import { AppliedRecord } from "../script/applied.ts";

/** Longest User-ID tag timeout, in seconds (30 days). */
export const PANOS_MAX_TIMEOUT_SECONDS = 2_592_000;

/** Options of a `PanosDriver`. */
export interface PanosDriverOptions {
  readonly http: HttpClient;
  /** Host name or `host:port` of the firewall (or Panorama). */
  readonly hostname: string;
  readonly insecure: boolean;
  /** The API key. Never logged, never in an error. */
  readonly apiKey: string;
  readonly vsys: string;
  /** Base URL override (tests: `http://127.0.0.1:PORT`); default `https://<hostname>`. */
  readonly baseUrl?: string;
  /** Timeout of one request, MILLISECONDS (default 15,000). */
  readonly timeoutMs?: number;
}

/** XML-escapes an attribute or text value. */
export function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

/** The per-entry messages of a User-ID answer: ip → message. */
export function parseUidMessages(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of xml.matchAll(/<entry\b[^>]*\bip="([^"]+)"[^>]*\bmessage="([^"]*)"/g)) out.set(m[1]!, m[2]!);
  return out;
}

/** The addresses of a `show object registered-ip` answer. */
export function parseRegisteredIps(xml: string): string[] {
  return [...xml.matchAll(/<entry\b[^>]*\bip="([^"]+)"/g)].map((m) => normaliseIp(m[1]!)?.ip ?? m[1]!);
}

const IGNORABLE = /(already exists, ignore|does not exist, ignore unreg)$/;

/** Registers addresses on a User-ID tag; see the module documentation. */
export class PanosDriver implements Driver {
  /** The BackendConfig key handled: `panos`. */
  readonly type = "panos";
  readonly concurrency = 1;
  readonly driftIntervalMs = 60_000;
  readonly #o: PanosDriverOptions;
  /** Passive+: what each EDL target was given, and the targets changed since their last refresh. */
  readonly #edl = new AppliedRecord();
  readonly #unrefreshed = new Set<string>();

  /** @throws Error without a host or API key. */
  constructor(options: PanosDriverOptions) {
    if (!options.hostname && !options.baseUrl) throw new Error("the PAN-OS backend has no Hostname");
    if (!options.apiKey) throw new Error("the PAN-OS backend has no API key for this agent");
    this.#o = options;
  }

  /** Registers each address on the tag with its expiry as timeout; expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    if (edlOf(target))
      return this.#record(
        target,
        "add",
        entries.filter((e) => e.expiresAt > now).map((e) => e.ip),
        entries.map((e) => e.ip),
      );
    const tag = tagOf(target);
    const lines: { i: number; ip: string }[] = [];
    const out: EntryOutcome[] = entries.map((e, i) => {
      const n = normaliseIp(e.ip);
      if (!n) return { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
      if (e.expiresAt > now) lines.push({ i, ip: n.ip });
      return { ip: e.ip, ok: true };
    });
    const xml = lines
      .map(({ i, ip }) => {
        const timeout = Math.min(
          PANOS_MAX_TIMEOUT_SECONDS,
          Math.max(1, Math.ceil((entries[i]!.expiresAt - now) / 1000)),
        );
        return `<entry ip="${xmlEscape(ip)}"><tag><member timeout="${timeout}">${xmlEscape(tag)}</member></tag></entry>`;
      })
      .join("");
    await this.#uid(`<register>${xml}</register>`, lines, out);
    return out;
  }

  /** Unregisters each address from the tag; an address not registered succeeds. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    if (edlOf(target)) return this.#record(target, "del", ips, ips);
    const tag = tagOf(target);
    const lines: { i: number; ip: string }[] = [];
    const out: EntryOutcome[] = ips.map((ip, i) => {
      const n = normaliseIp(ip);
      if (!n) return { ip, ok: false, error: `invalid IP address "${ip}"` };
      lines.push({ i, ip: n.ip });
      return { ip, ok: true };
    });
    const xml = lines
      .map(({ ip }) => `<entry ip="${xmlEscape(ip)}"><tag><member>${xmlEscape(tag)}</member></tag></entry>`)
      .join("");
    await this.#uid(`<unregister>${xml}</unregister>`, lines, out);
    return out;
  }

  /** The addresses registered on the tag. @throws Error when the firewall refuses the query. */
  async list(target: Target): Promise<string[]> {
    if (edlOf(target)) return this.#edl.list(target.key);
    const tag = tagOf(target);
    const r = await this.#post({
      type: "op",
      vsys: this.#o.vsys,
      cmd: `<show><object><registered-ip><tag><entry name="${xmlEscape(tag)}"/></tag></registered-ip></object></show>`,
    });
    const error = failure(r);
    if (error) throw new Error(`PAN-OS could not list the addresses of tag ${tag}: ${error}`);
    return [...new Set(parseRegisteredIps(r.body))];
  }

  /**
   * Passive+: asks the firewall (through Panorama to SerialNumber when set) to fetch the EDL now,
   * after a batch that changed it. Nothing for User-ID targets. @throws Error when the firewall refuses.
   */
  async commit(target: Target): Promise<void> {
    const edl = edlOf(target);
    if (!edl || !this.#unrefreshed.has(target.key)) return;
    const r = await this.#post({
      type: "op",
      cmd: `<request><system><external-list><refresh><type><ip><name>${xmlEscape(edl.name)}</name></ip></type></refresh></external-list></system></request>`,
      ...(edl.serial ? { target: edl.serial } : {}),
    });
    const error = failure(r);
    if (error) throw new Error(`PAN-OS could not refresh the external list ${edl.name}: ${error}`);
    this.#unrefreshed.delete(target.key);
  }

  /** Passive+: records the valid addresses of `ips` (the others fail) and marks the target for a refresh. */
  #record(target: Target, action: "add" | "del", apply: readonly string[], given: readonly string[]): EntryOutcome[] {
    for (const ip of apply) {
      const n = normaliseIp(ip);
      if (n) this.#edl.note(target.key, action, n.ip);
    }
    this.#unrefreshed.add(target.key);
    return given.map((ip) =>
      normaliseIp(ip) ? { ip, ok: true } : { ip, ok: false, error: `invalid IP address "${ip}"` },
    );
  }

  /** Sends one uid-message; marks the lines the firewall refused (ignorable messages are success). */
  async #uid(payload: string, lines: { i: number; ip: string }[], out: EntryOutcome[]): Promise<void> {
    if (lines.length === 0) return;
    let r: HttpResponse;
    try {
      r = await this.#post({
        type: "user-id",
        vsys: this.#o.vsys,
        cmd: `<uid-message><version>2.0</version><type>update</type><payload>${payload}</payload></uid-message>`,
      });
    } catch (err) {
      const error = `PAN-OS not reached: ${err instanceof Error ? err.message : String(err)}`;
      for (const { i } of lines) out[i] = { ip: out[i]!.ip, ok: false, error };
      return;
    }
    if (/<response[^>]*status="success"/.test(r.body)) return;
    const messages = parseUidMessages(r.body);
    const whole = messages.size === 0 ? (failure(r) ?? "refused") : null;
    for (const { i, ip } of lines) {
      const message = messages.get(ip);
      if (whole !== null) out[i] = { ip: out[i]!.ip, ok: false, error: `PAN-OS refused the User-ID update: ${whole}` };
      else if (message !== undefined && !IGNORABLE.test(message))
        out[i] = { ip: out[i]!.ip, ok: false, error: `PAN-OS refused ${ip}: ${message}` };
    }
  }

  #post(form: Record<string, string>): Promise<HttpResponse> {
    const base = this.#o.baseUrl ?? `https://${this.#o.hostname}`;
    return this.#o.http.request({
      method: "POST",
      url: `${base.replace(/\/+$/, "")}/api/`,
      headers: { "x-pan-key": this.#o.apiKey, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      insecure: this.#o.insecure,
      timeoutMs: this.#o.timeoutMs ?? 15_000,
    });
  }
}

function tagOf(target: Target): string {
  if (!("panos" in target.acl)) throw new Error(`target ${target.key} is not a panos ACL`);
  const a = target.acl.panos;
  if (!a.GroupName) throw new Error(`ACL ${target.key} has neither GroupName nor EDLName`);
  return a.GroupName;
}

/** The EDL of a Passive+ target (EDLName set), or undefined for a User-ID (GroupName) target. */
function edlOf(target: Target): { name: string; serial: string } | undefined {
  if (!("panos" in target.acl)) throw new Error(`target ${target.key} is not a panos ACL`);
  const a = target.acl.panos;
  return a.EDLName ? { name: a.EDLName, serial: a.SerialNumber } : undefined;
}

/** Why an answer is not a success (HTTP status, or the firewall's `<msg>`), or null. */
function failure(r: HttpResponse): string | null {
  if (r.status === 401 || r.status === 403) return `HTTP ${r.status}: the API key was refused`;
  if (r.status < 200 || r.status >= 300) return `HTTP ${r.status}`;
  if (/<response[^>]*status="success"/.test(r.body)) return null;
  const msg = /<msg>([\s\S]*?)<\/msg>/
    .exec(r.body)?.[1]
    ?.replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return msg || "error";
}

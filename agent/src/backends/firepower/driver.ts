/**
 * The Cisco Secure Firewall (Firepower) Management Center driver (issue #10 item 10;
 * `shared/vendors.md` §4, option A): the FMC REST API with a session token. A grant is a `Host`
 * literal in the network group whose UUID is the ACL's GroupUUID; the group's object references and
 * `Network` literals belong to the admin and are left as they are.
 *
 * - Token: `POST /api/fmc_platform/v1/auth/generatetoken` with Basic auth answers 204 with the
 *   `X-auth-access-token`, `X-auth-refresh-token` and `DOMAIN_UUID` headers. A token lives 30 minutes
 *   and may be refreshed three times (`/auth/refreshtoken`); the driver refreshes one older than 25
 *   minutes, generates a new one after the third refresh or when a refresh fails, and on a 401 of any
 *   call generates a new one and repeats the call once.
 * - The group's member list is replaced whole (GET, then PUT of the full object), so each batch does
 *   one read and at most one write, and the driver runs one call at a time (`concurrency` 1): two
 *   batches never interleave their read-modify-write. Membership is checked before adding, so "already
 *   there" and "not there" are success by construction.
 * - FMC refuses an empty group ("The group should have atleast one object reference or a literal"),
 *   so when the last member would go the driver keeps the placeholder literal
 *   `FIREPOWER_PLACEHOLDER` (a loopback address: no packet on the wire has it as source) and drops
 *   the placeholder again once a real member is there. It is never reported as a grant.
 * - A changed group reaches the devices only by a deploy: the commit step waits (bounded) for FMC to
 *   list deployable devices (`deployment/deployabledevices?expanded=true`) and requests a deployment
 *   of those that `canBeDeployed` (`deployment/deploymentrequests`, the listed `version`). It does not
 *   wait for the deployment itself (minutes on real devices); FMC queues it. When no device becomes
 *   deployable in time (the group is not used by a deployed policy) there is nothing to deploy.
 * - HTTP 429 (FMC allows about 120 requests a minute) is retried with a doubling delay (3 tries).
 * - Drift (`list`) reads the group in FMC's configuration, not what the devices run.
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { HttpClient, HttpResponse } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";

/** The literal that keeps a group non-empty: a loopback address, never a packet's source on the wire. */
export const FIREPOWER_PLACEHOLDER = "127.255.255.254";

/** A token older than this is refreshed before use, MILLISECONDS (FMC tokens live 30 minutes). */
export const FIREPOWER_TOKEN_REFRESH_MS = 25 * 60_000;

/** How often FMC lets a token be refreshed before a new one must be generated. */
export const FIREPOWER_MAX_REFRESHES = 3;

/** Options of a `FirepowerDriver`. */
export interface FirepowerDriverOptions {
  readonly http: HttpClient;
  /** Host of the FMC (`fmc.example`), or a base URL with its scheme. */
  readonly hostname: string;
  readonly insecure: boolean;
  readonly username: string;
  /** Never logged, never in an error. */
  readonly password: string;
  /** Timeout of one request, MILLISECONDS (default 30,000). */
  readonly timeoutMs?: number;
  /** Longest wait for FMC to list deployable devices after a change, MILLISECONDS (default 20,000). */
  readonly deployWaitMs?: number;
  /** Pause between two reads of the deployable devices, MILLISECONDS (default 2,000). */
  readonly pollMs?: number;
  /** First delay before repeating a call answered 429, MILLISECONDS (default 1,000; doubles). */
  readonly retryDelayMs?: number;
  /** The clock (epoch MILLISECONDS) that ages tokens; `Date.now` by default. */
  readonly now?: () => number;
}

/** A literal of a network group: `{type: "Host"|"Network"|"Range", value}`. */
interface Literal {
  type: string;
  value: string;
}

/** A network group as FMC answers it (fields not named here are kept and sent back). */
interface NetworkGroup {
  id: string;
  name: string;
  type: string;
  objects?: unknown[];
  literals?: Literal[];
  [field: string]: unknown;
}

interface Session {
  access: string;
  refresh: string;
  domain: string;
  since: number;
  refreshes: number;
}

const PLATFORM = "/api/fmc_platform/v1/auth";

/** Keeps Host literals in an FMC network group and deploys it; see the module documentation. */
export class FirepowerDriver implements Driver {
  /** The BackendConfig key handled: `firepower`. */
  readonly type = "firepower";
  readonly concurrency = 1;
  readonly driftIntervalMs = 120_000;
  readonly #o: FirepowerDriverOptions;
  readonly #now: () => number;
  #session: Session | undefined;
  /** Groups written since their last deploy. */
  readonly #undeployed = new Set<string>();

  /** @throws Error without a host, user name or password. */
  constructor(options: FirepowerDriverOptions) {
    if (!options.hostname) throw new Error("the Firepower backend has no Hostname");
    if (!options.username) throw new Error("the Firepower backend has no Username");
    if (!options.password) throw new Error("the Firepower backend has no password for this agent");
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Adds the missing addresses with one PUT of the group; expired entries are skipped (ok). */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const id = groupOf(target);
    const out: EntryOutcome[] = [];
    const wanted: { i: number; ip: string }[] = [];
    entries.forEach((e, i) => {
      const n = normaliseIp(e.ip);
      out[i] = n ? { ip: e.ip, ok: true } : { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
      if (n && e.expiresAt > now) wanted.push({ i, ip: n.ip });
    });
    if (wanted.length === 0) return out;
    try {
      const group = await this.#group(id);
      const literals = group.literals ?? [];
      const have = new Set(hostsOf(literals));
      const fresh = [...new Set(wanted.map((w) => w.ip).filter((ip) => !have.has(ip)))];
      const withoutPlaceholder = literals.filter((l) => !isPlaceholder(l));
      if (fresh.length > 0 || withoutPlaceholder.length !== literals.length) {
        await this.#put(id, group, [...withoutPlaceholder, ...fresh.map((value) => ({ type: "Host", value }))]);
      }
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      for (const w of wanted) out[w.i] = { ip: entries[w.i]!.ip, ok: false, error };
    }
    return out;
  }

  /** Removes the addresses with one PUT of the group (the placeholder when it would be empty); absent ones succeed. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const id = groupOf(target);
    const out: EntryOutcome[] = ips.map((ip) =>
      normaliseIp(ip) ? { ip, ok: true } : { ip, ok: false, error: `invalid IP address "${ip}"` },
    );
    const gone = new Set(ips.flatMap((ip) => normaliseIp(ip)?.ip ?? []));
    if (gone.size === 0) return out;
    try {
      const group = await this.#group(id);
      const literals = group.literals ?? [];
      const kept = literals.filter((l) => !(l.type === "Host" && gone.has(normaliseIp(l.value)?.ip ?? "")));
      if (kept.length !== literals.length) await this.#put(id, group, kept);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      return out.map((o) => (o.ok ? { ip: o.ip, ok: false, error } : o));
    }
    return out;
  }

  /** The group's Host literals but the placeholder. @throws Error when the group cannot be read. */
  async list(target: Target): Promise<string[]> {
    const group = await this.#group(groupOf(target));
    return [...new Set(hostsOf(group.literals ?? []))];
  }

  /**
   * Requests a deployment of the devices FMC lists as deployable (waits for the list, bounded), when
   * this driver wrote the target's group since its last deploy. @throws Error when FMC refuses it.
   */
  async commit(target: Target): Promise<void> {
    const id = groupOf(target);
    if (!this.#undeployed.has(id)) return;
    const deadline = Date.now() + (this.#o.deployWaitMs ?? 20_000);
    for (;;) {
      const r = await this.#call("GET", "/deployment/deployabledevices?expanded=true");
      check(r, "list the deployable devices");
      const items = (parse(r) as { items?: DeployableDevice[] }).items ?? [];
      const ready = items.filter((d) => d.canBeDeployed !== false && d.device?.id);
      if (ready.length > 0) {
        const version = ready.map((d) => d.version ?? "").reduce((a, b) => (b > a ? b : a), "");
        const d = await this.#call("POST", "/deployment/deploymentrequests", {
          type: "DeploymentRequest",
          version: version || String(this.#now()),
          forceDeploy: false,
          ignoreWarning: true,
          deviceList: ready.map((x) => x.device!.id),
        });
        check(d, "request a deployment");
        this.#undeployed.delete(id);
        return;
      }
      if (Date.now() >= deadline) {
        this.#undeployed.delete(id);
        return;
      }
      await sleep(this.#o.pollMs ?? 2_000);
    }
  }

  /** Forgets the session (FMC has no logout call; the token expires by itself). */
  async close(): Promise<void> {
    this.#session = undefined;
  }

  async #group(id: string): Promise<NetworkGroup> {
    const r = await this.#call("GET", `/object/networkgroups/${encodeURIComponent(id)}`);
    if (r.status === 404) throw new Error(`Firepower has no network group ${id}`);
    check(r, `read network group ${id}`);
    return parse(r) as NetworkGroup;
  }

  async #put(id: string, group: NetworkGroup, literals: Literal[]): Promise<void> {
    const hasObjects = (group.objects ?? []).length > 0;
    const next = literals.length === 0 && !hasObjects ? [{ type: "Host", value: FIREPOWER_PLACEHOLDER }] : literals;
    const { links: _links, metadata: _metadata, ...rest } = group;
    const body = { ...rest, literals: next };
    const r = await this.#call("PUT", `/object/networkgroups/${encodeURIComponent(id)}`, body);
    check(r, `update network group ${group.name || group.id}`);
    this.#undeployed.add(id);
  }

  /** A call under `/api/fmc_config/v1/domain/<domain>` with a live token; 401 renews it once, 429 is retried. */
  async #call(method: string, path: string, body?: unknown): Promise<HttpResponse> {
    let renewed = false;
    let delay = this.#o.retryDelayMs ?? 1_000;
    for (let attempt = 1; ; attempt++) {
      const s = await this.#live();
      const r = await this.#send(
        method,
        `/api/fmc_config/v1/domain/${s.domain}${path}`,
        {
          "x-auth-access-token": s.access,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body,
      );
      if (r.status === 401 && !renewed) {
        renewed = true;
        this.#session = undefined;
        continue;
      }
      if (r.status === 429 && attempt < 3) {
        await sleep(delay);
        delay *= 2;
        continue;
      }
      return r;
    }
  }

  /** The session, generated or refreshed as its age needs. @throws Error when FMC refuses the credentials. */
  async #live(): Promise<Session> {
    const s = this.#session;
    if (s && this.#now() - s.since < FIREPOWER_TOKEN_REFRESH_MS) return s;
    if (s && s.refreshes < FIREPOWER_MAX_REFRESHES) {
      const r = await this.#send("POST", `${PLATFORM}/refreshtoken`, {
        "x-auth-access-token": s.access,
        "x-auth-refresh-token": s.refresh,
      });
      const next = sessionOf(r, s.refreshes + 1, this.#now());
      if (next) return (this.#session = next);
    }
    const basic = Buffer.from(`${this.#o.username}:${this.#o.password}`).toString("base64");
    const r = await this.#send("POST", `${PLATFORM}/generatetoken`, { authorization: `Basic ${basic}` });
    const next = sessionOf(r, 0, this.#now());
    if (!next) {
      const hint = r.status === 401 || r.status === 403 ? ": the user name or password was refused" : "";
      throw new Error(`Firepower could not sign in: HTTP ${r.status}${errorText(r)}${hint}`);
    }
    return (this.#session = next);
  }

  #send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<HttpResponse> {
    const h = this.#o.hostname;
    const base = /^https?:\/\//.test(h) ? h.replace(/\/+$/, "") : `https://${h}`;
    return this.#o.http.request({
      method,
      url: `${base}${path}`,
      headers: { accept: "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      insecure: this.#o.insecure,
      timeoutMs: this.#o.timeoutMs ?? 30_000,
    });
  }
}

interface DeployableDevice {
  version?: string;
  canBeDeployed?: boolean;
  device?: { id: string };
}

function groupOf(target: Target): string {
  if (!("firepower" in target.acl)) throw new Error(`target ${target.key} is not a firepower ACL`);
  return target.acl.firepower.GroupUUID;
}

function isPlaceholder(l: Literal): boolean {
  return l.type === "Host" && l.value === FIREPOWER_PLACEHOLDER;
}

/** The normalised addresses of the Host literals, the placeholder left out. */
function hostsOf(literals: readonly Literal[]): string[] {
  return literals
    .filter((l) => l.type.toLowerCase() === "host" && !isPlaceholder(l))
    .map((l) => normaliseIp(l.value)?.ip)
    .filter((ip): ip is string => !!ip);
}

function sessionOf(r: HttpResponse, refreshes: number, now: number): Session | undefined {
  const access = r.headers["x-auth-access-token"];
  const domain = r.headers["domain_uuid"];
  if (r.status < 200 || r.status >= 300 || !access || !domain) return undefined;
  return { access, refresh: r.headers["x-auth-refresh-token"] ?? "", domain, since: now, refreshes };
}

function parse(r: HttpResponse): unknown {
  try {
    return JSON.parse(r.body) as unknown;
  } catch {
    return {};
  }
}

/** ` (description; …)` from FMC's error shape `{error: {messages: [{description}]}}`, or "". */
function errorText(r: HttpResponse): string {
  const messages = (parse(r) as { error?: { messages?: { description?: string }[] } }).error?.messages ?? [];
  const text = messages
    .map((m) => m.description)
    .filter(Boolean)
    .join("; ");
  return text ? ` (${text})` : "";
}

/** @throws Error naming the step, the HTTP status and FMC's messages (never the token or password). */
function check(r: HttpResponse, what: string): void {
  if (r.status >= 200 && r.status < 300) return;
  const hint = r.status === 401 || r.status === 403 ? ": the FMC user lacks the rights" : "";
  throw new Error(`Firepower could not ${what}: HTTP ${r.status}${errorText(r)}${hint}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The Azure NSG driver (issue #10 item 10; `shared/vendors.md` §8): one security rule per address in
 * the network security group NsgName of ResourceGroup, allowing TCP to NsgPort from the address
 * (Inbound: `sourceAddressPrefix`) or to it (Outbound: `destinationAddressPrefix`), through the Azure
 * SDK (`@azure/arm-network` with a `ClientSecretCredential` of `@azure/identity`).
 *
 * - The SDK is imported on first use (a dynamic import), so agents without an Azure backend never
 *   load it. Its HTTP goes through the agent's `HttpClient` (`transport.ts`).
 * - The backend has no subscription field: the driver lists the subscriptions the service principal
 *   sees (`GET /subscriptions`) and uses the first one holding ResourceGroup/NsgName, remembered per
 *   NSG until the driver is replaced.
 * - Rule names are derived from direction, port and address (`azureRuleName`), so a re-grant finds
 *   its rule ("already there" is success) and a revoke deletes it by name (204 for a missing rule is
 *   success in the SDK). Only rules named `postern-…` are read back; the admin's rules are never
 *   touched.
 * - Priorities: the lowest free number of the band `AZURE_PRIORITY_BAND` for the rule's direction
 *   (NSG priorities are unique per direction). On 400 `SecurityRuleConflict` (someone took it
 *   meanwhile) the rules are read again and another number is tried (3 tries). One call at a time
 *   (`concurrency` 1), so the driver never races itself on one NSG.
 * - NoCache: a new credential (and so a new token) per batch instead of the SDK's token cache.
 * - Writes are long-running operations; the SDK polls them to the end. Drift is re-read every two
 *   minutes.
 */
import { normaliseIp } from "@postern/shared";
import type { Entry, Target } from "@postern/shared";
import type { NetworkManagementClient, SecurityRule } from "@azure/arm-network";
import type { HttpClient as AzureHttpClient } from "@azure/core-rest-pipeline";
import type { TokenCredential } from "@azure/identity";
import type { HttpClient } from "../../http/client.ts";
import type { EntryOutcome } from "../backend.ts";
import type { Driver } from "../driver.ts";

/** The name prefix of the rules this driver owns. */
export const AZURE_RULE_PREFIX = "postern-";

/** The priorities the driver allocates from, per direction (inclusive). */
export const AZURE_PRIORITY_BAND = { min: 1000, max: 1999 } as const;

/** ARM scope of the token. */
const ARM_SCOPE = "https://management.azure.com/.default";

/** `postern-in-443-203.0.113.5` (Outbound `out`); IPv6 `:` written `-`, a trailing `-` closed by `_` (Azure names end in a letter, digit or `_`). */
export function azureRuleName(direction: "Inbound" | "Outbound", port: number, ip: string): string {
  const name = `${AZURE_RULE_PREFIX}${direction === "Inbound" ? "in" : "out"}-${port}-${ip.replaceAll(":", "-")}`;
  return name.endsWith("-") ? `${name}_` : name;
}

/** A rule description: `postern <user>`, at most 140 characters (Azure's limit). */
export function azureRuleDescription(user: string | undefined): string {
  return `postern ${user ?? ""}`.trim().slice(0, 140);
}

/** Options of an `AzureDriver`. */
export interface AzureDriverOptions {
  readonly http: HttpClient;
  readonly tenantId: string;
  readonly clientId: string;
  /** Never logged, never in an error. */
  readonly clientSecret: string;
  /** A new token per batch instead of the token cache. */
  readonly noCache: boolean;
  /** ARM endpoint override (tests: a local HTTPS fake); `https://management.azure.com` otherwise. */
  readonly endpoint?: string;
  /** Entra ID authority host override (tests); `https://login.microsoftonline.com` otherwise. */
  readonly authorityHost?: string;
  /** Pause between two polls of a long-running operation, MILLISECONDS (default: the SDK's). */
  readonly pollIntervalMs?: number;
}

interface Acl {
  readonly rg: string;
  readonly nsg: string;
  readonly direction: "Inbound" | "Outbound";
  readonly port: number;
}

type Sdk = {
  NetworkManagementClient: typeof NetworkManagementClient;
  credential: () => TokenCredential;
  transport: AzureHttpClient;
};

/** Keeps one NSG rule per address; see the module documentation. */
export class AzureDriver implements Driver {
  /** The BackendConfig key handled: `azure`. */
  readonly type = "azure";
  readonly concurrency = 1;
  readonly driftIntervalMs = 120_000;
  readonly #o: AzureDriverOptions;
  #sdk: Promise<Sdk> | undefined;
  #credential: TokenCredential | undefined;
  /** `rg/nsg` → subscription id. */
  readonly #subscriptions = new Map<string, string>();

  /** @throws Error without the service principal's three values. */
  constructor(options: AzureDriverOptions) {
    if (!options.tenantId || !options.clientId || !options.clientSecret)
      throw new Error("the Azure backend has no TenantId, ClientId and ClientSecret for this agent");
    this.#o = options;
  }

  /** Creates a rule per new address (lowest free priority of the band); present ones and expired entries are ok. */
  async add(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]> {
    const acl = aclOf(target);
    const out: EntryOutcome[] = [];
    const wanted: { i: number; ip: string; user: string | undefined }[] = [];
    entries.forEach((e, i) => {
      const n = normaliseIp(e.ip);
      out[i] = n ? { ip: e.ip, ok: true } : { ip: e.ip, ok: false, error: `invalid IP address "${e.ip}"` };
      if (n && e.expiresAt > now) wanted.push({ i, ip: n.ip, user: e.user });
    });
    if (wanted.length === 0) return out;
    try {
      const client = await this.#client(acl);
      let rules = await this.#rules(client, acl);
      for (const w of wanted) {
        const name = azureRuleName(acl.direction, acl.port, w.ip);
        try {
          for (let attempt = 1; !rules.some((r) => r.name === name); attempt++) {
            const priority = freePriority(rules, acl.direction);
            if (priority === undefined)
              throw new Error(
                `Azure NSG ${acl.nsg} has no free priority in ${AZURE_PRIORITY_BAND.min}-${AZURE_PRIORITY_BAND.max} (${acl.direction})`,
              );
            const rule = ruleFor(acl, w.ip, priority, w.user);
            try {
              const made = await client.securityRules.createOrUpdate(acl.rg, acl.nsg, name, rule, this.#poll());
              rules = [...rules, { ...rule, ...made, name }];
            } catch (err) {
              if (errorCode(err) !== "SecurityRuleConflict" || attempt >= 3) throw err;
              rules = await this.#rules(client, acl);
            }
          }
        } catch (err) {
          out[w.i] = {
            ip: entries[w.i]!.ip,
            ok: false,
            error: `Azure could not create rule ${name}: ${describe(err)}`,
          };
        }
      }
    } catch (err) {
      for (const w of wanted) out[w.i] = { ip: entries[w.i]!.ip, ok: false, error: describe(err) };
    }
    return out;
  }

  /** Deletes each address's rule by name; a missing rule succeeds. */
  async remove(target: Target, ips: readonly string[]): Promise<EntryOutcome[]> {
    const acl = aclOf(target);
    const out: EntryOutcome[] = ips.map((ip) =>
      normaliseIp(ip) ? { ip, ok: true } : { ip, ok: false, error: `invalid IP address "${ip}"` },
    );
    let client: NetworkManagementClient;
    try {
      client = await this.#client(acl);
    } catch (err) {
      const error = describe(err);
      return out.map((o) => (o.ok ? { ip: o.ip, ok: false, error } : o));
    }
    for (const [i, ip] of ips.entries()) {
      const n = normaliseIp(ip);
      if (!n) continue;
      const name = azureRuleName(acl.direction, acl.port, n.ip);
      try {
        await client.securityRules.delete(acl.rg, acl.nsg, name, this.#poll());
      } catch (err) {
        out[i] = { ip, ok: false, error: `Azure could not delete rule ${name}: ${describe(err)}` };
      }
    }
    return out;
  }

  /** The addresses of this driver's rules for the ACL's direction and port. @throws Error when the NSG cannot be read. */
  async list(target: Target): Promise<string[]> {
    const acl = aclOf(target);
    try {
      const rules = await this.#rules(await this.#client(acl), acl);
      const out: string[] = [];
      for (const r of rules) {
        if (!r.name?.startsWith(AZURE_RULE_PREFIX) || r.direction !== acl.direction) continue;
        if (r.destinationPortRange !== String(acl.port)) continue;
        const prefix = acl.direction === "Inbound" ? r.sourceAddressPrefix : r.destinationAddressPrefix;
        const ip = normaliseIp((prefix ?? "").replace(/\/(32|128)$/, ""))?.ip;
        if (ip) out.push(ip);
      }
      return [...new Set(out)];
    } catch (err) {
      throw new Error(describe(err), { cause: err });
    }
  }

  #poll(): { updateIntervalInMs?: number } {
    return this.#o.pollIntervalMs === undefined ? {} : { updateIntervalInMs: this.#o.pollIntervalMs };
  }

  /** Every rule of the NSG (all pages). */
  async #rules(client: NetworkManagementClient, acl: Acl): Promise<SecurityRule[]> {
    const rules: SecurityRule[] = [];
    for await (const r of client.securityRules.list(acl.rg, acl.nsg)) rules.push(r);
    return rules;
  }

  /** A client on the subscription that holds the ACL's NSG (found once, see the module documentation). */
  async #client(acl: Acl): Promise<NetworkManagementClient> {
    const sdk = await this.#load();
    const credential = this.#o.noCache ? sdk.credential() : (this.#credential ??= sdk.credential());
    const make = (subscription: string) =>
      new sdk.NetworkManagementClient(credential, subscription, {
        httpClient: sdk.transport,
        ...(this.#o.endpoint ? { endpoint: this.#o.endpoint } : {}),
      });
    const key = `${acl.rg}/${acl.nsg}`;
    const known = this.#subscriptions.get(key);
    if (known) return make(known);
    const subscriptions = await this.#listSubscriptions(credential);
    let last: unknown;
    for (const id of subscriptions) {
      const client = make(id);
      try {
        await client.networkSecurityGroups.get(acl.rg, acl.nsg);
        this.#subscriptions.set(key, id);
        return client;
      } catch (err) {
        last = err;
      }
    }
    const why = last ? `: ${describe(last)}` : "";
    throw new Error(
      `Azure: none of the ${subscriptions.length} subscription(s) this service principal sees holds NSG ${acl.nsg} in resource group ${acl.rg}${why}`,
    );
  }

  /** The ids of the enabled subscriptions the credential sees (`GET /subscriptions`, all pages). */
  async #listSubscriptions(credential: TokenCredential): Promise<string[]> {
    // enableCae as the SDK's bearer policy asks, so both share one cached token.
    const token = await credential.getToken(ARM_SCOPE, { enableCae: true });
    if (!token) throw new Error("Azure gave no token for the service principal");
    const base = (this.#o.endpoint ?? "https://management.azure.com").replace(/\/+$/, "");
    const ids: string[] = [];
    let url: string | undefined = `${base}/subscriptions?api-version=2022-12-01`;
    for (let page = 0; url && page < 50; page++) {
      const r = await this.#o.http.request({
        method: "GET",
        url,
        headers: { authorization: `Bearer ${token.token}`, accept: "application/json" },
        timeoutMs: 30_000,
      });
      if (r.status !== 200) throw new Error(`Azure could not list the subscriptions: HTTP ${r.status}`);
      const body = JSON.parse(r.body) as {
        value?: { subscriptionId?: string; state?: string }[];
        nextLink?: string;
      };
      for (const s of body.value ?? [])
        if (s.subscriptionId && (s.state ?? "Enabled") === "Enabled") ids.push(s.subscriptionId);
      url = body.nextLink;
    }
    return ids;
  }

  #load(): Promise<Sdk> {
    this.#sdk ??= (async () => {
      const [network, identity, { azureTransport }] = await Promise.all([
        import("@azure/arm-network"),
        import("@azure/identity"),
        import("./transport.ts"),
      ]);
      const transport = azureTransport(this.#o.http);
      const o = this.#o;
      return {
        NetworkManagementClient: network.NetworkManagementClient,
        transport,
        credential: () =>
          new identity.ClientSecretCredential(o.tenantId, o.clientId, o.clientSecret, {
            httpClient: transport,
            ...(o.authorityHost ? { authorityHost: o.authorityHost, disableInstanceDiscovery: true } : {}),
          }),
      };
    })();
    return this.#sdk;
  }
}

function aclOf(target: Target): Acl {
  if (!("azure" in target.acl)) throw new Error(`target ${target.key} is not an azure ACL`);
  const a = target.acl.azure;
  if (a.NsgDirection !== "Inbound" && a.NsgDirection !== "Outbound")
    throw new Error(`ACL ${target.key} has no NsgDirection (Inbound or Outbound)`);
  return { rg: a.ResourceGroup, nsg: a.NsgName, direction: a.NsgDirection, port: a.NsgPort };
}

function ruleFor(acl: Acl, ip: string, priority: number, user: string | undefined): SecurityRule {
  const cidr = `${ip}/${ip.includes(":") ? 128 : 32}`;
  return {
    protocol: "Tcp",
    access: "Allow",
    direction: acl.direction,
    priority,
    sourceAddressPrefix: acl.direction === "Inbound" ? cidr : "*",
    sourcePortRange: "*",
    destinationAddressPrefix: acl.direction === "Inbound" ? "*" : cidr,
    destinationPortRange: String(acl.port),
    description: azureRuleDescription(user),
  };
}

/** The lowest priority of the band that no rule of `direction` uses, or undefined. */
function freePriority(rules: readonly SecurityRule[], direction: string): number | undefined {
  const taken = new Set(rules.filter((r) => r.direction === direction).map((r) => r.priority));
  for (let p: number = AZURE_PRIORITY_BAND.min; p <= AZURE_PRIORITY_BAND.max; p++) if (!taken.has(p)) return p;
  return undefined;
}

function errorCode(err: unknown): string | undefined {
  return (err as { code?: string } | undefined)?.code;
}

/** The ARM error code and message, or the error's message (never a secret: the SDK does not echo them). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = errorCode(err);
  const status = (err as { statusCode?: number }).statusCode;
  const parts = [status ? `HTTP ${status}` : "", code && !err.message.includes(code) ? code : "", err.message];
  return parts.filter(Boolean).join(" ");
}

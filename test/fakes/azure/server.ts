/**
 * A fake of the two Azure services the Azure NSG driver talks to (issue #10 items 13 and 14), built
 * from `shared/vendors.md` §8, on 127.0.0.1 over HTTPS with a self-signed certificate (`ca`): the
 * Azure SDK refuses bearer tokens over plain http. One server stands for both hosts:
 *
 * - Entra ID: `GET /<tenant>/v2.0/.well-known/openid-configuration` and `POST
 *   /<tenant>/oauth2/v2.0/token` (client credentials, form-encoded; `{token_type, expires_in,
 *   access_token}`; a wrong client or secret answers 401 `invalid_client` with an AADSTS text).
 * - ARM (every call needs a token it issued, else 401 `InvalidAuthenticationToken`):
 *   `GET /subscriptions` (two subscriptions, the NSGs live in the second); `GET …/networkSecurityGroups/<nsg>`;
 *   `GET …/securityRules` (one page); `GET|PUT|DELETE …/securityRules/<name>`. A PUT is an upsert (201
 *   new, 200 update) answered with `Azure-AsyncOperation`, whose `GET` says `Succeeded`; a DELETE of a
 *   rule answers 202 with `Azure-AsyncOperation` and `Location`, of a missing rule 204. A PUT whose
 *   priority and direction another rule holds answers 400 `SecurityRuleConflict`; a priority outside
 *   100–4096, a description over 140 characters or a bad name 400. Unknown resource group or NSG: 404
 *   `ResourceGroupNotFound` / `ResourceNotFound`.
 *
 * Does not model: operations still in progress (every one is done at the first poll), `Retry-After`,
 * throttling (429), the `*Prefixes` list fields, service tags, application security groups, default
 * rules, ETags and If-Match, token expiry, paging, other API versions than the one asked.
 */
import "reflect-metadata";
import { randomUUID } from "node:crypto";
import { createServer } from "node:https";
import type { Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { makeSelfSigned } from "../../../server/src/http/tls.ts";

/** A rule as the fake holds it (the ARM `properties` plus its name). */
export interface FakeNsgRule {
  name: string;
  priority: number;
  direction: string;
  access: string;
  protocol: string;
  sourceAddressPrefix: string;
  destinationAddressPrefix: string;
  destinationPortRange: string;
  sourcePortRange: string;
  description: string;
}

/** A running fake. */
export interface FakeAzure {
  /** `https://127.0.0.1:PORT`: ARM endpoint and authority host alike. */
  readonly url: string;
  /** The server's certificate (PEM), to trust as CA. */
  readonly ca: string;
  readonly tenantId: string;
  readonly subscriptionId: string;
  /** Creates an NSG (in the second subscription). */
  addNsg(rg: string, nsg: string): void;
  /** The rules of an NSG. */
  rules(rg: string, nsg: string): FakeNsgRule[];
  /** Adds a rule behind the agent's back (an admin's, or drift). */
  putRule(rg: string, nsg: string, rule: Partial<FakeNsgRule> & { name: string; priority: number }): void;
  /** Deletes a rule behind the agent's back. */
  dropRule(rg: string, nsg: string, name: string): void;
  /** Makes the next PUT lose a race: an admin rule takes its priority just before it arrives. */
  raceNextPut(): void;
  /** Tokens issued so far. */
  tokens(): number;
  stop(): Promise<void>;
}

/** Starts the fake accepting the service principal `clientId`/`clientSecret` of `tenantId`. */
export async function startFakeAzure(tenantId: string, clientId: string, clientSecret: string): Promise<FakeAzure> {
  const { cert, key } = await makeSelfSigned(["127.0.0.1", "localhost"]);
  const subscriptionId = randomUUID();
  const otherSubscription = randomUUID();
  const nsgs = new Map<string, Map<string, FakeNsgRule>>();
  const issued = new Set<string>();
  let race = false;
  let url = "";

  const ruleJson = (sub: string, rg: string, nsg: string, r: FakeNsgRule) => {
    const { name, ...props } = r;
    return {
      id: `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/networkSecurityGroups/${nsg}/securityRules/${name}`,
      name,
      etag: `W/"${randomUUID()}"`,
      type: "Microsoft.Network/networkSecurityGroups/securityRules",
      properties: { ...props, provisioningState: "Succeeded" },
    };
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { "content-type": "application/json", ...headers })
        .end(body === undefined ? "" : JSON.stringify(body));
    const armError = (status: number, code: string, message: string) => send(status, { error: { code, message } });
    const u = new URL(req.url ?? "/", "https://fake");
    const path = u.pathname;

    // Entra ID
    if (req.method === "GET" && path === `/${tenantId}/v2.0/.well-known/openid-configuration`) {
      const base = `${url}/${tenantId}`;
      return send(200, {
        token_endpoint: `${base}/oauth2/v2.0/token`,
        authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
        end_session_endpoint: `${base}/oauth2/v2.0/logout`,
        jwks_uri: `${url}/${tenantId}/discovery/v2.0/keys`,
        issuer: `${base}/v2.0`,
        response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
        token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt", "client_secret_basic"],
      });
    }
    if (req.method === "POST" && path === `/${tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(raw);
      if (
        form.get("grant_type") !== "client_credentials" ||
        form.get("scope") !== "https://management.azure.com/.default"
      )
        return send(400, { error: "invalid_request", error_description: "AADSTS900144: bad grant or scope." });
      if (form.get("client_id") !== clientId || form.get("client_secret") !== clientSecret)
        return send(401, {
          error: "invalid_client",
          error_description: "AADSTS7000215: Invalid client secret provided.",
          error_codes: [7000215],
        });
      const token = randomUUID();
      issued.add(token);
      return send(200, { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: token });
    }

    // ARM
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!auth || !issued.has(auth)) return armError(401, "InvalidAuthenticationToken", "The access token is invalid.");
    if (!u.searchParams.get("api-version")) return armError(400, "MissingApiVersionParameter", "No api-version.");
    if (req.method === "GET" && path === "/subscriptions") {
      return send(200, {
        value: [otherSubscription, subscriptionId].map((id, i) => ({
          id: `/subscriptions/${id}`,
          subscriptionId: id,
          displayName: `sub ${i + 1}`,
          state: "Enabled",
        })),
      });
    }
    if (req.method === "GET" && path.startsWith("/asyncops/")) return send(200, { status: "Succeeded" });
    const m =
      /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/networkSecurityGroups\/([^/]+)(?:\/securityRules(?:\/([^/]+))?)?$/i.exec(
        path,
      );
    if (!m) return armError(404, "NotFound", `No route ${req.method} ${path}`);
    const [, sub, rg, nsg, rulesPart] = m;
    const hasRules = /\/securityRules(\/|$)/i.test(path);
    const rgKnown = sub === subscriptionId && [...nsgs.keys()].some((k) => k.startsWith(`${rg}/`));
    if (!rgKnown) return armError(404, "ResourceGroupNotFound", `Resource group '${rg}' could not be found.`);
    const rules = nsgs.get(`${rg}/${nsg}`);
    if (!rules)
      return armError(
        404,
        "ResourceNotFound",
        `The Resource 'Microsoft.Network/networkSecurityGroups/${nsg}' under resource group '${rg}' was not found.`,
      );
    const all = () => [...rules.values()].map((r) => ruleJson(sub!, rg!, nsg!, r));
    if (!hasRules && req.method === "GET")
      return send(200, {
        id: `/subscriptions/${sub}/resourceGroups/${rg}/providers/Microsoft.Network/networkSecurityGroups/${nsg}`,
        name: nsg,
        location: "westeurope",
        type: "Microsoft.Network/networkSecurityGroups",
        properties: { securityRules: all(), defaultSecurityRules: [], provisioningState: "Succeeded" },
      });
    if (hasRules && rulesPart === undefined && req.method === "GET") return send(200, { value: all() });
    const name = decodeURIComponent(rulesPart ?? "");
    if (req.method === "GET") {
      const r = rules.get(name);
      return r ? send(200, ruleJson(sub!, rg!, nsg!, r)) : armError(404, "NotFound", `Rule ${name} not found.`);
    }
    const op = () => ({ "Azure-AsyncOperation": `${url}/asyncops/${randomUUID()}?api-version=2024-03-01` });
    if (req.method === "DELETE") {
      if (!rules.delete(name)) return send(204);
      return send(202, undefined, { ...op(), Location: `${url}/asyncops/${randomUUID()}?api-version=2024-03-01` });
    }
    if (req.method === "PUT") {
      const p = ((JSON.parse(raw || "{}") as { properties?: Partial<FakeNsgRule> }).properties ?? {}) as FakeNsgRule;
      if (!/^[A-Za-z0-9]([A-Za-z0-9_.-]{0,78}[A-Za-z0-9_])?$/.test(name))
        return armError(400, "InvalidResourceName", `Resource name ${name} is invalid.`);
      if (!Number.isInteger(p.priority) || p.priority < 100 || p.priority > 4096)
        return armError(
          400,
          "SecurityRuleInvalidPriority",
          "Security rule has invalid Priority. Value provided: " + p.priority,
        );
      if ((p.description ?? "").length > 140)
        return armError(400, "SecurityRuleParameterContainsInvalidCharacters", "Description is longer than 140.");
      if (race) {
        race = false;
        rules.set("admin-race", { ...p, name: "admin-race", description: "took the number first" });
      }
      const clash = [...rules.values()].find(
        (r) => r.name !== name && r.priority === p.priority && r.direction === p.direction,
      );
      if (clash)
        return armError(
          400,
          "SecurityRuleConflict",
          `Security rule ${name} conflicts with rule ${clash.name}. Rules cannot have the same Priority and Direction. To learn more, see aka.ms/nsgrules.`,
        );
      const existed = rules.has(name);
      const rule: FakeNsgRule = {
        name,
        priority: p.priority,
        direction: p.direction,
        access: p.access,
        protocol: p.protocol,
        sourceAddressPrefix: p.sourceAddressPrefix ?? "",
        destinationAddressPrefix: p.destinationAddressPrefix ?? "",
        destinationPortRange: p.destinationPortRange ?? "",
        sourcePortRange: p.sourcePortRange ?? "",
        description: p.description ?? "",
      };
      rules.set(name, rule);
      return send(existed ? 200 : 201, ruleJson(sub!, rg!, nsg!, rule), op());
    }
    return armError(405, "MethodNotAllowed", `${req.method} not allowed`);
  };

  const server: Server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const nsgOf = (rg: string, nsg: string) => nsgs.get(`${rg}/${nsg}`);
  return {
    url,
    ca: cert,
    tenantId,
    subscriptionId,
    addNsg: (rg, nsg) => void nsgs.set(`${rg}/${nsg}`, new Map()),
    rules: (rg, nsg) => [...(nsgOf(rg, nsg)?.values() ?? [])],
    putRule(rg, nsg, r) {
      nsgOf(rg, nsg)?.set(r.name, {
        direction: "Inbound",
        access: "Allow",
        protocol: "Tcp",
        sourceAddressPrefix: "*",
        destinationAddressPrefix: "*",
        destinationPortRange: "443",
        sourcePortRange: "*",
        description: "",
        ...r,
      });
    },
    dropRule: (rg, nsg, name) => void nsgOf(rg, nsg)?.delete(name),
    raceNextPut() {
      race = true;
    },
    tokens: () => issued.size,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A fake Cisco Secure Firewall Management Center REST API (issue #10 item 14), built from
 * `shared/vendors.md` §4 (option A), on 127.0.0.1 over plain http.
 *
 * Models:
 * - `POST /api/fmc_platform/v1/auth/generatetoken` with Basic auth: 204 with `X-auth-access-token`,
 *   `X-auth-refresh-token` and `DOMAIN_UUID`; 401 otherwise. `POST …/auth/refreshtoken` with both
 *   token headers: a new pair, at most three times per generated token (401 after that). A token is
 *   refused (401 "Access token invalid.") after `expireTokens()` or once replaced by a refresh.
 * - `GET|PUT /api/fmc_config/v1/domain/<domain>/object/networkgroups/<id>` (unknown domain or id: 404).
 *   A PUT must carry the whole object (`id` equal to the path, `type` NetworkGroup, `name`); one without
 *   any object reference or literal is refused with FMC's FRAMEWORK error ("The group should have
 *   atleast one object reference or a literal as override is not enabled."). Answers carry `links`
 *   and `metadata` as FMC does.
 * - A changed group makes the device `ftd-1` deployable: `GET …/deployment/deployabledevices` lists
 *   it (`version`, `canBeDeployed`, `device.id`); `POST …/deployment/deploymentrequests` (type
 *   DeploymentRequest, a version, a non-empty deviceList) answers 202 and copies the groups to what
 *   the device runs (`deployed`).
 * - `throttle(n)`: the next n API calls answer 429, as FMC's rate limit does.
 * Every request counts by route, so tests can see one PUT per batch and token refreshes.
 *
 * Does not model: domains other than the one given at sign-in, the three-sessions-per-user limit,
 * object overrides, named object references, Network and Range literal validation, deployment job
 * status and its duration, pending changes of other objects, paging (`offset`/`limit`).
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A literal of a network group. */
export interface FakeLiteral {
  type: string;
  value: string;
}

/** A running fake. */
export interface FakeFmc {
  /** `http://127.0.0.1:PORT` (the driver's Hostname with scheme). */
  readonly url: string;
  readonly domain: string;
  /**
   * Creates a network group (FMC refuses an empty one) holding `literals` (default: the driver's
   * placeholder, as an admin creates the group) and `objects` (references); returns its UUID.
   */
  addGroup(name: string, members?: { literals?: FakeLiteral[]; objects?: unknown[] }): string;
  /** The literals of a group in FMC's configuration. */
  literals(id: string): FakeLiteral[];
  /** The Host literal values of a group as last deployed to the device. */
  deployed(id: string): string[];
  /** Requests by route: `generatetoken`, `refreshtoken`, `put`, `deploy`. */
  count(route: "generatetoken" | "refreshtoken" | "put" | "deploy"): number;
  /** Makes every token issued so far invalid (as after 30 minutes). */
  expireTokens(): void;
  /** Answers the next `n` API calls with 429. */
  throttle(n: number): void;
  /** Drift helpers: a Host literal added or removed behind the agent's back, and deployed. */
  put(id: string, ip: string): void;
  drop(id: string, ip: string): void;
  stop(): Promise<void>;
}

const EMPTY_GROUP = "The group should have atleast one object reference or a literal as override is not enabled.";

/** Starts the fake accepting `username`/`password`. */
export async function startFakeFmc(username: string, password: string): Promise<FakeFmc> {
  const domain = randomUUID();
  const groups = new Map<string, { id: string; name: string; objects: unknown[]; literals: FakeLiteral[] }>();
  const deployed = new Map<string, FakeLiteral[]>();
  /** access token → its refresh token and how often its line was refreshed. */
  const tokens = new Map<string, { refresh: string; refreshes: number }>();
  const counts = { generatetoken: 0, refreshtoken: 0, put: 0, deploy: 0 };
  let deployable = false;
  let version = Date.now();
  let throttled = 0;
  const basic = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;

  const issue = (refreshes: number, res: ServerResponse) => {
    const access = randomUUID();
    const refresh = randomUUID();
    tokens.set(access, { refresh, refreshes });
    res.writeHead(204, { "X-auth-access-token": access, "X-auth-refresh-token": refresh, DOMAIN_UUID: domain }).end();
  };
  const deploy = () => {
    for (const g of groups.values())
      deployed.set(
        g.id,
        g.literals.map((l) => ({ ...l })),
      );
  };
  const view = (g: { id: string; name: string; objects: unknown[]; literals: FakeLiteral[] }) => ({
    links: { self: `/api/fmc_config/v1/domain/${domain}/object/networkgroups/${g.id}` },
    type: "NetworkGroup",
    id: g.id,
    name: g.name,
    overridable: false,
    ...(g.objects.length ? { objects: g.objects } : {}),
    ...(g.literals.length ? { literals: g.literals } : {}),
    metadata: { timestamp: Date.now(), lastUser: { name: username }, domain: { id: domain, type: "Domain" } },
  });

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const fail = (status: number, description: string) =>
      send(status, { error: { category: "FRAMEWORK", messages: [{ description }], severity: "ERROR" } });
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname;
    if (req.method === "POST" && path === "/api/fmc_platform/v1/auth/generatetoken") {
      counts.generatetoken++;
      if (req.headers.authorization !== basic) return fail(401, "Unauthorized");
      return issue(0, res);
    }
    if (req.method === "POST" && path === "/api/fmc_platform/v1/auth/refreshtoken") {
      counts.refreshtoken++;
      const access = String(req.headers["x-auth-access-token"] ?? "");
      const t = tokens.get(access);
      if (!t || t.refresh !== req.headers["x-auth-refresh-token"] || t.refreshes >= 3)
        return fail(401, "Invalid refresh token or refresh count exceeded.");
      tokens.delete(access);
      return issue(t.refreshes + 1, res);
    }
    if (!tokens.has(String(req.headers["x-auth-access-token"] ?? ""))) return fail(401, "Access token invalid.");
    if (throttled > 0) {
      throttled--;
      return fail(429, "Too Many Requests");
    }
    const m = /^\/api\/fmc_config\/v1\/domain\/([^/]+)(\/.*)$/.exec(path);
    if (!m || m[1] !== domain) return fail(404, "Domain not found.");
    const rest = m[2]!;
    const group = /^\/object\/networkgroups\/([^/]+)$/.exec(rest);
    if (group) {
      const g = groups.get(decodeURIComponent(group[1]!));
      if (!g) return fail(404, `Invalid object ID: ${group[1]}`);
      if (req.method === "GET") return send(200, view(g));
      if (req.method === "PUT") {
        counts.put++;
        let body: { id?: string; name?: string; type?: string; objects?: unknown[]; literals?: FakeLiteral[] };
        try {
          body = JSON.parse(raw) as typeof body;
        } catch {
          return fail(400, "Invalid JSON.");
        }
        if (body.id !== g.id) return fail(400, "Object ID in the URL and in the body must be the same.");
        if (body.type !== "NetworkGroup" || !body.name) return fail(400, "Invalid input: type and name are required.");
        const objects = body.objects ?? [];
        const literals = body.literals ?? [];
        if (objects.length === 0 && literals.length === 0) return fail(400, EMPTY_GROUP);
        if (literals.some((l) => !/^(host|network|range)$/i.test(l.type) || typeof l.value !== "string"))
          return fail(400, "Invalid literal.");
        g.name = body.name;
        g.objects = objects;
        g.literals = literals.map((l) => ({ type: l.type, value: l.value }));
        deployable = true;
        version = Date.now();
        return send(200, view(g));
      }
    }
    if (req.method === "GET" && rest === "/deployment/deployabledevices") {
      const items = deployable
        ? [
            {
              version: String(version),
              name: "ftd-1",
              type: "DeployableDevice",
              canBeDeployed: true,
              upToDate: false,
              device: { id: "0f6b6a5e-0000-4000-8000-00000000f7d1", type: "Device", name: "ftd-1" },
            },
          ]
        : [];
      return send(200, { links: {}, items, paging: { offset: 0, limit: 25, count: items.length, pages: 1 } });
    }
    if (req.method === "POST" && rest === "/deployment/deploymentrequests") {
      counts.deploy++;
      const body = JSON.parse(raw || "{}") as { type?: string; version?: string; deviceList?: string[] };
      if (body.type !== "DeploymentRequest" || !body.version || !body.deviceList?.length)
        return fail(400, "Invalid deployment request.");
      deploy();
      deployable = false;
      return send(202, { type: "DeploymentRequest", version: body.version, deviceList: body.deviceList });
    }
    return fail(404, "Unknown route");
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const hosts = (ls: FakeLiteral[] | undefined) => (ls ?? []).filter((l) => l.type === "Host").map((l) => l.value);
  return {
    url: `http://127.0.0.1:${port}`,
    domain,
    addGroup(name, members = {}) {
      const id = randomUUID();
      const literals = members.literals ?? [{ type: "Host", value: "127.255.255.254" }];
      groups.set(id, { id, name, objects: members.objects ?? [], literals });
      deploy();
      return id;
    },
    literals: (id) => groups.get(id)?.literals ?? [],
    deployed: (id) => hosts(deployed.get(id)),
    count: (route) => counts[route],
    expireTokens: () => tokens.clear(),
    throttle(n) {
      throttled = n;
    },
    put(id, ip) {
      groups.get(id)?.literals.push({ type: "Host", value: ip });
      deploy();
    },
    drop(id, ip) {
      const g = groups.get(id);
      if (g) g.literals = g.literals.filter((l) => l.value !== ip);
      deploy();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

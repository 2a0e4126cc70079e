/**
 * A fake Sophos Firewall (SFOS) XML API (issue #10 item 14), built from `shared/vendors.md` §6, on
 * 127.0.0.1 over plain http: one route `POST /webconsole/APIController` whose form field `reqxml`
 * holds the `<Request>`.
 *
 * Models:
 * - `<Login>` checked on every request: `<Login><status>Authentication Failure</status></Login>` when
 *   wrong, "Authentication Successful" otherwise; `Status code="532"` when API access is off
 *   (`setApiAccess(false)`) and `534` when the caller's address is not allowed (`setAllowed(false)`),
 *   answered at the top level as the SDK reads them.
 * - `Get` of `IPHost` and `IPHostGroup`, with an optional `<Filter><key name="Name" criteria="=">`;
 *   no match answers "Number of records Zero.".
 * - `Set operation="add"` of `IPHost` (Name, IPFamily, HostType IP, IPAddress): 200 "Configuration
 *   applied successfully.", 502 "Operation failed. Entity having same name already exists.".
 * - `Set operation="update"` of `IPHostGroup` with the whole HostList and IPFamily: 200.
 * - `Remove` of `IPHost`: 200.
 * Every group update counts, so tests can see one write per batch.
 *
 * Invented where vendors.md has no source (marked [UNCONFIRMED] there): the texts of 532 and 534; the
 * codes and texts for
 * updating an unknown group or listing an unknown host or one of the other family (541), and for
 * removing a missing host or one still in a group (541). Does not model: transactions, other entity
 * types, HostGroupList on IPHost, the admin's API allow-list itself, XML schema validation beyond
 * the fields above, Sophos's own name rules.
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { XMLParser } from "fast-xml-parser";

/** A running fake. */
export interface FakeSophosSfos {
  /** `http://127.0.0.1:PORT` (the driver's Hostname with scheme). */
  readonly url: string;
  /** Creates an IP host group by hand, listing `hosts` (names of hosts that exist). */
  addGroup(name: string, family?: "IPv4" | "IPv6", hosts?: string[]): void;
  /** Creates an IP host by hand (the admin's own). */
  addHost(name: string, ip: string, family?: "IPv4" | "IPv6"): void;
  /** The host names listed in a group. */
  hostList(group: string): string[];
  /** The addresses of the hosts listed in a group. */
  members(group: string): string[];
  /** Every host name. */
  hostNames(): string[];
  /** Number of group updates so far. */
  updates(): number;
  setApiAccess(on: boolean): void;
  setAllowed(on: boolean): void;
  /** Drift helpers: a `kk_` host listed in or taken out of a group behind the agent's back. */
  put(group: string, ip: string): void;
  drop(group: string, ip: string): void;
  stop(): Promise<void>;
}

const esc = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  isArray: (name) => ["IPHost", "IPHostGroup", "Host"].includes(name),
});

/** Starts the fake accepting `username`/`password`. */
export async function startFakeSophosSfos(username: string, password: string): Promise<FakeSophosSfos> {
  const hosts = new Map<string, { name: string; family: string; ip: string }>();
  const groups = new Map<string, { name: string; family: string; description: string; hosts: string[] }>();
  let updates = 0;
  let apiAccess = true;
  let allowed = true;

  const status = (code: number, text: string) => `<Status code="${code}">${esc(text)}</Status>`;
  const hostXml = (h: { name: string; family: string; ip: string }) =>
    `<IPHost transactionid=""><Name>${esc(h.name)}</Name><IPFamily>${h.family}</IPFamily><HostType>IP</HostType>` +
    `<IPAddress>${esc(h.ip)}</IPAddress></IPHost>`;
  const groupXml = (g: { name: string; family: string; description: string; hosts: string[] }) =>
    `<IPHostGroup transactionid=""><Name>${esc(g.name)}</Name><Description>${esc(g.description)}</Description>` +
    (g.hosts.length ? `<HostList>${g.hosts.map((h) => `<Host>${esc(h)}</Host>`).join("")}</HostList>` : "") +
    `<IPFamily>${g.family}</IPFamily></IPHostGroup>`;

  type Node = Record<string, unknown>;
  const text = (v: unknown): string =>
    typeof v === "object" && v ? String((v as Node)["#text"] ?? "") : String(v ?? "");
  const nameFilter = (entity: Node): string | undefined => {
    const key = (entity["Filter"] as Node | undefined)?.["key"] as Node | undefined;
    return key && key["@name"] === "Name" && key["@criteria"] === "=" ? text(key) : undefined;
  };

  const answer = (request: Node): string => {
    const login = request["Login"] as Node | undefined;
    if (text(login?.["Username"]) !== username || text(login?.["Password"]) !== password)
      return "<Login><status>Authentication Failure</status></Login>";
    let out = "<Login><status>Authentication Successful</status></Login>";
    const get = request["Get"] as Node | undefined;
    if (get) {
      for (const e of (get["IPHost"] as Node[] | undefined) ?? []) {
        const f = nameFilter(e);
        const found = [...hosts.values()].filter((h) => f === undefined || h.name === f);
        out += found.length
          ? found.map(hostXml).join("")
          : `<IPHost>${"<Status>Number of records Zero.</Status>"}</IPHost>`;
      }
      for (const e of (get["IPHostGroup"] as Node[] | undefined) ?? []) {
        const f = nameFilter(e);
        const found = [...groups.values()].filter((g) => f === undefined || g.name === f);
        out += found.length
          ? found.map(groupXml).join("")
          : "<IPHostGroup><Status>Number of records Zero.</Status></IPHostGroup>";
      }
    }
    const set = request["Set"] as Node | undefined;
    if (set && set["@operation"] === "add") {
      for (const e of (set["IPHost"] as Node[] | undefined) ?? []) {
        const name = text(e["Name"]);
        if (hosts.has(name)) {
          out += `<IPHost transactionid="">${status(502, "Operation failed. Entity having same name already exists.")}</IPHost>`;
          continue;
        }
        hosts.set(name, { name, family: text(e["IPFamily"]) || "IPv4", ip: text(e["IPAddress"]) });
        out += `<IPHost transactionid="">${status(200, "Configuration applied successfully.")}</IPHost>`;
      }
    }
    if (set && set["@operation"] === "update") {
      for (const e of (set["IPHostGroup"] as Node[] | undefined) ?? []) {
        updates++;
        const g = groups.get(text(e["Name"]));
        const list = (((e["HostList"] as Node | undefined)?.["Host"] as unknown[] | undefined) ?? []).map(text);
        const bad = list.find((h) => hosts.get(h)?.family !== (g?.family ?? ""));
        if (!g || bad !== undefined || text(e["IPFamily"]) !== g.family) {
          out += `<IPHostGroup transactionid="">${status(541, "Operation could not be performed on Entity.")}</IPHostGroup>`;
          continue;
        }
        g.hosts = list;
        g.description = text(e["Description"]);
        out += `<IPHostGroup transactionid="">${status(200, "Configuration applied successfully.")}</IPHostGroup>`;
      }
    }
    const remove = request["Remove"] as Node | undefined;
    if (remove) {
      for (const e of (remove["IPHost"] as Node[] | undefined) ?? []) {
        const name = text(e["Name"]);
        const used = [...groups.values()].some((g) => g.hosts.includes(name));
        if (!hosts.has(name) || used) {
          out += `<IPHost transactionid="">${status(541, "Operation could not be performed on Entity.")}</IPHost>`;
          continue;
        }
        hosts.delete(name);
        out += `<IPHost transactionid="">${status(200, "Configuration applied successfully.")}</IPHost>`;
      }
    }
    return out;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const reply = (inner: string) =>
        res
          .writeHead(200, { "content-type": "application/xml" })
          .end(
            `<?xml version="1.0" encoding="UTF-8"?>\n<Response APIVersion="2000.1" IPS_CAT_VER="1">${inner}</Response>`,
          );
      if (req.method !== "POST" || new URL(req.url ?? "/", "http://fake").pathname !== "/webconsole/APIController")
        return res.writeHead(404).end();
      if (!apiAccess) return reply(status(532, "API operations are not enabled."));
      if (!allowed) return reply(status(534, "API operations are not allowed from the requester IP address"));
      const reqxml = new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("reqxml") ?? "";
      let doc: Node;
      try {
        doc = parser.parse(reqxml) as Node;
      } catch {
        return reply(status(500, "Request is malformed."));
      }
      const request = doc["Request"];
      if (!request || typeof request !== "object") return reply(status(500, "Request is malformed."));
      reply(answer(request as Node));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const ipOf = (name: string) => hosts.get(name)?.ip ?? "";
  return {
    url: `http://127.0.0.1:${port}`,
    addGroup(name, family = "IPv4", list = []) {
      groups.set(name, { name, family, description: `${name} (set by hand)`, hosts: [...list] });
    },
    addHost(name, ip, family = "IPv4") {
      hosts.set(name, { name, family, ip });
    },
    hostList: (group) => [...(groups.get(group)?.hosts ?? [])],
    members: (group) => (groups.get(group)?.hosts ?? []).map(ipOf),
    hostNames: () => [...hosts.keys()],
    updates: () => updates,
    setApiAccess(on) {
      apiAccess = on;
    },
    setAllowed(on) {
      allowed = on;
    },
    put(group, ip) {
      const family = ip.includes(":") ? "IPv6" : "IPv4";
      const name = `kk_${ip.replaceAll(":", "-")}`;
      hosts.set(name, { name, family, ip });
      groups.get(group)?.hosts.push(name);
    },
    drop(group, ip) {
      const g = groups.get(group);
      if (g) g.hosts = g.hosts.filter((h) => ipOf(h) !== ip);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

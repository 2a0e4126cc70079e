/**
 * A fake Sophos UTM REST API (issue #10 item 14), built from `shared/vendors.md` §5, on 127.0.0.1 over
 * plain http under `/api`.
 *
 * Models: Basic auth `token:<key>` (401 otherwise); `GET|POST /api/objects/network/host/`,
 * `DELETE /api/objects/network/host/<ref>` (a host still in a group answers 409 with the error array
 * `[{name, msgtype, fatal: 1}]` unless `X-Restd-Err-Ack: all`); `GET|PATCH
 * /api/objects/network/group/<ref>` with `members` as a list of REFs; generated `REF_…` ids; 404 for
 * unknown refs. Every PATCH counts, so tests can see one write per batch.
 *
 * Does not model: user name and password auth, locks (`X-Restd-Lock-Override`), validation of fields
 * beyond name and address, other object types, the UTM's own duplicate rules (not documented).
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running fake. */
export interface FakeSophosUtm {
  /** `http://127.0.0.1:PORT` (the driver's Hostname with scheme). */
  readonly url: string;
  /** Number of PATCH requests so far. */
  patches(): number;
  /** Creates a group by hand; returns its REF. */
  addGroup(name: string): string;
  /** The addresses of a group's members. */
  members(ref: string): string[];
  /** Host objects left (name list). */
  hostNames(): string[];
  /** Adds a host to a group behind the agent's back. */
  put(ref: string, ip: string): void;
  /** Takes an address's host out of a group behind the agent's back. */
  drop(ref: string, ip: string): void;
  stop(): Promise<void>;
}

/** Starts the fake accepting `apiKey`. */
export async function startFakeSophosUtm(apiKey: string): Promise<FakeSophosUtm> {
  const hosts = new Map<string, { _ref: string; name: string; address: string; address6: string }>();
  const groups = new Map<string, { _ref: string; name: string; members: string[] }>();
  let n = 0;
  let patches = 0;
  const newHost = (name: string, address: string, address6: string) => {
    const ref = `REF_NetHos${++n}`;
    hosts.set(ref, { _ref: ref, name, address, address6 });
    return ref;
  };
  const auth = `Basic ${Buffer.from(`token:${apiKey}`).toString("base64")}`;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const fail = (status: number, name: string) =>
        send(status, [{ name, msgtype: name, fatal: 1, ref: "", attrs: [] }]);
      if (req.headers.authorization !== auth) return fail(401, "Authentication failed");
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
      const path = new URL(req.url ?? "/", "http://fake").pathname;
      const host = /^\/api\/objects\/network\/host\/([^/]*)$/.exec(path);
      const group = /^\/api\/objects\/network\/group\/([^/]+)$/.exec(path);
      if (host && host[1] === "" && req.method === "GET") return send(200, [...hosts.values()]);
      if (host && host[1] === "" && req.method === "POST") {
        const ref = newHost(String(body["name"]), String(body["address"] ?? ""), String(body["address6"] ?? ""));
        return send(201, hosts.get(ref));
      }
      if (host && req.method === "DELETE") {
        const ref = decodeURIComponent(host[1]!);
        if (!hosts.has(ref)) return fail(404, "Object not found");
        const used = [...groups.values()].some((g) => g.members.includes(ref));
        if (used && req.headers["x-restd-err-ack"] !== "all") return fail(409, "Object is in use");
        for (const g of groups.values()) g.members = g.members.filter((m) => m !== ref);
        hosts.delete(ref);
        return send(204, "");
      }
      if (group) {
        const g = groups.get(decodeURIComponent(group[1]!));
        if (!g) return fail(404, "Object not found");
        if (req.method === "GET") return send(200, g);
        if (req.method === "PATCH") {
          patches++;
          const members = (body["members"] as string[] | undefined) ?? g.members;
          if (members.some((m) => !hosts.has(m))) return fail(400, "Reference does not exist");
          g.members = members;
          return send(200, g);
        }
      }
      return fail(404, "Unknown route");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const addressOf = (ref: string) => {
    const h = hosts.get(ref);
    return h ? h.address || h.address6 : "";
  };
  return {
    url: `http://127.0.0.1:${port}`,
    patches: () => patches,
    addGroup(name) {
      const ref = `REF_NetGro${++n}`;
      groups.set(ref, { _ref: ref, name, members: [] });
      return ref;
    },
    members: (ref) => (groups.get(ref)?.members ?? []).map(addressOf),
    hostNames: () => [...hosts.values()].map((h) => h.name),
    put(ref, ip) {
      groups.get(ref)?.members.push(newHost(`kk_${ip}`, ip, ""));
    },
    drop(ref, ip) {
      const g = groups.get(ref);
      if (g) g.members = g.members.filter((m) => addressOf(m) !== ip);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

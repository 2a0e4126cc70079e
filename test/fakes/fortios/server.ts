/**
 * A fake FortiGate REST API (issue #10 item 14), built from the calls and error shapes in
 * `shared/vendors.md` §1, on 127.0.0.1 over plain http.
 *
 * Models: `Authorization: Bearer` (401 otherwise); `?vdom=` (each VDOM its own objects; default
 * `root`); `GET|POST /api/v2/cmdb/firewall/address(6)`, `DELETE …/address(6)/<name>`;
 * `GET|PUT …/addrgrp(6)/<name>`, `POST …/addrgrp(6)/<name>/member`, `DELETE …/member/<m>`; the
 * envelope `{http_method, http_status, status, mkey, vdom}` and `results` on GET; errors -5 (HTTP 500)
 * for a duplicate, -3 (404) for anything missing, -23 (500) when deleting an address a group uses.
 *
 * Every VDOM has the built-in `none` address (0.0.0.0/32) and address6 (::/128). With
 * `{ before72: true }` it behaves as FortiOS below 7.2, which cannot hold an empty address group:
 * taking out a group's last member answers HTTP 500 error -1 (the real code is not documented; this one
 * is invented) and leaves the group as it was.
 *
 * Does not model: tokens with trusted hosts, the `?access_token=` form, field validation beyond the
 * names, batch transactions, revisions, the monitor API.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface Vdom {
  address: Map<string, Record<string, unknown>>;
  address6: Map<string, Record<string, unknown>>;
  addrgrp: Map<string, { name: string; member: { name: string }[] }>;
  addrgrp6: Map<string, { name: string; member: { name: string }[] }>;
}

/** A running fake. */
export interface FakeFortiGate {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Every request line as `METHOD path?query`, in order. */
  readonly log: string[];
  /** Creates an address group (as an admin would by hand). */
  addGroup(name: string, vdom?: string, v6?: boolean): void;
  /** Member names of a group. */
  members(name: string, vdom?: string, v6?: boolean): string[];
  /** Names of the address objects of a VDOM. */
  addresses(vdom?: string): string[];
  /** Takes a member out behind the agent's back (drift). */
  dropMember(group: string, member: string, vdom?: string): void;
  /** Puts an IPv4 address object in a group behind the agent's back (drift). */
  putMember(group: string, member: string, ip: string, vdom?: string): void;
  stop(): Promise<void>;
}

/** Starts the fake, accepting `token` as the only bearer token. */
export async function startFakeFortiGate(token: string, opts: { before72?: boolean } = {}): Promise<FakeFortiGate> {
  const vdoms = new Map<string, Vdom>();
  const log: string[] = [];
  const vdomOf = (name: string): Vdom => {
    let v = vdoms.get(name);
    if (!v) {
      v = { address: new Map(), address6: new Map(), addrgrp: new Map(), addrgrp6: new Map() };
      v.address.set("none", { name: "none", type: "ipmask", subnet: "0.0.0.0/32" });
      v.address6.set("none", { name: "none", ip6: "::/128" });
      vdoms.set(name, v);
    }
    return v;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });

  function send(res: ServerResponse, status: number, body: Record<string, unknown>): void {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? "/", "http://fake");
    log.push(`${req.method} ${url.pathname}${url.search}`);
    const vdomName = url.searchParams.get("vdom") ?? "root";
    const env = { http_method: req.method, vdom: vdomName, path: "firewall", serial: "FGFAKE", version: "v7.2.8" };
    const ok = (extra: Record<string, unknown> = {}) =>
      send(res, 200, { ...env, http_status: 200, status: "success", ...extra });
    const err = (status: number, code: number) =>
      send(res, status, { ...env, http_status: status, status: "error", error: code });
    if (req.headers.authorization !== `Bearer ${token}`) return err(401, -1);
    const m = /^\/api\/v2\/cmdb\/firewall\/(address6?|addrgrp6?)(?:\/([^/]+))?(?:\/member(?:\/([^/]+))?)?$/.exec(
      url.pathname,
    );
    if (!m) return err(404, -3);
    const kind = m[1] as keyof Vdom;
    const name = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    const isMemberPath = url.pathname.includes("/member");
    const member = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
    const v = vdomOf(vdomName);
    let data: Record<string, unknown>;
    try {
      data = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    } catch {
      return err(400, -651);
    }

    if (kind === "address" || kind === "address6") {
      const table = v[kind];
      if (req.method === "GET" && name === undefined) return ok({ results: [...table.values()] });
      if (req.method === "GET") return table.has(name!) ? ok({ results: [table.get(name!)] }) : err(404, -3);
      if (req.method === "POST" && name === undefined) {
        const n = String(data["name"] ?? "");
        if (!n) return err(500, -651);
        if (table.has(n)) return err(500, -5);
        table.set(n, data);
        return ok({ mkey: n });
      }
      if (req.method === "DELETE" && name !== undefined) {
        if (!table.has(name)) return err(404, -3);
        const groups = kind === "address" ? v.addrgrp : v.addrgrp6;
        if ([...groups.values()].some((g) => g.member.some((x) => x.name === name))) return err(500, -23);
        table.delete(name);
        return ok({ mkey: name });
      }
      return err(405, -1);
    }

    const groups = v[kind];
    const group = name === undefined ? undefined : groups.get(name);
    if (!isMemberPath) {
      if (req.method === "GET" && name === undefined) return ok({ results: [...groups.values()] });
      if (req.method === "GET") return group ? ok({ results: [group] }) : err(404, -3);
      if (req.method === "PUT" && group) {
        group.member = ((data["member"] as { name: string }[]) ?? []).map((x) => ({ name: x.name }));
        return ok({ mkey: name });
      }
      return err(group ? 405 : 404, group ? -1 : -3);
    }
    if (!group) return err(404, -3);
    const objects = kind === "addrgrp" ? v.address : v.address6;
    if (req.method === "POST" && member === undefined) {
      const n = String(data["name"] ?? "");
      if (!objects.has(n)) return err(500, -3);
      if (group.member.some((x) => x.name === n)) return err(500, -5);
      group.member.push({ name: n });
      return ok({ mkey: n });
    }
    if (req.method === "DELETE" && member !== undefined) {
      if (!group.member.some((x) => x.name === member)) return err(404, -3);
      if (opts.before72 && group.member.length === 1) return err(500, -1);
      group.member = group.member.filter((x) => x.name !== member);
      return ok({ mkey: member });
    }
    return err(405, -1);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    addGroup: (name, vdom = "root", v6 = false) =>
      void vdomOf(vdom)[v6 ? "addrgrp6" : "addrgrp"].set(name, { name, member: [] }),
    members: (name, vdom = "root", v6 = false) =>
      (vdomOf(vdom)[v6 ? "addrgrp6" : "addrgrp"].get(name)?.member ?? []).map((x) => x.name),
    addresses: (vdom = "root") =>
      [...vdomOf(vdom).address.keys(), ...vdomOf(vdom).address6.keys()].filter((n) => n !== "none"),
    dropMember(group, member, vdom = "root") {
      const g = vdomOf(vdom).addrgrp.get(group);
      if (g) g.member = g.member.filter((x) => x.name !== member);
    },
    putMember(group, member, ip, vdom = "root") {
      const v = vdomOf(vdom);
      v.address.set(member, { name: member, type: "ipmask", subnet: `${ip}/32` });
      v.addrgrp.get(group)?.member.push({ name: member });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

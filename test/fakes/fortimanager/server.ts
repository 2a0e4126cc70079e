/**
 * A fake FortiManager JSON-RPC API (issue #10 item 14), built from `shared/vendors.md` §2, on
 * 127.0.0.1 over plain http: one `POST /jsonrpc` route dispatching on `params[0].url` and `method`.
 *
 * Models: `Authorization: Bearer` (-11 "No permission" otherwise, HTTP 200 as FortiManager does); the
 * ADOM `root` object DB: `add`/`get`/`delete` of `obj/firewall/address(6)`, `get` of
 * `obj/firewall/addrgrp(6)/<g>`, `add`/`delete` of `…/<g>/member` with a list of names; status codes 0,
 * -2 (exists), -3 (does not exist), -7 (in use); `exec /securityconsole/install/objects/v2` creating a
 * task that is done on the next `get /task/task/<id>` (or fails when `failInstalls` is set). What the
 * FortiGates received is the group as of the last successful install (`installed`). The drift helpers
 * stand for an admin who changed the group and installed it.
 *
 * Does not model: workspace locks, other ADOMs, the legacy install API, policy packages, the
 * unconfirmed parts of the error table (-20055, -10147).
 */
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A running fake. */
export interface FakeFortiManager {
  readonly url: string;
  /** Creates a group by hand. */
  addGroup(name: string, v6?: boolean): void;
  /** Member names of a group in the ADOM DB. */
  members(name: string): string[];
  /** Member names of a group as last installed to the devices. */
  installed(name: string): string[];
  /** Number of install requests. */
  installs(): number;
  /** Makes the next installs fail. */
  failInstalls(on: boolean): void;
  /** Drift helpers: a member added or removed behind the agent's back (in the DB, and installed). */
  put(group: string, member: string): void;
  drop(group: string, member: string): void;
  stop(): Promise<void>;
}

/** Starts the fake accepting `apiKey`. */
export async function startFakeFortiManager(apiKey: string): Promise<FakeFortiManager> {
  const objects = new Map<string, Record<string, unknown>>();
  const groups = new Map<string, string[]>();
  const installed = new Map<string, string[]>();
  const tasks = new Map<number, { group: string; fail: boolean }>();
  let nextTask = 0;
  let installs = 0;
  let failing = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rpc = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as {
        id?: number;
        method?: string;
        params?: { url: string; data?: unknown }[];
      };
      const p = rpc.params?.[0] ?? { url: "" };
      const reply = (code: number, message: string, data?: unknown) =>
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: rpc.id,
            result: [{ status: { code, message }, url: p.url, ...(data === undefined ? {} : { data }) }],
          }),
        );
      if (req.headers.authorization !== `Bearer ${apiKey}`) return reply(-11, "No permission for the resource");
      const url = p.url.replace(/^\/pm\/config\/adom\/root\//, "");
      let m: RegExpExecArray | null;
      if (/^obj\/firewall\/address6?$/.test(url) && rpc.method === "add") {
        const name = String((p.data as { name?: string }).name);
        if (objects.has(name)) return reply(-2, "Object already exists");
        objects.set(name, p.data as Record<string, unknown>);
        return reply(0, "OK", { name });
      }
      if ((m = /^obj\/firewall\/address6?\/(.+)$/.exec(url)) && rpc.method === "delete") {
        const name = m[1]!;
        if (!objects.has(name)) return reply(-3, "Object does not exist");
        if ([...groups.values()].some((g) => g.includes(name))) return reply(-7, "Object is in use");
        objects.delete(name);
        return reply(0, "OK");
      }
      if ((m = /^obj\/firewall\/(addrgrp6?\/[^/]+)$/.exec(url)) && rpc.method === "get") {
        const g = groups.get(m[1]!);
        return g ? reply(0, "OK", { name: m[1]!.split("/")[1], member: [...g] }) : reply(-3, "Object does not exist");
      }
      if ((m = /^obj\/firewall\/(addrgrp6?\/[^/]+)\/member$/.exec(url))) {
        const g = groups.get(m[1]!);
        if (!g) return reply(-3, "Object does not exist");
        const names = (p.data as string[]) ?? [];
        if (rpc.method === "add") {
          if (names.some((n) => !objects.has(n))) return reply(-3, "Object does not exist");
          if (names.every((n) => g.includes(n))) return reply(-2, "Object already exists");
          for (const n of names) if (!g.includes(n)) g.push(n);
          return reply(0, "OK");
        }
        if (rpc.method === "delete") {
          if (!names.some((n) => g.includes(n))) return reply(-3, "Object does not exist");
          groups.set(
            m[1]!,
            g.filter((n) => !names.includes(n)),
          );
          return reply(0, "OK");
        }
      }
      if (p.url === "/securityconsole/install/objects/v2" && rpc.method === "exec") {
        installs++;
        const obj = ((p.data as { objects?: string[][] }).objects ?? [])[0]?.[1] ?? "";
        const id = ++nextTask;
        tasks.set(id, { group: obj.replace(/^obj\/firewall\//, ""), fail: failing });
        return reply(0, "OK", { task: id });
      }
      if ((m = /^\/task\/task\/(\d+)$/.exec(p.url)) && rpc.method === "get") {
        const t = tasks.get(Number(m[1]));
        if (!t) return reply(-3, "Object does not exist");
        if (!t.fail) installed.set(t.group, [...(groups.get(t.group) ?? [])]);
        return reply(0, "OK", { percent: 100, num_err: t.fail ? 1 : 0, state: t.fail ? "error" : "done" });
      }
      return reply(-6, "Invalid url");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    addGroup: (name, v6 = false) => void groups.set(`${v6 ? "addrgrp6" : "addrgrp"}/${name}`, []),
    members: (name) => [...(groups.get(`addrgrp/${name}`) ?? [])],
    installed: (name) => [...(installed.get(`addrgrp/${name}`) ?? [])],
    installs: () => installs,
    failInstalls: (on) => void (failing = on),
    put(group, member) {
      objects.set(member, { name: member });
      groups.get(`addrgrp/${group}`)?.push(member);
      installed.set(`addrgrp/${group}`, [...(groups.get(`addrgrp/${group}`) ?? [])]);
    },
    drop(group, member) {
      groups.set(
        `addrgrp/${group}`,
        (groups.get(`addrgrp/${group}`) ?? []).filter((n) => n !== member),
      );
      installed.set(`addrgrp/${group}`, [...(groups.get(`addrgrp/${group}`) ?? [])]);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

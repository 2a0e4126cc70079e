import { execFileSync } from "node:child_process";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { loadServerConfig } from "../config/index.ts";
import { startServer } from "../server.ts";
import { databasePath } from "../db/index.ts";
import type { RunningServer } from "../server.ts";
import { migrateDatabase, openDatabase } from "../db/index.ts";
import { createLogger } from "../logger.ts";
import { setSetting } from "../services/settings.ts";
import { allowedOrigin, discoveryPortsOf, SPEC_DISCOVERY_PORTS, startDiscovery } from "./discovery.ts";
import type { DiscoveryListeners } from "./discovery.ts";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** One request to a discovery listener on 127.0.0.1 (bounded by 5 s). */
function call(
  port: number,
  opts: { method?: string; path?: string; headers?: Record<string, string>; tls?: boolean } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const send = opts.tls ? httpsRequest : httpRequest;
    const req = send(
      {
        host: "127.0.0.1",
        port,
        method: opts.method ?? "GET",
        path: opts.path ?? "/api/ip",
        headers: opts.headers ?? {},
        timeout: 5000,
        rejectUnauthorized: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text ? (JSON.parse(text) as unknown) : null,
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}

let h: Harness;
let listeners: DiscoveryListeners | undefined;

beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await listeners?.close();
  listeners = undefined;
  await h.close();
});

describe("discovery listeners (user-portal §7 IP discovery)", () => {
  it("answer GET /api/ip with the caller's address on every port, with CORS for the portal on this host", async () => {
    listeners = await startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0, 0] });
    expect(listeners.ports).toHaveLength(2);
    for (const port of listeners.ports) {
      const r = await call(port, { headers: { origin: "http://127.0.0.1:8080", cookie: "" } });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ IP: "127.0.0.1" });
      expect(r.headers["access-control-allow-origin"]).toBe("http://127.0.0.1:8080");
      expect(r.headers["access-control-allow-credentials"]).toBe("true");
      expect(r.headers["vary"]).toMatch(/Origin/);
      expect(r.headers["cache-control"]).toBe("no-store");
    }
  });

  it("allow no foreign origin without PublicURL, and the PublicURL origin when it is set", async () => {
    listeners = await startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0] });
    const port = listeners.ports[0]!;
    const foreign = await call(port, { headers: { origin: "http://evil.example" } });
    expect(foreign.status).toBe(200);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
    expect(foreign.headers["access-control-allow-credentials"]).toBeUndefined();
    await setSetting(h.services.db, "PublicURL", "https://postern.example.com/");
    const withPublic = await call(port, { headers: { origin: "http://evil.example" } });
    expect(withPublic.headers["access-control-allow-origin"]).toBe("https://postern.example.com");
  });

  it("answer the CORS preflight, including Chrome's private-network request", async () => {
    listeners = await startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0] });
    const r = await call(listeners.ports[0]!, {
      method: "OPTIONS",
      headers: {
        origin: "http://127.0.0.1:8080",
        "access-control-request-method": "GET",
        "access-control-request-private-network": "true",
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers["access-control-allow-origin"]).toBe("http://127.0.0.1:8080");
    expect(r.headers["access-control-allow-methods"]).toBe("GET");
    expect(r.headers["access-control-allow-private-network"]).toBe("true");
  });

  it("answer nothing else: other paths and methods are 404 Not found", async () => {
    listeners = await startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0] });
    const port = listeners.ports[0]!;
    expect(await call(port, { path: "/api/status" })).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await call(port, { path: "/" })).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await call(port, { method: "POST" })).toMatchObject({ status: 404, body: { Err: "Not found" } });
  });

  it("record the address for the session of the cookie, so POST /log_ips confirms it", async () => {
    await seedLoop(h);
    const login = await apiRequest(h, "POST", "/api/login", {
      UserName: "alice",
      Password: "alice-password",
      KioskMode: false,
    });
    expect(login.status).toBe(200);
    const cookie = login.setCookie.split(";")[0] ?? "";
    const report = { IPs: [{ Port: 0, IP: "127.0.0.1" }] };
    expect((await apiRequest(h, "POST", "/api/log_ips", report, { cookie })).body).toEqual({ Confirmed: [] });
    listeners = await startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0] });
    const port = listeners.ports[0]!;
    expect((await call(port, { headers: { cookie } })).body).toEqual({ IP: "127.0.0.1" });
    expect(
      (await apiRequest(h, "POST", "/api/log_ips", { IPs: [{ Port: port, IP: "127.0.0.1" }] }, { cookie })).body,
    ).toEqual({ Confirmed: ["127.0.0.1"] });
    // A dead cookie is not an error: discovery still answers.
    expect((await call(port, { headers: { cookie: "postern_session=nonsense" } })).status).toBe(200);
  });

  it("are reported by GET /system_status as IPApiPorts while they listen", async () => {
    const status = async () => (await apiRequest(h, "GET", "/api/system_status")).body;
    expect(await status()).toEqual({ IPApi: "http://postern.test/api/ip", IPApiPorts: [], JsBundleHash: "test" });
    listeners = await startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0, 0] });
    expect(discoveryPortsOf(h.services)).toEqual(listeners.ports);
    expect(await status()).toEqual({
      IPApi: "http://postern.test/api/ip",
      IPApiPorts: [...listeners.ports],
      JsBundleHash: "test",
    });
    await listeners.close();
    expect(await status()).toMatchObject({ IPApiPorts: [] });
  });

  it("leave an outside DiscoverIPURL to the spec's ports, and report nothing when DiscoverIP is off", async () => {
    const cookie = await signInAdmin(h);
    const set = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/config",
      { DiscoverIPURL: "https://ip.example.net/" },
      { cookie },
    );
    expect(set.status).toBe(200);
    expect((await apiRequest(h, "GET", "/api/system_status")).body).toMatchObject({
      IPApi: "https://ip.example.net/",
      IPApiPorts: [...SPEC_DISCOVERY_PORTS],
    });
    expect(SPEC_DISCOVERY_PORTS).toEqual([443, 222, 3389, 8000]);
    expect((await apiRequest(h, "POST", "/api/admin/settings/config", { DiscoverIP: false }, { cookie })).status).toBe(
      200,
    );
    expect((await apiRequest(h, "GET", "/api/system_status")).body).toMatchObject({ IPApi: "", IPApiPorts: [] });
  });

  it("serve https with the configured certificate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-discovery-"));
    try {
      const certFile = join(dir, "cert.pem");
      const keyFile = join(dir, "key.pem");
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=127.0.0.1",
          "-keyout",
          keyFile,
          "-out",
          certFile,
        ],
        { stdio: "ignore" },
      );
      listeners = await startDiscovery({
        services: h.services,
        host: "127.0.0.1",
        ports: [0],
        tls: { certFile, keyFile },
      });
      const r = await call(listeners.ports[0]!, { tls: true, headers: { origin: "https://127.0.0.1" } });
      expect(r).toMatchObject({ status: 200, body: { IP: "127.0.0.1" } });
      expect(r.headers["access-control-allow-origin"]).toBe("https://127.0.0.1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fail to start when a port is taken, closing the listeners already started", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const taken = (blocker.address() as { port: number }).port;
    try {
      await expect(startDiscovery({ services: h.services, host: "127.0.0.1", ports: [0, taken] })).rejects.toThrow(
        /EADDRINUSE/,
      );
      expect(discoveryPortsOf(h.services)).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});

describe("allowedOrigin", () => {
  it("echoes an origin on the request's host name (any port or scheme), else names PublicURL's origin", () => {
    expect(allowedOrigin("https://gw.example.com", "https://gw.example.com:3389/api/ip", "")).toBe(
      "https://gw.example.com",
    );
    expect(allowedOrigin("http://gw.example.com:8080", "http://gw.example.com:222/api/ip", "")).toBe(
      "http://gw.example.com:8080",
    );
    expect(allowedOrigin("https://other.example.com", "https://gw.example.com:222/api/ip", "")).toBeUndefined();
    expect(
      allowedOrigin("https://other.example.com", "https://gw.example.com:222/api/ip", "https://gw.example.com/portal/"),
    ).toBe("https://gw.example.com");
    expect(allowedOrigin("null", "https://gw.example.com:222/api/ip", "")).toBeUndefined();
    expect(allowedOrigin(undefined, "https://gw.example.com:222/api/ip", "https://gw.example.com")).toBeUndefined();
  });
});

/** A TCP port free on 127.0.0.1 right now (bound to 0, then released). */
async function freePort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe("the additional client IP addresses settings (multi-port discovery without an environment variable)", () => {
  it("are set by an admin (off by default, the spec's ports proposed) and refuse bad ports", async () => {
    const cookie = await signInAdmin(h);
    const config = (body: unknown) => apiRequest(h, "POST", "/api/admin/settings/config", body, { cookie });
    expect((await apiRequest(h, "GET", "/api/admin/settings", undefined, { cookie })).body).toMatchObject({
      AdditionalClientIPs: false,
      AdditionalClientIPPorts: [443, 222, 3389, 8000],
    });
    for (const bad of [[], [0], [65536], [8443, 8443], ["443"]]) {
      expect(
        (await config({ AdditionalClientIPs: true, AdditionalClientIPPorts: bad })).status,
        JSON.stringify(bad),
      ).toBe(400);
    }
    expect((await config({ AdditionalClientIPs: true, AdditionalClientIPPorts: [8443, 2222] })).body).toMatchObject({
      AdditionalClientIPs: true,
      AdditionalClientIPPorts: [8443, 2222],
    });
    // Applied at the next start: nothing listens yet.
    expect((await apiRequest(h, "GET", "/api/system_status")).body).toMatchObject({ IPApiPorts: [] });
  });

  it("start the listeners at the next start; configured ports win; unbindable setting ports do not stop the start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "postern-discovery-start-"));
    let server: RunningServer | undefined;
    const blocker: Server = createServer();
    try {
      const dataDir = join(dir, "data");
      mkdirSync(dataDir, { mode: 0o700 });
      const start = async (ports: number[] = []) =>
        startServer({
          dataDir,
          listen: "127.0.0.1:0",
          migrate: true,
          logger: createLogger("silent"),
          webDir: join(dir, "no-web"),
          discovery: { ports },
        });
      const status = async (s: RunningServer) =>
        ((await (await fetch(`${s.url}/api/system_status`)).json()) as { IPApiPorts: number[] }).IPApiPorts;
      const store = async (values: Record<string, unknown>) => {
        const database = openDatabase(databasePath(dataDir));
        await migrateDatabase(database.db);
        for (const [k, v] of Object.entries(values)) await setSetting(database.db, k as "AdditionalClientIPs", v);
        await database.close();
      };
      const [a, b] = [await freePort(), await freePort()];
      await store({ AdditionalClientIPs: true, AdditionalClientIPPorts: [a, b] });
      server = await start();
      expect(await status(server)).toEqual([a, b]);
      expect(await call(a)).toMatchObject({ status: 200, body: { IP: "127.0.0.1" } });
      await server.close();
      server = undefined;

      // POSTERN_DISCOVERY_PORTS (the configured ports) win over the setting.
      const c = await freePort();
      server = await start([c]);
      expect(await status(server)).toEqual([c]);
      await server.close();
      server = undefined;

      // A taken setting port: the server starts without discovery listeners.
      await new Promise<void>((resolve) => blocker.listen(a, "127.0.0.1", resolve));
      server = await start();
      expect(await status(server)).toEqual([]);
      expect((await fetch(`${server.url}/api/system_status`)).status).toBe(200);
      await server.close();
      server = undefined;

      // Switched off: no listeners.
      await store({ AdditionalClientIPs: false });
      server = await start();
      expect(await status(server)).toEqual([]);
    } finally {
      await server?.close();
      if (blocker.listening) await new Promise<void>((resolve) => blocker.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("POSTERN_DISCOVERY_* configuration", () => {
  const base = { POSTERN_DATA_DIR: "/tmp/postern-test" };
  it("defaults to no listeners and parses a port list with TLS files", () => {
    const none = loadServerConfig(base);
    expect(none.ok && none.value.discovery).toEqual({ ports: [] });
    const some = loadServerConfig({
      ...base,
      POSTERN_DISCOVERY_PORTS: "443, 222,3389,8000",
      POSTERN_DISCOVERY_TLS_CERT: "/etc/postern/c.pem",
      POSTERN_DISCOVERY_TLS_KEY: "/etc/postern/k.pem",
    });
    expect(some.ok && some.value.discovery).toEqual({
      ports: [443, 222, 3389, 8000],
      tls: { certFile: "/etc/postern/c.pem", keyFile: "/etc/postern/k.pem" },
    });
  });
  it("refuses bad ports, repeated ports and a certificate without its key", () => {
    for (const bad of ["0", "65536", "80,http", "-1", "443,443"]) {
      const r = loadServerConfig({ ...base, POSTERN_DISCOVERY_PORTS: bad });
      expect(r.ok, bad).toBe(false);
      if (!r.ok) expect(r.problems.join()).toMatch(/POSTERN_DISCOVERY_PORTS/);
    }
    const half = loadServerConfig({ ...base, POSTERN_DISCOVERY_TLS_CERT: "/c.pem" });
    expect(half.ok).toBe(false);
    if (!half.ok)
      expect(half.problems.join()).toMatch(/set both POSTERN_DISCOVERY_TLS_CERT and POSTERN_DISCOVERY_TLS_KEY/);
  });
});

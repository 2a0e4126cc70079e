import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createApp } from "../app.ts";
import { createHarness, socketEnv } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { setSetting } from "../services/settings.ts";
import { createDiscoveryApp } from "./discovery.ts";
import { API_CSP, HSTS_VALUE } from "./security-headers.ts";

let h: Harness;
let webDir: string;
let app: ReturnType<typeof createApp>;

beforeEach(async () => {
  h = await createHarness();
  webDir = mkdtempSync(join(tmpdir(), "postern-web-"));
  mkdirSync(join(webDir, "assets"));
  writeFileSync(join(webDir, "index.html"), "<!doctype html><title>Postern</title>");
  writeFileSync(join(webDir, "assets", "main.js"), "console.log(1)");
  app = createApp(h.services, webDir);
});
afterEach(async () => {
  rmSync(webDir, { recursive: true, force: true });
  await h.close();
});

const get = (url: string, init: RequestInit = {}, target: { request: typeof app.request } = app) =>
  target.request(url, { ...init, headers: { host: "postern.test", ...init.headers } }, socketEnv());

/** The headers every answer carries, whatever its status. */
function expectBaseHeaders(res: Response): void {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("same-origin");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).not.toContain("unsafe-eval");
}

describe("security headers (every answer)", () => {
  it("are on API answers, errors and 404s, with a policy that loads nothing", async () => {
    // An unexpected failure (500 from the one error mapper) must carry them too.
    h.services.saml.metadata = () => Promise.reject(new Error("boom"));
    const answers = [
      await get("http://postern.test/api/saml/metadata"), // 500
      await get("http://postern.test/api/system_status"),
      await get("http://postern.test/api/status"), // 401
      await get("http://postern.test/api/nope"), // 404
      await get("http://postern.test/api/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{not json",
      }), // 400
      await get("http://postern.test/nowhere", { method: "POST" }), // Hono's own 404
    ];
    expect(answers.map((r) => r.status)).toEqual([500, 200, 401, 404, 400, 404]);
    for (const res of answers) {
      expectBaseHeaders(res);
      expect(res.headers.get("content-security-policy")).toBe(API_CSP);
      expect(res.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("give web-app documents a policy without inline script or style, connecting to the discovery host", async () => {
    await setSetting(h.services.db, "PublicURL", "https://portal.example:8443");
    for (const path of ["/", "/home", "/index.html"]) {
      const res = await get(`http://postern.test${path}`);
      expect(res.status).toBe(200);
      expectBaseHeaders(res);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
      expect(csp).toMatch(/(^|; )style-src 'self'(;|$)/);
      expect(csp).toMatch(/(^|; )object-src 'none'(;|$)/);
      expect(csp).toMatch(/(^|; )connect-src 'self' https:\/\/portal\.example:\*(;|$)/);
    }
    const js = await get("http://postern.test/assets/main.js");
    expect(js.status).toBe(200);
    expectBaseHeaders(js);
  });

  it("send HSTS only over TLS", async () => {
    const tls = await get("https://postern.test/api/system_status");
    expect(tls.headers.get("strict-transport-security")).toBe(HSTS_VALUE);
    expectBaseHeaders(tls);
    const notFound = await get("https://postern.test/api/nope");
    expect(notFound.headers.get("strict-transport-security")).toBe(HSTS_VALUE);
    expect((await get("http://postern.test/")).headers.get("strict-transport-security")).toBeNull();
  });

  it("are on the IP-discovery listeners' answers", async () => {
    const discovery = createDiscoveryApp(h.services);
    for (const path of ["/api/ip", "/elsewhere"]) {
      const res = await get(`http://postern.test${path}`, {}, discovery);
      expectBaseHeaders(res);
      expect(res.headers.get("content-security-policy")).toBe(API_CSP);
    }
  });

  it("answer a path with a malformed %-escape 404, not 500", async () => {
    for (const path of ["/%zz", "/%E0%A4%A", "/assets/%", "/api/%zz", "/api/admin/users/%E0%A4%A"]) {
      const res = await get(`http://postern.test${path}`);
      expect(res.status, path).toBe(path.startsWith("/api/admin/") ? 401 : 404);
      expectBaseHeaders(res);
    }
  });
});

describe("the web apps' HTML templates", () => {
  it("have no inline script, style or event handler (the policy forbids them)", () => {
    for (const app of ["portal", "admin"]) {
      const html = readFileSync(fileURLToPath(new URL(`../../../web/src/${app}/index.html`, import.meta.url)), "utf8");
      expect(html).not.toMatch(/<style/i);
      expect(html).not.toMatch(/\sstyle=/i);
      expect(html).not.toMatch(/\son[a-z]+=/i);
      for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) expect(tag).toMatch(/\ssrc=/);
    }
  });
});

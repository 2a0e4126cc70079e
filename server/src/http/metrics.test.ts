/**
 * /metrics (issue #11 items 6, 11): who may read it (loopback without a proxy, or the bearer token),
 * what it counts (sign-ins by method and result, grant latency, grants by status, allowlist reads,
 * HTTP requests by route pattern), and that promtool accepts the exposition text.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiRequest, createHarness, seedLoop } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { createApp } from "../app.ts";

const promtool = spawnSync("promtool", ["--version"]).status === 0;
if (!promtool) console.warn("metrics: promtool check SKIPPED: promtool (Debian package prometheus) is not installed");

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it("answers loopback callers, refuses others and anything that came through a proxy", async () => {
    const local = await apiRequest(h, "GET", "/metrics", undefined, { from: "127.0.0.1" });
    expect(local.status).toBe(200);
    expect(local.headers.get("content-type")).toContain("text/plain");
    expect(String(local.body)).toContain("# TYPE postern_grants gauge");
    expect(String(local.body)).toContain("process_cpu_seconds_total");
    expect((await apiRequest(h, "GET", "/metrics", undefined, { from: "::1" })).status).toBe(200);
    expect((await apiRequest(h, "GET", "/metrics", undefined, { from: "203.0.113.5" })).status).toBe(403);
    const proxied = await apiRequest(h, "GET", "/metrics", undefined, {
      from: "127.0.0.1",
      headers: { "x-forwarded-for": "198.51.100.7" },
    });
    expect(proxied.status).toBe(403);
  });

  it("lets other hosts in with the bearer token only", async () => {
    const token = "metrics-token-0123456789";
    const app = createApp(h.services, "/nonexistent", [], token);
    const get = (headers: Record<string, string>) =>
      app.request(
        "http://postern.test/metrics",
        { headers },
        {
          incoming: { socket: { remoteAddress: "203.0.113.5", remotePort: 40000, remoteFamily: "IPv4" } },
        },
      );
    const none = await get({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await get({ authorization: "Bearer wrong-token-0123456789" })).status).toBe(401);
    const ok = await get({ authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("postern_agents_connected 0");
  });

  it("counts sign-ins by method and result, grants by status, grant latency and requests by route", async () => {
    const seeded = await seedLoop(h);
    h.channel.online.add(seeded.agentId);
    const bad = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "nope", KioskMode: false });
    expect(bad.status).toBe(401);
    const good = await apiRequest(h, "POST", "/api/login", {
      UserName: "alice",
      Password: "alice-password",
      KioskMode: false,
    });
    expect(good.status).toBe(200);
    const cookie = good.setCookie.split(";")[0] ?? "";
    const grant = await apiRequest(h, "POST", "/api/grant", { ACLID: seeded.aclId, IPs: [] }, { cookie });
    expect(grant.status).toBe(200);
    // The agent acknowledges the add 40 ms after the request.
    h.clock.advance(40);
    expect(h.channel.take().length).toBe(1);
    await h.services.engine.handleResults("edge", [{ key: seeded.aclId, ip: "203.0.113.5", op: "add", ok: true }]);

    const text = String((await apiRequest(h, "GET", "/metrics", undefined, { from: "127.0.0.1" })).body);
    expect(sample(text, 'postern_sign_ins_total{audience="user",method="password",result="failure"}')).toBe(1);
    expect(sample(text, 'postern_sign_ins_total{audience="user",method="password",result="success"}')).toBe(1);
    expect(sample(text, 'postern_grants{status="granted"}')).toBe(1);
    expect(sample(text, "postern_grant_latency_seconds_count")).toBe(1);
    expect(sample(text, 'postern_grant_latency_seconds_bucket{le="0.025"}')).toBe(0);
    // 40 ms on the test clock plus the real time the request took (TestClock runs with real time).
    expect(sample(text, "postern_grant_latency_seconds_sum")).toBeGreaterThanOrEqual(0.04);
    expect(sample(text, "postern_grant_latency_seconds_sum")).toBeLessThan(5);
    expect(sample(text, 'postern_grant_latency_seconds_bucket{le="+Inf"}')).toBe(1);
    expect(sample(text, 'postern_http_requests_total{method="POST",route="/api/login",status="401"}')).toBe(1);
    expect(sample(text, 'postern_http_requests_total{method="POST",route="/api/grant",status="200"}')).toBe(1);
  });

  it("counts allowlist reads by result", async () => {
    const refused = await apiRequest(h, "GET", "/api/v1/allowlists/00000000-0000-4000-8000-000000000001/nope.txt");
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const text = String((await apiRequest(h, "GET", "/metrics", undefined, { from: "127.0.0.1" })).body);
    expect(sample(text, 'postern_allowlist_reads_total{result="refused"}')).toBe(1);
  });

  it.skipIf(!promtool)("passes promtool check metrics", async () => {
    await seedLoop(h);
    await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "nope", KioskMode: false });
    const text = String((await apiRequest(h, "GET", "/metrics", undefined, { from: "127.0.0.1" })).body);
    const out = execFileSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(out).toBe("");
  });
});

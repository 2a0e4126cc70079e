/**
 * The HAProxy deny page of docs/admin-guide.md "A deny page that brings users back" (issue #14 items 3
 * and 7) in a real HAProxy 2.6: a request from an address without a grant gets the 403 HTML page whose
 * link opens the portal with `?referrer=` set to the requested URL (host, port, path and query, safely
 * encoded); once the address is in the Knoc's ACL the site answers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { execa } from "execa";
import { startDenyPageHaproxy } from "../support/deny-page.ts";
import type { DenyPageHaproxy } from "../support/deny-page.ts";

const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;
if (!hasHaproxy) console.warn("HAProxy deny page: SKIPPED: haproxy is not installed");

const PORTAL = "http://portal.test:8443";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET `path` from the frontend with the given Host header (bounded: 3 s). */
function get(port: number, path: string, host: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host }, agent: false, timeout: 3000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

/** The href of the page's single link, HTML entities as they stand. */
function linkOf(body: string): string {
  const hrefs = [...body.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
  expect(hrefs).toHaveLength(1);
  return hrefs[0]!;
}

describe.skipIf(!hasHaproxy)("the HAProxy deny page from the admin guide", () => {
  let haproxy: DenyPageHaproxy;
  beforeAll(async () => {
    haproxy = await startDenyPageHaproxy(PORTAL);
  });
  afterAll(async () => {
    await haproxy?.stop();
  });

  it("answers 403 with an HTML page linking to the portal with the requested URL as referrer", async () => {
    const host = `wiki.example.com:${haproxy.frontendPort}`;
    const answer = await get(haproxy.frontendPort, "/docs/a%20page?tab=2&q=x", host);
    expect(answer.status).toBe(403);
    expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.body).toContain("<title>Sign in for access</title>");
    const link = new URL(linkOf(answer.body));
    expect(link.origin).toBe(PORTAL);
    expect(link.pathname).toBe("/");
    expect([...link.searchParams.keys()]).toEqual(["referrer"]);
    expect(link.searchParams.get("referrer")).toBe(`http://${host}/docs/a%20page?tab=2&q=x`);
  });

  it("encodes whatever the request carries: nothing breaks out of the link", async () => {
    const answer = await get(haproxy.frontendPort, `/x?a="><script>alert(1)</script>`, `evil"host<b>`);
    expect(answer.status).toBe(403);
    expect(answer.body).not.toContain("<script>");
    expect(answer.body).not.toContain("<b>");
    const link = new URL(linkOf(answer.body));
    expect(link.origin).toBe(PORTAL);
    expect(link.searchParams.get("referrer")).toBe(`http://evil"host<b>/x?a="><script>alert(1)</script>`);
  });

  it("lets a granted address through to the site", async () => {
    const added = await haproxy.command(`add acl #${haproxy.aclId} 127.0.0.1`);
    expect(added.trim()).toBe("");
    const answer = await get(haproxy.frontendPort, "/docs/page", "wiki.example.com");
    expect(answer.status).toBe(200);
    expect(answer.body).toBe("ok");
    await haproxy.command(`del acl #${haproxy.aclId} 127.0.0.1`);
    expect((await get(haproxy.frontendPort, "/docs/page", "wiki.example.com")).status).toBe(403);
  });
});

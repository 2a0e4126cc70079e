import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { Server, ServerResponse } from "node:http";
import { createLogger } from "../../logger.ts";
import { IdpMetadataCache, fetchMetadata } from "./idp-metadata.ts";
import type { FetchFn } from "./idp-metadata.ts";
import { SamlError } from "./errors.ts";

const METADATA = '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.test"/>';
let server: Server;
let base = "";
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/ok") res.writeHead(200, { "content-type": "application/xml" }).end(METADATA);
    else if (req.url === "/big")
      res.writeHead(200, { "content-length": String(2 * 1024 * 1024) }).end("x".repeat(2 * 1024 * 1024));
    else if (req.url === "/big-chunked") {
      res.writeHead(200, { "content-type": "application/xml" });
      for (let i = 0; i < 9; i++) res.write("y".repeat(128 * 1024));
      res.end();
    } else if (req.url === "/redirect") res.writeHead(302, { location: "/ok" }).end();
    else if (req.url === "/hang") hanging.push(res);
    else res.writeHead(500).end("broken");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("fetchMetadata", () => {
  it("fetches a document, following redirects", async () => {
    expect(await fetchMetadata(`${base}/ok`)).toBe(METADATA);
    expect(await fetchMetadata(`${base}/redirect`)).toBe(METADATA);
  });

  it("refuses an HTTP error, a document over 1 MiB (declared or streamed) and other schemes", async () => {
    await expect(fetchMetadata(`${base}/missing`)).rejects.toThrow("metadata URL answered HTTP 500");
    await expect(fetchMetadata(`${base}/big`)).rejects.toThrow("metadata larger than 1 MiB");
    await expect(fetchMetadata(`${base}/big-chunked`)).rejects.toThrow("metadata larger than 1 MiB");
    await expect(fetchMetadata("file:///etc/passwd")).rejects.toThrow("metadata URL must be http or https");
  });

  it("gives up after the timeout", async () => {
    const started = Date.now();
    await expect(fetchMetadata(`${base}/hang`, { timeoutMs: 200 })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe("IdpMetadataCache", () => {
  const log = createLogger("silent");

  /** A cache over a counting fake fetch and a clock the test moves. */
  function cache(answer: () => Response | Promise<Response>) {
    const clock = { now: 1_000_000 };
    const calls: string[] = [];
    const fetch: FetchFn = async (url) => {
      calls.push(url);
      return answer();
    };
    return {
      clock,
      calls,
      cache: new IdpMetadataCache({ now: () => clock.now, log, fetch, ttlMs: 60_000, failureTtlMs: 10_000 }),
    };
  }

  it("prefers the uploaded file and needs a file or a URL", async () => {
    const { cache: c, calls } = cache(() => new Response(METADATA));
    expect(await c.get("<file/>", "http://idp.test/md")).toBe("<file/>");
    expect(calls).toEqual([]);
    await expect(c.get("", "")).rejects.toBeInstanceOf(SamlError);
    await expect(c.get(" ", " ")).rejects.toMatchObject({
      key: "SAML not configured",
      reason: "no IdP metadata (file or URL)",
    });
  });

  it("serves a fetched copy for the TTL, shares one fetch between concurrent reads, then fetches again", async () => {
    const { cache: c, calls, clock } = cache(() => new Response(METADATA));
    const [a, b] = await Promise.all([c.get("", "http://idp.test/md"), c.get("", "http://idp.test/md")]);
    expect([a, b]).toEqual([METADATA, METADATA]);
    expect(calls).toHaveLength(1);
    clock.now += 59_000;
    await c.get("", "http://idp.test/md");
    expect(calls).toHaveLength(1);
    clock.now += 2_000;
    await c.get("", "http://idp.test/md");
    expect(calls).toHaveLength(2);
  });

  it("keeps the last good copy when a refresh fails, and remembers the failure for a while", async () => {
    let fail = false;
    const {
      cache: c,
      calls,
      clock,
    } = cache(() => (fail ? new Response("no", { status: 503 }) : new Response(METADATA)));
    await c.get("", "http://idp.test/md");
    fail = true;
    clock.now += 61_000;
    expect(await c.get("", "http://idp.test/md")).toBe(METADATA);
    expect(calls).toHaveLength(2);
    clock.now += 5_000;
    expect(await c.get("", "http://idp.test/md")).toBe(METADATA);
    expect(calls).toHaveLength(2);
    clock.now += 6_000;
    fail = false;
    expect(await c.get("", "http://idp.test/md")).toBe(METADATA);
    expect(calls).toHaveLength(3);
  });

  it("is not configured while a URL never fetched fails, and does not fetch again within the failure TTL", async () => {
    const { cache: c, calls, clock } = cache(() => new Response("no", { status: 404 }));
    await expect(c.get("", "http://idp.test/md")).rejects.toMatchObject({
      key: "SAML not configured",
      reason: "IdP metadata URL unavailable: metadata URL answered HTTP 404",
    });
    await expect(c.get("", "http://idp.test/md")).rejects.toBeInstanceOf(SamlError);
    expect(calls).toHaveLength(1);
    clock.now += 11_000;
    await expect(c.get("", "http://idp.test/md")).rejects.toBeInstanceOf(SamlError);
    expect(calls).toHaveLength(2);
  });

  it("drops the copy of a URL no longer configured", async () => {
    const { cache: c, calls } = cache(() => new Response(METADATA));
    await c.get("", "http://idp.test/a");
    await c.get("", "http://idp.test/b");
    await c.get("", "http://idp.test/a");
    expect(calls).toEqual(["http://idp.test/a", "http://idp.test/b", "http://idp.test/a"]);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "./context.ts";
import { readJsBundleHash, staticWeb } from "./static-web.ts";
import { createHarness } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";

describe("staticWeb (issue #9 item 17: precompressed assets; admin-console §2: /admin pages)", () => {
  let dir: string;
  const js = "export const answer = 42;\n".repeat(50);
  let app: Hono<AppEnv>;
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness();
    dir = mkdtempSync(join(tmpdir(), "postern-static-"));
    mkdirSync(join(dir, "assets"));
    writeFileSync(join(dir, "index.html"), "<title>portal</title>");
    writeFileSync(join(dir, "admin.html"), "<title>admin</title>");
    writeFileSync(join(dir, "admin.html.gz"), gzipSync("<title>admin</title>"));
    writeFileSync(join(dir, "build.json"), JSON.stringify({ JsBundleHash: "abc" }));
    writeFileSync(join(dir, "assets/main-1.js"), js);
    writeFileSync(join(dir, "assets/main-1.js.br"), brotliCompressSync(js));
    writeFileSync(join(dir, "assets/main-1.js.gz"), gzipSync(js));
    // The pages' Content-Security-Policy reads the IP-discovery settings through the services.
    app = new Hono<AppEnv>()
      .use(async (c, next) => {
        c.set("services", h.services);
        await next();
      })
      .use(staticWeb(dir));
    app.post("*", (c) => c.text("next", 418));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  const get = (path: string, acceptEncoding?: string) =>
    app.request(path, { headers: acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding } });

  it("sends the brotli copy when the browser accepts br, as Chromium asks", async () => {
    const res = await get("/assets/main-1.js", "gzip, deflate, br, zstd");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("vary")).toContain("Accept-Encoding");
    expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(brotliCompressSync(js))).toBe(true);
    expect(Number(res.headers.get("content-length"))).toBe(body.byteLength);
    expect(body.byteLength).toBeLessThan(js.length / 5);
  });

  it("sends the gzip copy for gzip only, and the file itself without Accept-Encoding", async () => {
    const gz = await get("/assets/main-1.js", "gzip");
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(Buffer.from(await gz.arrayBuffer()).equals(gzipSync(js))).toBe(true);
    const plain = await get("/assets/main-1.js");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(js);
  });

  it("answers /admin and /admin/* with the admin console, other paths with the portal, never cached", async () => {
    for (const path of ["/admin", "/admin/home", "/admin/knocs/new/linux"]) {
      const res = await get(path);
      expect(await res.text(), path).toBe("<title>admin</title>");
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("cache-control")).toBe("no-cache");
    }
    const compressed = await get("/admin/agents", "gzip");
    expect(compressed.headers.get("content-encoding")).toBe("gzip");
    for (const path of ["/", "/home/new", "/administrator", "/otp/verify"]) {
      const res = await get(path);
      expect(await res.text(), path).toBe("<title>portal</title>");
    }
  });

  it("answers HEAD without a body and leaves other methods to the next handler", async () => {
    const head = await app.request("/assets/main-1.js", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(js.length));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
    expect((await app.request("/assets/main-1.js", { method: "POST" })).status).toBe(418);
  });

  it("reads the bundle hash, and says so when the app is not built", async () => {
    expect(readJsBundleHash(dir)).toBe("abc");
    const empty = mkdtempSync(join(tmpdir(), "postern-static-empty-"));
    try {
      expect(readJsBundleHash(empty)).toBe("");
      const res = await new Hono<AppEnv>().use(staticWeb(empty)).request("/admin");
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("not built");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import type { ServerType } from "@hono/node-server";
import { bodyLimit } from "./body-limit.ts";

/** Sends `body` to `port` over a real socket, with a Content-Length or chunked (two writes); resolves status and text. */
function send(port: number, body: string, framing: "length" | "chunked"): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/api/echo",
        agent: false,
        timeout: 10_000,
        headers:
          framing === "length" ? { "content-length": Buffer.byteLength(body) } : { "transfer-encoding": "chunked" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    req.end(body.slice(half));
  });
}

describe("API body limit (real node:http server through @hono/node-server)", () => {
  const LIMIT = 64;
  let server: ServerType;
  let port = 0;
  /** Per request the handler saw: whether a whole fetch Request had been built before it read the body. */
  const built: boolean[] = [];
  /** The adapter keeps the fetch Request it built under a symbol described "requestCache". */
  const fetchRequestBuilt = (raw: Request): boolean =>
    Object.getOwnPropertySymbols(raw).some(
      (s) => s.description === "requestCache" && (raw as unknown as Record<symbol, unknown>)[s] !== undefined,
    );

  beforeAll(async () => {
    const app = new Hono();
    app.use(
      "/api/*",
      bodyLimit(LIMIT, (c) => c.json({ Err: "too large" }, 413)),
    );
    app.post("/api/echo", async (c) => {
      built.push(fetchRequestBuilt(c.req.raw));
      const body = (await c.req.json()) as { s: string };
      return c.json({ length: body.s.length });
    });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  it("passes a body within the limit, declared or chunked, whole", async () => {
    const body = JSON.stringify({ s: "x".repeat(LIMIT - 8) });
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    built.length = 0;
    expect(await send(port, body, "length")).toEqual({ status: 200, text: JSON.stringify({ length: LIMIT - 8 }) });
    expect(await send(port, body, "chunked")).toEqual({ status: 200, text: JSON.stringify({ length: LIMIT - 8 }) });
    // The declared body reached the handler on the adapter's direct path (hono's bodyLimit builds the fetch Request).
    expect(built[0]).toBe(false);
  });

  it("refuses a body one byte over the limit, declared or chunked, before the handler", async () => {
    const body = JSON.stringify({ s: "x".repeat(LIMIT - 7) });
    const calls = built.length;
    expect(await send(port, body, "length")).toEqual({ status: 413, text: JSON.stringify({ Err: "too large" }) });
    expect(await send(port, body, "chunked")).toEqual({ status: 413, text: JSON.stringify({ Err: "too large" }) });
    expect(built.length).toBe(calls);
  });
});

/**
 * A loopback HTTP site standing in for a protected web app in browser tests: it answers every GET with
 * a small HTML page (title and heading "Protected app") and records each request's path and headers,
 * so a test sees where the browser landed and what it told the site (e.g. its Referer).
 */
import { createServer } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A running recording site on 127.0.0.1. */
export interface RecordingSite {
  /** `http://127.0.0.1:PORT` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Every request so far: path with query, and headers. */
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Closes the listener (open keep-alive connections are closed too). */
  close(): Promise<void>;
}

/** Starts a recording site on a free loopback port. */
export async function startRecordingSite(): Promise<RecordingSite> {
  const requests: RecordingSite["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Protected app</title><h1>Protected app</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

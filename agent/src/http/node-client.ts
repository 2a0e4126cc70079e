/**
 * The real `HttpClient`: node:http and node:https, one request per call, bounded by a timeout.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import tls from "node:tls";
import type { HttpClient, HttpRequest, HttpResponse } from "./client.ts";
import { HttpTransportError } from "./client.ts";

/** Largest response body read, in bytes (a vendor answer larger than this is cut and fails to parse). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Sends requests with node:http(s). Default timeout 30,000 ms. */
export class NodeHttpClient implements HttpClient {
  readonly #defaultTimeoutMs: number;
  readonly #ca: string | undefined;

  /**
   * `defaultTimeoutMs`: MILLISECONDS applied when a request gives none. `ca`: extra CA certificates
   * (PEM) trusted for every https request that names none of its own, beside the system's (a private
   * CA in front of a vendor API; tests: the CA of a local HTTPS fake).
   */
  constructor(options: { defaultTimeoutMs?: number; ca?: string } = {}) {
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? 30_000;
    this.#ca = options.ca;
  }

  /** Sends `req`; see `HttpClient`. @throws HttpTransportError when no response arrives in time. */
  request(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    const timeoutMs = req.timeoutMs ?? this.#defaultTimeoutMs;
    const ca = req.ca ?? this.#ca;
    const send = url.protocol === "https:" ? httpsRequest : url.protocol === "http:" ? httpRequest : null;
    if (!send) return Promise.reject(new HttpTransportError(`unsupported URL scheme ${url.protocol}`));
    return new Promise<HttpResponse>((resolve, reject) => {
      const body = req.body === undefined ? undefined : Buffer.from(req.body, "utf8");
      const r = send(
        url,
        {
          method: req.method,
          headers: { ...(body ? { "content-length": String(body.length) } : {}), ...req.headers },
          ...(url.protocol === "https:"
            ? { rejectUnauthorized: !req.insecure, ...(ca ? { ca: [...tls.rootCertificates, ca] } : {}) }
            : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size <= MAX_BODY_BYTES) chunks.push(chunk);
          });
          res.on("end", () => {
            clearTimeout(timer);
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
            resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
          });
          res.on("error", (e) => {
            clearTimeout(timer);
            reject(new HttpTransportError(`${req.method} ${url.origin}: ${e.message}`, undefined, e));
          });
        },
      );
      const timer = setTimeout(() => {
        r.destroy(new Error(`timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      r.on("error", (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(new HttpTransportError(`${req.method} ${url.origin}${url.pathname}: ${e.message}`, e.code, e));
      });
      r.end(body);
    });
  }
}

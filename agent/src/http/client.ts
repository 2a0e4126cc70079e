/**
 * The HTTP boundary of the agent (issue #10 item 3), beside the process runner: drivers that talk to
 * webhooks and vendor APIs make every request through an `HttpClient`, so unit tests swap in
 * `FakeHttpClient` and the logic under test runs for real.
 */

/** One request. `timeoutMs` is MILLISECONDS for the whole exchange. */
export interface HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs?: number;
  /** Skip TLS certificate verification (a backend's `Insecure` switch). */
  readonly insecure?: boolean;
  /** Extra CA certificates (PEM) trusted for this request. */
  readonly ca?: string;
}

/** One response: status, lower-cased headers, body text. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Thrown when no response arrived (refused, reset, timed out, TLS failure). */
export class HttpTransportError extends Error {
  /** The system error code, when known (ECONNREFUSED, ETIMEDOUT, ...). */
  readonly code: string | undefined;
  constructor(message: string, code?: string, cause?: unknown) {
    super(message, { cause });
    this.name = "HttpTransportError";
    this.code = code;
  }
}

/** Makes HTTP requests. Any status is a response; only a missing response throws `HttpTransportError`. */
export interface HttpClient {
  request(req: HttpRequest): Promise<HttpResponse>;
}

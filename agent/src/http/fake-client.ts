/**
 * A scripted `HttpClient` for unit tests: records every request and answers from handlers matched in
 * registration order. It fakes the HTTP boundary only; the logic under test runs for real.
 */
import type { HttpClient, HttpRequest, HttpResponse } from "./client.ts";

/** What a handler answers: a response (missing fields: 200, no headers, empty body) or an Error to throw. */
export type FakeHttpAnswer = Partial<HttpResponse> | Error;

/** A fake client. An unmatched request throws, so an unexpected call fails the test. */
export class FakeHttpClient implements HttpClient {
  /** Every request so far, in order. */
  readonly requests: HttpRequest[] = [];
  readonly #handlers: {
    match: (r: HttpRequest) => boolean;
    answer: (r: HttpRequest) => FakeHttpAnswer | Promise<FakeHttpAnswer>;
  }[] = [];

  /**
   * Answers requests selected by `match` (a `METHOD url-prefix` string, a RegExp on `METHOD url`, or
   * a predicate) with `answer` (fixed or computed). Returns `this`.
   */
  on(
    match: string | RegExp | ((r: HttpRequest) => boolean),
    answer: FakeHttpAnswer | ((r: HttpRequest) => FakeHttpAnswer | Promise<FakeHttpAnswer>),
  ): this {
    const line = (r: HttpRequest): string => `${r.method} ${r.url}`;
    const m =
      typeof match === "string"
        ? (r: HttpRequest) => line(r).startsWith(match)
        : match instanceof RegExp
          ? (r: HttpRequest) => match.test(line(r))
          : match;
    this.#handlers.push({ match: m, answer: typeof answer === "function" ? answer : () => answer });
    return this;
  }

  /** Records and answers `req`. */
  async request(req: HttpRequest): Promise<HttpResponse> {
    this.requests.push(req);
    const h = this.#handlers.find((x) => x.match(req));
    if (!h) throw new Error(`FakeHttpClient: no answer for ${req.method} ${req.url}`);
    const a = await h.answer(req);
    if (a instanceof Error) throw a;
    return { status: a.status ?? 200, headers: a.headers ?? {}, body: a.body ?? "" };
  }
}

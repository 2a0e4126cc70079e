/**
 * HTTP client for the portal API (docs/reference.md user-portal §7): base path `/api`, cookies included, JSON bodies,
 * errors read as `{Err, Extra}` (docs/reference.md user-portal §8).
 */
import type { ErrorBody, Errors } from "@postern/shared";
import { isErrorBody } from "../lib/error-text.ts";
import { noteServerDate } from "./clock.ts";

/** The 401 key that sends the user to Login (typed against the error catalogue). */
const INVALID_SESSION: (typeof Errors)["invalidSession"]["err"] = "err.invalidSession";

/** Base path of every call (docs/reference.md user-portal §7). */
export const API_BASE = "/api";

/** A failed call: HTTP status (0 when the server could not be reached) and the error body if any. */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | undefined;

  constructor(status: number, body: ErrorBody | undefined, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
  }

  /** True for 401 with `err.invalidSession` (docs/reference.md user-portal §4: redirect to Login). */
  get isInvalidSession(): boolean {
    return this.status === 401 && this.body?.Err === INVALID_SESSION;
  }
}

type InvalidSessionHandler = (error: ApiError) => void;
let invalidSessionHandler: InvalidSessionHandler | undefined;

/**
 * Registers what happens when any call answers 401 `err.invalidSession` (main.tsx sends the user
 * to Login). Calls made with `{ redirectOnInvalidSession: false }` skip it.
 */
export function setInvalidSessionHandler(handler: InvalidSessionHandler | undefined): void {
  invalidSessionHandler = handler;
}

/** Options of one call. */
export interface RequestOptions {
  /** JSON request body (sent with `Content-Type: application/json`). */
  body?: unknown;
  signal?: AbortSignal;
  /** Default true: a 401 `err.invalidSession` runs the registered handler before rejecting. */
  redirectOnInvalidSession?: boolean;
  /** The Accept header (default `application/json`). */
  accept?: string;
  /** Called with the response before its body is read (e.g. to read paging headers). */
  onResponse?: (response: Response) => void;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Calls `METHOD /api{path}` and resolves with the parsed JSON body (undefined when empty).
 * Rejects with ApiError on a non-2xx answer (body `{Err, Extra}` when the server sent one) or when
 * the server cannot be reached (status 0, message of the network error).
 */
export async function apiRequest<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: options.accept ?? "application/json" };
  const init: RequestInit = {
    method,
    credentials: "include",
    headers,
    signal: options.signal ?? null,
    cache: "no-store",
  };
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(`${API_BASE}${path}`, init);
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError(0, undefined, cause instanceof Error ? cause.message : String(cause));
  }
  noteServerDate(response.headers.get("Date"));
  options.onResponse?.(response);
  const data = await readJson(response);
  if (!response.ok) {
    const body = isErrorBody(data) ? data : undefined;
    const error = new ApiError(response.status, body, body?.Err ?? "");
    if (error.isInvalidSession && options.redirectOnInvalidSession !== false) invalidSessionHandler?.(error);
    throw error;
  }
  return data as T;
}

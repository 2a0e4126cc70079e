/**
 * `postern client --server URL --key-stdin [--user NAME] [--once] [--interval 30] [--keep-session]`:
 * the non-interactive client of an API-key user (docs/reference.md user-portal §1 "API-key users are
 * non-interactive"; docs/reference.md admin-console §7 "API-key users are shown an endpoint
 * {scheme}://{host}/api/v1/user_sessions").
 *
 * - Signs in with the key (read from standard input, never from the command line):
 *   POST /api/v1/user_sessions with `Authorization: Bearer <key>` answers the session's cookie
 *   token; the server grants the user's automatic ACLs to the address the client comes from.
 * - Every `--interval` seconds (default 30, as the portal re-validates) reads GET /api/status with
 *   `Cookie: postern_session=<token>`: the server follows the caller's address (a changed address
 *   moves the grants), and one status line with the state of each ACL goes to stderr.
 * - Signs in again when the session has ended (401: expired, ended by an admin, SessionLimit), and
 *   renews it ahead of its end (a new session, then the old one is ended), so access never lapses.
 * - SIGINT / SIGTERM stop it cleanly: the session is ended (POST /api/logout, its grants revoked)
 *   unless `--keep-session`; exit code 0.
 * - `--once`: sign in, print the session status (SessionStatus) as JSON on stdout, exit 0; the
 *   session stays until it ends (e.g. run from cron).
 * - Network failures, 429 and 5xx are retried up to 5 times with exponential backoff (1 s doubling,
 *   at most 30 s, or the server's Retry-After); a refused key or user (400/401/403 at sign-in) is
 *   fatal: exit code 1 with the server's Err, so a revoked key does not hammer the audit log.
 */
import type { Command } from "commander";
import { setTimeout as sleep } from "node:timers/promises";
import {
  API_KEY_USER_SESSIONS_PATH,
  ApiKeyUserSessionSchema,
  ErrorBodySchema,
  GrantStatus,
  Limits,
  SessionStatusSchema,
} from "@postern/shared";
import type { ApiKeyUserSession, SessionStatus } from "@postern/shared";
import { readStdin } from "../context.ts";

/** Seconds between status checks when --interval is not given (docs/reference.md user-portal §9: every 30 s). */
export const DEFAULT_INTERVAL_SECONDS = Limits.ipRevalidationSeconds;
/** Largest --interval, in seconds (one hour). */
export const MAX_INTERVAL_SECONDS = 3600;
/** Each HTTP request is abandoned after this many milliseconds. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** Attempts of one operation (sign-in, status read) before it fails. */
export const MAX_ATTEMPTS = 5;
/** First backoff between attempts, in milliseconds; it doubles per attempt. */
export const BACKOFF_BASE_MS = 1000;
/** Longest backoff (and longest Retry-After honoured), in milliseconds. */
export const BACKOFF_MAX_MS = 30_000;
/** Name of the user session cookie (server/src/http/context.ts USER_COOKIE). */
export const SESSION_COOKIE = "postern_session";
/**
 * The `Cookie` header carrying the session token: under the plain name and the `__Host-` one, since
 * a server on https (or with an https PublicURL) reads only `__Host-postern_session`.
 */
export function sessionCookieHeader(token: string): string {
  return `${SESSION_COOKIE}=${token}; __Host-${SESSION_COOKIE}=${token}`;
}

/** A refusal that retrying cannot fix (refused key or user, bad request): the client stops. */
export class FatalClientError extends Error {
  override name = "FatalClientError";
}

/** A failure worth retrying: the server was unreachable, busy (429) or failing (5xx). */
export class RetryableError extends Error {
  override name = "RetryableError";
  /** The server's Retry-After, in milliseconds, when it sent one. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs?: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** What `runClient` needs. `intervalSeconds` in seconds; `signal` stops it; `out`/`err` write lines. */
export interface ClientOptions {
  /** The server's base URL (http or https), without /api. */
  server: string;
  /** The API key (`pst_…`). */
  key: string;
  /** The user to act as when the key signs in several (the body's UserName). */
  userName?: string;
  once: boolean;
  intervalSeconds: number;
  keepSession: boolean;
  signal: AbortSignal;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Wait before attempt `attempt + 1`, in ms (default `backoffMs`; tests shorten it). */
  backoff?: (attempt: number) => number;
}

/** Readable names of the grant status codes (docs/reference.md user-portal §4). */
const STATUS_NAMES = new Map<number, string>(Object.entries(GrantStatus).map(([name, code]) => [code, name]));

/**
 * One status line: time, user, address, session end, then each ACL's state (`Description: Name`,
 * with the error when there is one). Example: `status 2030-01-01T00:00:00.000Z: Robot at
 * 198.51.100.20, session ends 2030-01-01T08:00:00.000Z; Intranet: Granted`.
 */
export function statusLine(status: SessionStatus, now: Date = new Date()): string {
  const acls = status.ACLs.map(
    (a) => `${a.Description}: ${STATUS_NAMES.get(a.Status) ?? `status ${a.Status}`}${a.Error ? ` (${a.Error})` : ""}`,
  );
  const licence = status.UserLicensed ? "" : " (not licensed)";
  return `status ${now.toISOString()}: ${status.Name}${licence} at ${status.CurrentAddress}, session ends ${status.Ends}; ${acls.length > 0 ? acls.join(", ") : "no ACLs"}`;
}

/**
 * Checks and normalises --server: an http or https URL without query or fragment; the trailing
 * slash is dropped. Throws a readable Error otherwise.
 */
export function parseServerUrl(raw: string): string {
  const url = URL.parse(raw.trim());
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new Error(`--server must be an http or https URL, got "${raw}"`);
  if (url.search || url.hash || url.username || url.password)
    throw new Error("--server must not carry credentials, a query or a fragment");
  return url.href.replace(/\/+$/, "");
}

/** Parses --interval: whole seconds, 1 to MAX_INTERVAL_SECONDS. */
export function parseInterval(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > MAX_INTERVAL_SECONDS)
    throw new Error(`--interval must be whole seconds from 1 to ${MAX_INTERVAL_SECONDS}, got "${raw}"`);
  return n;
}

/** Backoff before attempt `attempt + 1` (attempt ≥ 1), in ms: 1 s doubling, capped, ±20 % jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

interface Reply {
  status: number;
  body: unknown;
  retryAfterMs: number | undefined;
}

/** The server's `Err: Extra` of an error reply, or the HTTP status. */
function errText(r: Reply): string {
  const e = ErrorBodySchema.safeParse(r.body);
  return e.success ? `${e.data.Err}${e.data.Extra ? `: ${e.data.Extra}` : ""}` : `HTTP ${r.status}`;
}

/** The error for an unexpected reply: retryable for 429 and 5xx, fatal otherwise. */
function failure(what: string, r: Reply): Error {
  const text = `${what} refused (${r.status} ${errText(r)})`;
  return r.status === 429 || r.status >= 500 ? new RetryableError(text, r.retryAfterMs) : new FatalClientError(text);
}

/** One HTTP exchange with the server; bounded by REQUEST_TIMEOUT_MS and `signal`. Redirects are refused. */
async function send(
  o: Pick<ClientOptions, "server">,
  signal: AbortSignal,
  method: string,
  path: string,
  opts: { bearer?: string; cookie?: string; body?: unknown } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (opts.bearer !== undefined) headers["authorization"] = `Bearer ${opts.bearer}`;
  if (opts.cookie !== undefined) headers["cookie"] = sessionCookieHeader(opts.cookie);
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`${o.server}${path}`, {
      method,
      headers,
      redirect: "error",
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new RetryableError(`cannot reach ${o.server}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    // not JSON: keep the text
  }
  const retryAfter = Number(res.headers.get("retry-after"));
  return {
    status: res.status,
    body,
    retryAfterMs:
      Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, BACKOFF_MAX_MS) : undefined,
  };
}

/**
 * Runs `f` up to MAX_ATTEMPTS times while it throws RetryableError, waiting the server's
 * Retry-After or `o.backoff` (default `backoffMs`) between attempts; a stop (`o.signal`) ends the
 * wait with an AbortError. Other errors are thrown at once.
 */
export async function withRetry<T>(
  o: Pick<ClientOptions, "signal" | "err" | "backoff">,
  what: string,
  f: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await f();
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      if (!(err instanceof RetryableError) || attempt >= MAX_ATTEMPTS) throw err;
      const wait = err.retryAfterMs ?? (o.backoff ?? backoffMs)(attempt);
      o.err(
        `${what}: ${err.message}; retrying in ${(wait / 1000).toFixed(1)} s (attempt ${attempt + 1} of ${MAX_ATTEMPTS})`,
      );
      await sleep(wait, undefined, { signal: o.signal });
    }
  }
}

/** POST /api/v1/user_sessions: a new session of the key's user. */
async function signIn(o: ClientOptions): Promise<ApiKeyUserSession> {
  const r = await send(o, o.signal, "POST", API_KEY_USER_SESSIONS_PATH, {
    bearer: o.key,
    ...(o.userName !== undefined ? { body: { UserName: o.userName } } : {}),
  });
  if (r.status !== 201) throw failure("sign-in", r);
  const parsed = ApiKeyUserSessionSchema.safeParse(r.body);
  if (!parsed.success)
    throw new FatalClientError(`sign-in: unexpected answer from ${o.server} (is it a Postern server?)`);
  return parsed.data;
}

/** GET /api/status with the session cookie; null when the session is no longer usable (401). */
async function readStatus(o: ClientOptions, token: string): Promise<SessionStatus | null> {
  const r = await send(o, o.signal, "GET", "/api/status", { cookie: token });
  if (r.status === 401) return null;
  if (r.status !== 200) throw failure("status", r);
  const parsed = SessionStatusSchema.safeParse(r.body);
  if (!parsed.success) throw new RetryableError("status: unexpected answer");
  return parsed.data;
}

/** Best effort, one attempt of at most REQUEST_TIMEOUT_MS (also after a stop): ends the session. */
async function signOut(o: ClientOptions, session: ApiKeyUserSession): Promise<void> {
  try {
    const r = await send(o, new AbortController().signal, "POST", "/api/logout", { cookie: session.Token });
    o.err(
      r.status === 204 || r.status === 401
        ? `signed out: session ${session.ID} ended`
        : `sign-out refused (${r.status} ${errText(r)})`,
    );
  } catch (err) {
    o.err(`sign-out failed: ${(err as Error).message}`);
  }
}

/** Best effort: ends a session replaced by a renewal (DELETE /api/v1/user_sessions/{id}). */
async function endReplaced(o: ClientOptions, session: ApiKeyUserSession): Promise<void> {
  try {
    const query = o.userName !== undefined ? `?UserName=${encodeURIComponent(o.userName)}` : "";
    await send(o, o.signal, "DELETE", `${API_KEY_USER_SESSIONS_PATH}/${session.ID}${query}`, { bearer: o.key });
  } catch {
    // it ends by itself shortly
  }
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && err.name === "AbortError";
}

/**
 * The client: signs in, then (unless `once`) checks every `intervalSeconds` until `signal` aborts,
 * as described at the top of this file. Resolves on a clean stop; rejects with FatalClientError on
 * a refusal, or with the last error when the first sign-in fails after its retries.
 */
export async function runClient(o: ClientOptions): Promise<void> {
  const signedIn = async (why: string): Promise<ApiKeyUserSession> => {
    const s = await withRetry(o, "sign-in", () => signIn(o));
    o.err(`${why} as ${s.Status.Name}: session ${s.ID} ends ${s.Ends}`);
    return s;
  };
  let session: ApiKeyUserSession;
  try {
    session = await signedIn("signed in");
  } catch (err) {
    if (isAbort(err)) return;
    throw err;
  }
  if (o.once) {
    o.out(JSON.stringify(session.Status, null, 2));
    return;
  }
  o.err(statusLine(session.Status));
  const intervalMs = o.intervalSeconds * 1000;
  try {
    for (;;) {
      await sleep(intervalMs, undefined, { signal: o.signal });
      try {
        // Renew ahead of the end: the next check could come too late.
        if (Date.parse(session.Ends) - Date.now() <= 2 * intervalMs) {
          const old = session;
          session = await signedIn("renewed");
          await endReplaced(o, old);
        }
        const status = await withRetry(o, "status", () => readStatus(o, session.Token));
        if (status === null) {
          o.err(`session ${session.ID} has ended; signing in again`);
          session = await signedIn("signed in again");
          o.err(statusLine(session.Status));
        } else {
          o.err(statusLine(status));
        }
      } catch (err) {
        if (isAbort(err) || err instanceof FatalClientError) throw err;
        o.err(`${(err as Error).message}; next try in ${o.intervalSeconds} s`);
      }
    }
  } catch (err) {
    if (!isAbort(err)) throw err;
  }
  if (!o.keepSession) await signOut(o, session);
}

/** Registers `postern client`. */
export function registerClient(program: Command): void {
  program
    .command("client")
    .description(
      "keep an API-key user signed in from this machine (POST /api/v1/user_sessions, then GET /api/status every --interval seconds)",
    )
    .requiredOption("--server <url>", "the Postern server's URL, e.g. https://postern.example.com")
    .requiredOption("--key-stdin", "read the API key from standard input")
    .option("--user <username>", "the user to act as, when the key signs in several users")
    .option("--once", "sign in, print the status as JSON on stdout and exit (the session stays until it ends)")
    .option("--interval <seconds>", "seconds between status checks (1-3600)", String(DEFAULT_INTERVAL_SECONDS))
    .option("--keep-session", "on SIGINT/SIGTERM leave the session to run out instead of signing out")
    .action(
      async (opts: { server: string; user?: string; once?: boolean; interval: string; keepSession?: boolean }) => {
        const server = parseServerUrl(opts.server);
        const intervalSeconds = parseInterval(opts.interval);
        const key = (await readStdin()).trim();
        if (key === "") throw new Error("no API key on standard input");
        const stop = new AbortController();
        const onSignal = (name: string) => () => {
          process.stderr.write(`${name}: stopping\n`);
          stop.abort();
        };
        const onInt = onSignal("SIGINT");
        const onTerm = onSignal("SIGTERM");
        process.once("SIGINT", onInt);
        process.once("SIGTERM", onTerm);
        try {
          await runClient({
            server,
            key,
            ...(opts.user !== undefined ? { userName: opts.user } : {}),
            once: opts.once === true,
            intervalSeconds,
            keepSession: opts.keepSession === true,
            signal: stop.signal,
            out: (line) => process.stdout.write(`${line}\n`),
            err: (line) => process.stderr.write(`${line}\n`),
          });
        } finally {
          process.off("SIGINT", onInt);
          process.off("SIGTERM", onTerm);
        }
      },
    );
}

/**
 * The identity provider's metadata (docs/reference.md admin-console §3 "Authentication settings": SAMLMetadataFile or
 * SAMLMetadataURL, and the Admin twins). An uploaded file wins over a URL. A URL is fetched with a
 * bounded timeout and size, and cached: a fresh copy serves for `ttlMs`; when a refresh fails the
 * last good copy keeps serving (the trust it carries was the admin's choice) and the failure itself
 * is remembered for `failureTtlMs`, so anonymous requests cannot make the server fetch in a loop.
 */
import type { Logger } from "../../logger.ts";
import { notConfigured } from "./errors.ts";

/** Largest metadata document accepted, in bytes (1 MiB). */
export const MAX_METADATA_BYTES = 1024 * 1024;
/** How long a fetch may take, in milliseconds. */
export const METADATA_FETCH_TIMEOUT_MS = 5_000;
/** How long a fetched copy is used before it is fetched again, in milliseconds (1 hour). */
export const METADATA_TTL_MS = 60 * 60_000;
/** How long a failed fetch is remembered before trying again, in milliseconds (30 seconds). */
export const METADATA_FAILURE_TTL_MS = 30_000;

/** The function used to fetch (global fetch; tests may pass another). */
export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Fetches a metadata document: http(s) only, at most `maxBytes`, within `timeoutMs`, redirects
 * followed (at most fetch's default 20). Throws Error with a short reason on any failure.
 */
export async function fetchMetadata(
  url: string,
  opts: { timeoutMs?: number; maxBytes?: number; fetch?: FetchFn } = {},
): Promise<string> {
  const parsed = URL.parse(url);
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw new Error("metadata URL must be http or https");
  const maxBytes = opts.maxBytes ?? MAX_METADATA_BYTES;
  const signal = AbortSignal.timeout(opts.timeoutMs ?? METADATA_FETCH_TIMEOUT_MS);
  const res = await (opts.fetch ?? fetch)(url, {
    signal,
    redirect: "follow",
    headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" },
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`metadata URL answered HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new Error("metadata larger than 1 MiB");
  }
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new Error("metadata larger than 1 MiB");
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

interface Entry {
  xml: string | null;
  fetchedAt: number;
  failedAt: number | null;
  failure: string;
  inFlight: Promise<void> | null;
}

/** The cache of IdP metadata fetched from URLs, keyed by URL. */
export class IdpMetadataCache {
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly fetchFn: FetchFn | undefined;
  private readonly ttlMs: number;
  private readonly failureTtlMs: number;
  constructor(opts: { now: () => number; log: Logger; fetch?: FetchFn; ttlMs?: number; failureTtlMs?: number }) {
    this.now = opts.now;
    this.log = opts.log;
    this.fetchFn = opts.fetch;
    this.ttlMs = opts.ttlMs ?? METADATA_TTL_MS;
    this.failureTtlMs = opts.failureTtlMs ?? METADATA_FAILURE_TTL_MS;
  }

  /**
   * The IdP metadata XML: `file` when set, otherwise the (cached) document at `url`. Throws
   * SamlError "SAML not configured" when neither is set, or when the URL cannot be fetched and no
   * earlier copy exists.
   */
  async get(file: string, url: string): Promise<string> {
    if (file.trim()) return file;
    if (!url.trim()) throw notConfigured("no IdP metadata (file or URL)");
    let entry = this.entries.get(url);
    if (!entry) {
      // Only the URLs configured now are kept: a changed setting drops the old copies.
      this.entries.clear();
      entry = { xml: null, fetchedAt: 0, failedAt: null, failure: "", inFlight: null };
      this.entries.set(url, entry);
    }
    const now = this.now();
    const fresh = entry.xml !== null && now - entry.fetchedAt < this.ttlMs;
    const recentlyFailed = entry.failedAt !== null && now - entry.failedAt < this.failureTtlMs;
    if (!fresh && !recentlyFailed) {
      entry.inFlight ??= this.refresh(url, entry);
      await entry.inFlight;
    }
    if (entry.xml === null) throw notConfigured(`IdP metadata URL unavailable: ${entry.failure}`);
    return entry.xml;
  }

  /** Forgets every cached copy (used when settings change, and by tests). */
  clear(): void {
    this.entries.clear();
  }

  private async refresh(url: string, entry: Entry): Promise<void> {
    try {
      entry.xml = await fetchMetadata(url, this.fetchFn ? { fetch: this.fetchFn } : {});
      entry.fetchedAt = this.now();
      entry.failedAt = null;
      entry.failure = "";
    } catch (err) {
      entry.failedAt = this.now();
      entry.failure =
        err instanceof Error && err.name === "TimeoutError"
          ? "timed out"
          : err instanceof Error
            ? err.message
            : "fetch failed";
      this.log.warn({ url, err: entry.failure, stale: entry.xml !== null }, "SAML IdP metadata fetch failed");
    } finally {
      entry.inFlight = null;
    }
  }
}

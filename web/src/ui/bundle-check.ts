/**
 * Stale-bundle check (docs/reference.md user-portal §2): after each navigation ask GET /api/system_status for the
 * JsBundleHash and reload when it differs from the bundle this page runs (its hash is in
 * `<meta name="postern-bundle">`, written by the build). The hash is kept in localStorage as
 * `jsBundleHash` (docs/reference.md user-portal §2 "Local storage keeps ... jsBundleHash").
 */
import { cachedSystemStatus } from "./api/cached.ts";
import { browserStorage, StorageKey, writeJson } from "./lib/storage.ts";

const RELOADED_KEY = "postern.reloadedFor";

/** The hash of the running bundle, or undefined in a development build without the meta tag. */
export function runningBundleHash(): string | undefined {
  return document.querySelector<HTMLMetaElement>('meta[name="postern-bundle"]')?.content || undefined;
}

/**
 * Compares the server's JsBundleHash with the running one and reloads once per new hash (a second
 * mismatch for the same hash, e.g. a cached index.html, does not loop; that guard lives in
 * sessionStorage, docs/reference.md user-portal §9). Errors are ignored.
 */
export async function checkBundleHash(): Promise<void> {
  const running = runningBundleHash();
  if (running === undefined) return;
  try {
    const { JsBundleHash } = await cachedSystemStatus(true);
    if (JsBundleHash === "") return;
    writeJson(browserStorage(), StorageKey.jsBundleHash, JsBundleHash);
    if (JsBundleHash === running || sessionStorage.getItem(RELOADED_KEY) === JsBundleHash) return;
    sessionStorage.setItem(RELOADED_KEY, JsBundleHash);
    window.location.reload();
  } catch {
    // Not fatal: the check runs again after the next navigation.
  }
}

/** Whether SAML sign-in is available, through the page's time-to-live cache (docs/reference.md user-portal §9: 300 s). */
import { serverCache } from "../../ui/api/cached.ts";
import { CacheTtlMs } from "../../ui/lib/cache.ts";
import { isSamlAvailable } from "./user.ts";

/** Whether SAML sign-in is available (GET /api/saml/metadata), cached for 300 s. */
export function cachedSamlAvailable(): Promise<boolean> {
  return serverCache.get("saml", CacheTtlMs.default, isSamlAvailable);
}

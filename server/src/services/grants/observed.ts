/**
 * Observed addresses of a user session (docs/decisions.md "Access ends with the account"): the
 * addresses the server itself saw for the session besides its main one (IP discovery on the extra
 * ports, the other family of a dual-stack client). CGNATOpen ACLs grant them too, so they must not
 * outlive the network they came from: they are dropped when the session's main address changes,
 * and each one ages out OBSERVED_ADDRESS_TTL_MS after it was last seen (the expiry sweep prunes
 * them and takes them out of the grants and the firewall).
 */
import type { ObservedAddress } from "../../repositories/grants.ts";

/**
 * How long an observed address counts after it was last seen, in milliseconds (3 minutes). The
 * portal asks every 30 s, and a hidden browser tab's timers may run only once a minute, so a
 * client still on that network sees it refreshed several times before it ages out.
 */
export const OBSERVED_ADDRESS_TTL_MS = 3 * 60_000;

/** How many observed addresses a session keeps (the newest). */
export const MAX_OBSERVED = 8;

/** The addresses of `list` still current at `now` (epoch ms); entries without SeenAt are not. */
export function currentObserved(list: readonly ObservedAddress[], now: number): ObservedAddress[] {
  return list.filter((d) => (d.SeenAt ?? 0) + OBSERVED_ADDRESS_TTL_MS > now);
}

/**
 * When the first address of `list` ages out (epoch ms): the session's `observedUntil`, which the
 * expiry sweep compares with the clock; null for an empty list.
 */
export function observedUntil(list: readonly ObservedAddress[]): number | null {
  if (list.length === 0) return null;
  return Math.min(...list.map((d) => (d.SeenAt ?? 0) + OBSERVED_ADDRESS_TTL_MS));
}

/**
 * `list` with `ip` (normalised) recorded as seen on `port` at `now`: a previous entry of the
 * address is replaced, expired entries are left out, and only the newest MAX_OBSERVED are kept.
 */
export function withObserved(
  list: readonly ObservedAddress[],
  ip: string,
  port: number,
  now: number,
): ObservedAddress[] {
  const kept = currentObserved(list, now).filter((d) => d.IP !== ip);
  kept.push({ Port: port, IP: ip, SeenAt: now });
  return kept.slice(-MAX_OBSERVED);
}

/**
 * The caller's address. By default the socket's peer address. When the peer is a configured trusted
 * proxy (POSTERN_TRUSTED_PROXIES, CIDRs), X-Forwarded-For is read right to left and the first
 * address that is not itself a trusted proxy is the client; a malformed header falls back to the
 * socket address (fail closed: never an address the proxy did not vouch for).
 */
import { cidrContains, normaliseIp, parseCidr } from "@postern/shared";
import type { Cidr } from "@postern/shared";

/** Parses the trusted proxy list; throws on an invalid CIDR. */
export function parseTrustedProxies(list: readonly string[]): Cidr[] {
  return list.map((entry) => {
    const cidr = parseCidr(entry.includes("/") ? entry : `${entry}/${entry.includes(":") ? 128 : 32}`);
    if (!cidr) throw new Error(`invalid trusted proxy "${entry}"`);
    return cidr;
  });
}

/** Resolves the client address from the socket address and X-Forwarded-For, as described above. */
export function clientAddress(socketIp: string, forwardedFor: string | undefined, trusted: readonly Cidr[]): string {
  const peer = normaliseIp(socketIp)?.ip ?? "";
  const isTrusted = (ip: string) => trusted.some((c) => cidrContains(c, ip));
  if (!peer || !forwardedFor || !isTrusted(peer)) return peer;
  const hops = forwardedFor.split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normaliseIp(hops[i] ?? "")?.ip;
    if (!hop) return peer;
    if (!isTrusted(hop)) return hop;
  }
  return peer;
}

/**
 * True when the request reached Postern over TLS: the URL is https, or the peer is a trusted proxy
 * that says so in X-Forwarded-Proto.
 */
export function overTls(
  url: string,
  socketIp: string,
  forwardedProto: string | undefined,
  trusted: readonly Cidr[],
): boolean {
  if (new URL(url).protocol === "https:") return true;
  const peer = normaliseIp(socketIp)?.ip ?? "";
  return (
    !!peer &&
    trusted.some((c) => cidrContains(c, peer)) &&
    forwardedProto?.split(",")[0]?.trim().toLowerCase() === "https"
  );
}

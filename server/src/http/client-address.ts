/**
 * The caller's address. By default the socket's peer address. When the peer is a configured trusted
 * proxy (POSTERN_TRUSTED_PROXIES, CIDRs), X-Forwarded-For is read right to left and the first
 * address that is not itself a trusted proxy is the client. A header that does not parse (any hop
 * that is not a bare IP address) or names only trusted proxies is refused (null: the request answers
 * 400), never answered as from the proxy: a grant to the proxy's own address would open the proxy to
 * everyone behind it. A trusted peer that sends no X-Forwarded-For at all did not forward the request
 * (a reverse proxy always appends the header): it is a direct call from that host, e.g. an agent or a
 * tool on the proxy's machine, and is answered as from its address (docs/decisions.md); what lets a
 * user in refuses that address (`userAddress` in context.ts).
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

/**
 * Resolves the client address from the socket address and X-Forwarded-For, as described above:
 * the normalised address, or null when a trusted proxy's header is malformed or names no address
 * outside the trusted proxies (the caller answers 400).
 */
export function clientAddress(
  socketIp: string,
  forwardedFor: string | undefined,
  trusted: readonly Cidr[],
): string | null {
  const peer = normaliseIp(socketIp)?.ip ?? "";
  const isTrusted = (ip: string) => trusted.some((c) => cidrContains(c, ip));
  if (!peer || forwardedFor === undefined || !isTrusted(peer)) return peer;
  const hops = forwardedFor.split(",").map((h) => normaliseIp(h.trim())?.ip);
  // Every hop must parse, not only those right of the client: a proxy appends to what it received.
  if (hops.some((hop) => hop === undefined)) return null;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!isTrusted(hop)) return hop;
  }
  return null;
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

/**
 * Address parsing shared by server, agent and web: every address is parsed and normalised once,
 * IPv4 and IPv6 alike (docs/reference.md design "Grants"). IPv4-mapped IPv6 addresses become IPv4.
 */
import ipaddr from "ipaddr.js";

/** Address family as the agent capabilities name it (docs/reference.md admin-console §3). */
export type AddressFamily = "inet" | "inet6";

/** A normalised address: canonical text and its family. */
export interface NormalisedIp {
  readonly ip: string;
  readonly family: AddressFamily;
}

/** Answers of `normaliseIp` by input text, at most NORMALISED_KEPT (emptied when full). */
const normalised = new Map<string, NormalisedIp | null>();
const NORMALISED_KEPT = 1024;

/**
 * Parses an IPv4 or IPv6 address and returns its canonical form, or null when it is not one.
 * Strips a zone id, maps `::ffff:a.b.c.d` to IPv4, and accepts IPv4 only in dotted-quad form.
 * Recent answers are kept (the server parses the same peer and forwarded addresses on every request;
 * issue #13 item 2): the objects are shared and must not be changed.
 */
export function normaliseIp(input: string): NormalisedIp | null {
  let answer = normalised.get(input);
  if (answer !== undefined) return answer;
  answer = parseIp(input);
  if (normalised.size >= NORMALISED_KEPT) normalised.clear();
  normalised.set(input, answer);
  return answer;
}

function parseIp(input: string): NormalisedIp | null {
  const text = input.trim().replace(/%.*$/, "");
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) {
    return { ip: ipaddr.IPv4.parse(text).toString(), family: "inet" };
  }
  if (!ipaddr.IPv6.isValid(text)) return null;
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.isIPv4MappedAddress()) return { ip: v6.toIPv4Address().toString(), family: "inet" };
  return { ip: v6.toRFC5952String(), family: "inet6" };
}

/** A parsed CIDR prefix (address, prefix length, family). */
export interface Cidr {
  readonly ip: string;
  readonly prefix: number;
  readonly family: AddressFamily;
}

/** Parses `addr/len` (IPv4 or IPv6); returns null when invalid. Used for AllowedFrom (err.invalidCidr). */
export function parseCidr(input: string): Cidr | null {
  try {
    const [addr, prefix] = ipaddr.parseCIDR(input.trim());
    const family: AddressFamily = addr.kind() === "ipv4" ? "inet" : "inet6";
    if (family === "inet" && !ipaddr.IPv4.isValidFourPartDecimal(input.trim().split("/")[0] ?? "")) return null;
    return { ip: addr.toString(), prefix, family };
  } catch {
    return null;
  }
}

/** True when the address lies inside the CIDR (families must match after normalisation). */
export function cidrContains(cidr: Cidr, address: string): boolean {
  const n = normaliseIp(address);
  if (!n || n.family !== cidr.family) return false;
  return ipaddr.parse(n.ip).match(ipaddr.parse(cidr.ip), cidr.prefix);
}

/**
 * The IP range format of docs/reference.md admin-console §5: a dotted IPv4 address of four parts 0–255 with no
 * leading zeros.
 */
export function isStrictDottedIpv4(input: string): boolean {
  return /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(input);
}

/** Compares two IPv4 addresses numerically; both must be valid dotted quads. */
export function ipv4ToNumber(ip: string): number {
  return ipaddr.IPv4.parse(ip).octets.reduce((acc, o) => acc * 256 + o, 0);
}

/**
 * Which addresses a grant carries (docs/reference.md design "Grants"): the user's address, plus the additional
 * client addresses when CGNATOpen, or the ACL's fixed addresses for GrantType specifiedIps; then
 * filtered by the ACL's IpExclusions. Every address is normalised once here.
 */
import { normaliseIp, isStrictDottedIpv4, ipv4ToNumber } from "@postern/shared";
import type { IpExclusions, GrantType } from "@postern/shared";

/** The three RFC 1918 private ranges (docs/reference.md admin-console §9). */
export const RFC1918_RANGES: readonly { Start: string; End: string }[] = [
  { Start: "10.0.0.0", End: "10.255.255.255" },
  { Start: "172.16.0.0", End: "172.31.255.255" },
  { Start: "192.168.0.0", End: "192.168.255.255" },
];

function inRanges(ip: string, ranges: readonly { Start: string; End: string }[]): boolean {
  if (!isStrictDottedIpv4(ip)) return false;
  const n = ipv4ToNumber(ip);
  return ranges.some(
    (r) =>
      isStrictDottedIpv4(r.Start) &&
      isStrictDottedIpv4(r.End) &&
      ipv4ToNumber(r.Start) <= n &&
      n <= ipv4ToNumber(r.End),
  );
}

/**
 * True when the ACL's IpExclusions let `ip` (normalised) through: none → always; RFC1918 with
 * RfcType allow → only private IPv4, deny → all but private; allowList → only inside Ranges;
 * denyList → all but inside Ranges.
 */
export function addressAllowed(ip: string, exclusions: IpExclusions): boolean {
  switch (exclusions.RestrictionType) {
    case "none":
      return true;
    case "RFC1918":
      return exclusions.RfcType === "allow" ? inRanges(ip, RFC1918_RANGES) : !inRanges(ip, RFC1918_RANGES);
    case "allowList":
      return inRanges(ip, exclusions.Ranges);
    case "denyList":
      return !inRanges(ip, exclusions.Ranges);
  }
}

/** Inputs of `grantAddresses`. `extraIps` are the client's additional addresses (payload + discovery). */
export interface GrantAddressInput {
  sessionIp: string;
  extraIps: readonly string[];
  cgnatOpen: boolean;
  grantType: GrantType;
  exclusions: IpExclusions;
}

/**
 * Returns the normalised, de-duplicated addresses a grant carries; invalid addresses are dropped.
 * An empty result means nothing may be granted (the caller reports GrantError).
 */
export function grantAddresses(input: GrantAddressInput): string[] {
  const candidates =
    input.grantType.Type === "specifiedIps"
      ? input.grantType.Ips.map((i) => i.Ip)
      : [input.sessionIp, ...(input.cgnatOpen ? input.extraIps : [])];
  const out = new Set<string>();
  for (const c of candidates) {
    const n = normaliseIp(c);
    if (n && addressAllowed(n.ip, input.exclusions)) out.add(n.ip);
  }
  return [...out];
}

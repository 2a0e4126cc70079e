/**
 * The agent's address normalisation: `normaliseIp` of `@postern/shared` (docs/reference.md design
 * "Grants": every address parsed and normalised once), with a fast path for the common case.
 *
 * A sync of 100,000 entries normalises every address several times (the message, the backend's
 * listing, the outcomes); ipaddr.js allocates a parser state per call, ~5 KB of garbage per address
 * (issue #13 item 4, measured with bench/memory.ts: ~0.5 GB of short-lived allocations per full sync,
 * which V8 answered by growing its heap). A strict dotted quad (four parts 0–255, no leading zeros)
 * is already canonical, so it is returned as it is without parsing.
 */
import { isStrictDottedIpv4, normaliseIp as parseAndNormalise } from "@postern/shared";
import type { NormalisedIp } from "@postern/shared";

/**
 * The canonical text and family of an IPv4 or IPv6 address, or null when `input` is not one; the
 * same answer as `normaliseIp` of `@postern/shared` for every input.
 */
export function normaliseIp(input: string): NormalisedIp | null {
  if (isStrictDottedIpv4(input)) return { ip: input, family: "inet" };
  return parseAndNormalise(input);
}

/** The canonical text of an IPv4 or IPv6 address, or null when `input` is not one (see {@link normaliseIp}). */
export function canonicalIp(input: string): string | null {
  if (isStrictDottedIpv4(input)) return input;
  return parseAndNormalise(input)?.ip ?? null;
}

/**
 * Agent version states (docs/reference.md admin-console §4 "Agent version"): incompatible below the server's
 * MinimumRequiredAgentVersion (red), out of date below the highest available version (yellow),
 * up to date otherwise (green); "unknown" for an agent that never connected (no version).
 */

/** Compares dotted versions numerically ("1.10.0" > "1.9.2"); a leading "v" and any suffix after "-" or "+" are ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string): number[] =>
    v
      .replace(/^v/, "")
      .split(/[-+]/)[0]!
      .split(".")
      .map((p) => Number.parseInt(p, 10) || 0);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** The state of an agent's version. */
export type AgentVersionState = "unknown" | "incompatible" | "outOfDate" | "upToDate";

/** The state of `version` given the minimum required and the available versions. */
export function agentVersionState(
  version: string,
  minimumRequired: string,
  available: readonly { version: string }[],
): AgentVersionState {
  if (version === "") return "unknown";
  if (minimumRequired !== "" && compareVersions(version, minimumRequired) < 0) return "incompatible";
  const latest = available.reduce<string | undefined>(
    (best, v) => (best === undefined || compareVersions(v.version, best) > 0 ? v.version : best),
    undefined,
  );
  if (latest !== undefined && compareVersions(version, latest) < 0) return "outOfDate";
  return "upToDate";
}

/** The address shown for an agent: ExternalIP with a single trailing ":port" removed (IPv6 addresses, with several colons, are kept whole unless bracketed). */
export function displayAddress(externalIp: string): string {
  const bracketed = /^\[(.+)\]:\d+$/.exec(externalIp);
  if (bracketed) return bracketed[1]!;
  const parts = externalIp.split(":");
  return parts.length === 2 && /^\d+$/.test(parts[1]!) ? parts[0]! : externalIp;
}

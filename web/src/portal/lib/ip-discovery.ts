/**
 * IP discovery, pure part (docs/reference.md user-portal §1 "the user's IP is re-validated every 30 seconds", §7 "An
 * external IP-discovery service is called at the address in IPApi on ports 443, 222, 3389 and
 * 8000; the discovered IPs are then sent to /log_ips"). The server tells the ports in
 * `/system_status` `IPApiPorts` (the spec's four for an outside service, its own discovery
 * listeners otherwise); an empty list means the IPApi URL as written.
 */

/** One address to ask: the port reported to /log_ips and the URL to fetch. */
export interface DiscoveryTarget {
  Port: number;
  url: string;
}

/** Most ports asked (the /log_ips body takes at most 16 entries). */
export const MAX_DISCOVERY_TARGETS = 16;

/**
 * The URLs to ask: `ipApi` with its port replaced by each of `ports` (the scheme's default port is
 * written as none), or `ipApi` itself when `ports` is empty. Empty when `ipApi` is "" (discovery off)
 * or not an http(s) URL.
 */
export function discoveryTargets(ipApi: string, ports: readonly number[]): DiscoveryTarget[] {
  const base = URL.parse(ipApi);
  if (!base || (base.protocol !== "http:" && base.protocol !== "https:")) return [];
  const defaultPort = base.protocol === "https:" ? 443 : 80;
  if (ports.length === 0) return [{ Port: Number(base.port || defaultPort), url: base.href }];
  const targets: DiscoveryTarget[] = [];
  for (const port of new Set(ports)) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) continue;
    const url = new URL(base.href);
    url.port = String(port);
    targets.push({ Port: port, url: url.href });
  }
  return targets.slice(0, MAX_DISCOVERY_TARGETS);
}

const IP_TEXT = /^[0-9A-Fa-f:.]{2,45}$/;

/**
 * The address in a discovery answer: Postern's `{"IP": "…"}`, the common `{"ip": "…"}`, or a bare
 * address as plain text. Undefined for anything else.
 */
export function parseDiscoveryAnswer(text: string): string | undefined {
  const trimmed = text.trim();
  if (IP_TEXT.test(trimmed) && /[.:]/.test(trimmed)) return trimmed;
  try {
    const body = JSON.parse(trimmed) as unknown;
    if (typeof body === "object" && body !== null) {
      const value = (body as Record<string, unknown>).IP ?? (body as Record<string, unknown>).ip;
      if (typeof value === "string" && IP_TEXT.test(value) && /[.:]/.test(value)) return value;
    }
  } catch {
    // not JSON
  }
  return undefined;
}

/**
 * Whether the discovery URL is on the portal's own host (any port): only then is it asked with
 * credentials, so the server can tie the address to the session (cookies of another site would be
 * of no use to it).
 */
export function isOwnHost(url: string, pageHostname: string): boolean {
  return URL.parse(url)?.hostname === pageHostname;
}

/**
 * IP discovery while a home page is open (docs/reference.md user-portal §1 "While the home page is open the user's
 * IP is re-validated every 30 seconds", §7 "called at the address in IPApi on ports 443, 222, 3389
 * and 8000; the discovered IPs are then sent to /log_ips"): now, then every 30 s, ask each
 * discovery URL of GET /system_status (IPApi on each of IPApiPorts) and send the answers to
 * POST /api/log_ips. The latest answers also go with each grant as its IPs.
 */
import { useEffect, useRef } from "react";
import type { MutableRefObject } from "react";
import { Limits } from "@postern/shared";
import type { PortIp } from "@postern/shared";
import { cachedSystemStatus } from "../../ui/api/cached.ts";
import { discoverIp, logIps } from "../api/user.ts";
import { discoveryTargets, isOwnHost } from "../lib/ip-discovery.ts";

/** How long one discovery URL may take, in milliseconds. */
export const DISCOVERY_TIMEOUT_MS = 5000;

/**
 * Runs one discovery round: the answers that arrived (failed ports are left out), after sending
 * them to /log_ips (skipped when there are none). Never rejects.
 */
export async function discoverOnce(): Promise<PortIp[]> {
  try {
    const system = await cachedSystemStatus(false);
    const targets = discoveryTargets(system.IPApi, system.IPApiPorts);
    const answers = await Promise.all(
      targets.map(async (target): Promise<PortIp | undefined> => {
        try {
          return {
            Port: target.Port,
            IP: await discoverIp(target.url, isOwnHost(target.url, window.location.hostname), DISCOVERY_TIMEOUT_MS),
          };
        } catch {
          return undefined;
        }
      }),
    );
    const found = answers.filter((a): a is PortIp => a !== undefined);
    if (found.length > 0) await logIps(found);
    return found;
  } catch {
    return [];
  }
}

/** Discovers now and every 30 s while mounted; returns a ref holding the latest addresses found. */
export function useIpDiscovery(enabled: boolean): MutableRefObject<PortIp[]> {
  const latest = useRef<PortIp[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    const round = (): void => {
      void discoverOnce().then((found) => {
        if (live && found.length > 0) latest.current = found;
      });
    };
    round();
    const timer = window.setInterval(round, Limits.ipRevalidationSeconds * 1000);
    return () => {
      live = false;
      window.clearInterval(timer);
    };
  }, [enabled]);
  return latest;
}

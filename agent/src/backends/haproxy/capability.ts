/**
 * HAProxy capability detection (docs/reference.md admin-console §3 "haproxy (socket_location)"): the configured runtime
 * socket as given, else the first of the usual paths that exists.
 */
import { access } from "node:fs/promises";
import type { AgentCapabilities } from "@postern/shared";
import type { DetectContext } from "../driver.ts";

/** Runtime socket paths tried, in order, when no HAProxy socket is configured. */
export const DEFAULT_HAPROXY_SOCKETS: readonly string[] = [
  "/run/haproxy/admin.sock",
  "/var/run/haproxy.sock",
  "/var/run/haproxy/admin.sock",
];

/** How this agent may run ipset: directly (root or CAP_NET_ADMIN), through `sudo -n`, or not at all. */
export type IpsetAccess = "direct" | "sudo" | "none";

/** The `haproxy` capability, or nothing when no socket is configured or found. Never throws. */
export async function detectHaproxy(ctx: DetectContext): Promise<Partial<AgentCapabilities>> {
  const socket = ctx.haproxySocket ?? (await firstExisting(ctx.haproxySocketCandidates ?? DEFAULT_HAPROXY_SOCKETS));
  return socket ? { haproxy: { socket_location: socket } } : {};
}

async function firstExisting(paths: readonly string[]): Promise<string | undefined> {
  for (const p of paths) {
    if (
      await access(p).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  return undefined;
}

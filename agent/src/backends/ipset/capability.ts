/**
 * ipset capability detection (docs/reference.md admin-console §3 "ipset (ipsets list of name and address_family inet or
 * inet6, command_available, sudo_enabled)").
 */
import type { AgentCapabilities } from "@postern/shared";
import type { CommandRunner } from "../../process/runner.ts";
import type { DetectContext } from "../driver.ts";

/**
 * Parses `ipset list -t` (headers of every set): each set's name and family. Sets without a family
 * (e.g. `list:set`) are left out.
 */
export function parseIpsetSets(text: string): { name: string; address_family: "inet" | "inet6" }[] {
  const out: { name: string; address_family: "inet" | "inet6" }[] = [];
  let name: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const n = /^Name:\s*(\S+)/.exec(line);
    if (n?.[1]) {
      name = n[1];
      continue;
    }
    const h = /^Header:.*\bfamily (inet6?)\b/.exec(line);
    if (h?.[1] && name) {
      out.push({ name, address_family: h[1] === "inet6" ? "inet6" : "inet" });
      name = null;
    }
  }
  return out;
}

/** How this agent may run ipset: directly (root or CAP_NET_ADMIN), through `sudo -n`, or not at all. */
export type IpsetAccess = "direct" | "sudo" | "none";

/**
 * Finds how ipset can be run: `direct` when root or when `ipset list -n` works unprivileged
 * (CAP_NET_ADMIN), else `sudo` when `sudo -n ipset list -n` works, else `none`.
 * `available` is false when the ipset command cannot be started at all.
 */
export async function detectIpsetAccess(
  runner: CommandRunner,
  isRoot: boolean,
  timeoutMs = 5_000,
): Promise<{ available: boolean; access: IpsetAccess }> {
  let direct: { exitCode: number };
  try {
    direct = await runner.run("ipset", ["list", "-n"], { timeoutMs });
  } catch {
    return { available: false, access: "none" };
  }
  if (isRoot || direct.exitCode === 0) return { available: true, access: "direct" };
  try {
    const viaSudo = await runner.run("sudo", ["-n", "ipset", "list", "-n"], { timeoutMs });
    if (viaSudo.exitCode === 0) return { available: true, access: "sudo" };
  } catch {
    // sudo is not installed
  }
  return { available: true, access: "none" };
}

/** The `ipset` capability: how ipset runs here and the sets found with their family. Never throws. */
export async function detectIpset(ctx: DetectContext): Promise<Partial<AgentCapabilities>> {
  const ipset = await detectIpsetAccess(ctx.runner, ctx.isRoot, ctx.timeoutMs);
  let ipsets: { name: string; address_family: "inet" | "inet6" }[] = [];
  if (ipset.access !== "none") {
    const args = ["list", "-t"];
    const r = await (
      ipset.access === "sudo"
        ? ctx.runner.run("sudo", ["-n", "ipset", ...args], { timeoutMs: ctx.timeoutMs })
        : ctx.runner.run("ipset", args, { timeoutMs: ctx.timeoutMs })
    ).catch(() => null);
    if (r && r.exitCode === 0) ipsets = parseIpsetSets(r.stdout);
  }
  return { ipset: { ipsets, command_available: ipset.available, sudo_enabled: ipset.access !== "none" } };
}

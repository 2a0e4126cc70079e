/**
 * nftables capability detection (docs/decisions.md "nftables backend"): `nft -j list sets` runs
 * (directly when root, else through `sudo -n` when the agent uses sudo) and the sets found.
 */
import type { AgentCapabilities } from "@postern/shared";
import type { DetectContext } from "../driver.ts";
import { parseNftSets } from "./parse.ts";

/**
 * `{nftables: {command_available, sets}}`; nothing when `nft` cannot be started at all. Tries `nft`
 * and then `sudo -n nft` when not root.
 */
export async function detectNftables(ctx: DetectContext): Promise<Partial<AgentCapabilities>> {
  const attempts: [string, string[]][] = [["nft", ["-j", "list", "sets"]]];
  if (!ctx.isRoot) attempts.push(["sudo", ["-n", "nft", "-j", "list", "sets"]]);
  let started = false;
  for (const [command, args] of attempts) {
    try {
      const r = await ctx.runner.run(command, args, { timeoutMs: ctx.timeoutMs });
      started = true;
      if (r.exitCode !== 0) continue;
      try {
        return { nftables: { command_available: true, sets: parseNftSets(r.stdout) } };
      } catch {
        return { nftables: { command_available: true, sets: [] } };
      }
    } catch {
      // this command is not installed
    }
  }
  return started ? { nftables: { command_available: false, sets: [] } } : {};
}

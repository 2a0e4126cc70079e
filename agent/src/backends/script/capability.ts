/** Script capability (docs/reference.md admin-console §3 "script"): whether the agent's configuration enables custom scripts. */
import type { AgentCapabilities } from "@postern/shared";
import type { DetectContext } from "../driver.ts";

/** `{script: {enabled}}` from the agent's configuration. */
export async function detectScript(ctx: DetectContext): Promise<Partial<AgentCapabilities>> {
  return { script: { enabled: ctx.scriptsEnabled } };
}

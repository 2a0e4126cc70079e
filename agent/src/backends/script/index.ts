/**
 * The script driver folder's registration. A script backend whose Command is an http(s) URL is a
 * webhook (ScriptType webhook, `../webhook/`); otherwise an executable on the agent. Both are off
 * unless the agent's configuration enables scripts (docs/decisions.md "Webhooks need scriptsEnabled").
 */
import { isWebhookCommand } from "@postern/shared";
import type { DriverDefinition } from "../driver.ts";
import { WebhookDriver } from "../webhook/driver.ts";
import { detectScript } from "./capability.ts";
import { ScriptDriver } from "./driver.ts";

/** script and webhook. */
export const scriptDriver: DriverDefinition = {
  type: "script",
  detect: detectScript,
  create(ctx, backend) {
    if (!ctx.scriptsEnabled)
      throw new Error("custom scripts are disabled on this agent (set scriptsEnabled in its configuration)");
    const command = String(backend.config["Command"] ?? "");
    if (isWebhookCommand(command))
      return new WebhookDriver({ http: ctx.http, url: command, openSecret: ctx.openSecret });
    return new ScriptDriver({
      runner: ctx.runner,
      command,
      timeoutMs: ctx.scriptTimeoutMs,
      openSecret: ctx.openSecret,
    });
  },
};

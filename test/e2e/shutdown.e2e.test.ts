/**
 * A server with connected agents shuts down cleanly: the hub closes every agent socket before the
 * database closes, so no socket event touches a closed database (an uncaught error would fail this
 * run), and the agent is left running, disconnected.
 */
import { describe, expect, it } from "vitest";
import { pino } from "pino";
import { startAgent } from "../../agent/src/daemon.ts";
import { loadConfig } from "../../agent/src/config.ts";
import { createAndEnrolAgent, startStack, waitFor } from "../support/stack.ts";

describe("server shutdown with a connected agent", () => {
  it("closes agent sockets before the database and lets the agent carry on", async () => {
    const stack = await startStack();
    const { agentId, configPath } = await createAndEnrolAgent(stack, "edge", {});
    const agent = await startAgent({
      config: await loadConfig(configPath),
      logger: pino({ level: "silent" }),
      connection: { initialDelayMs: 50, maxDelayMs: 200 },
    });
    try {
      expect(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)).toBe(true);
      await stack.server.close();
      await new Promise((r) => setTimeout(r, 300));
      expect(agent.connected()).toBe(false);
    } finally {
      await agent.stop();
      await stack.close().catch(() => undefined);
    }
  });
});

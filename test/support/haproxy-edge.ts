/**
 * An agent in front of a real HAProxy, for end-to-end tests: the agent "edge" is created and enrolled through the
 * real endpoints, started in-process on the HAProxy's runtime API socket and awaited until connected, and a
 * backend "proxy" on that socket is created for it. The caller stops `agent` (before the stack and HAProxy).
 */
import { expect } from "vitest";
import { pino } from "pino";
import { startAgent } from "../../agent/src/daemon.ts";
import { loadConfig } from "../../agent/src/config.ts";
import type { HaproxyInstance } from "./haproxy.ts";
import { createAndEnrolAgent, waitFor } from "./stack.ts";
import type { Stack } from "./stack.ts";

/** The started agent and what the test builds on. */
export interface HaproxyEdge {
  /** The running agent. */
  agent: Awaited<ReturnType<typeof startAgent>>;
  /** Its id. */
  agentId: string;
  /** The id of the backend "proxy" on the HAProxy's socket. */
  backendId: string;
}

/**
 * Enrols and starts the agent "edge" for `haproxy` and creates its backend "proxy" (see the file comment).
 * Fails the test when the agent is not connected within 10 s.
 */
export async function startHaproxyEdge(stack: Stack, haproxy: HaproxyInstance): Promise<HaproxyEdge> {
  const { agentId, configPath } = await createAndEnrolAgent(
    stack,
    "edge",
    { haproxy: { socket_location: haproxy.socketPath } },
    { haproxySocket: haproxy.socketPath },
  );
  const agent = await startAgent({ config: await loadConfig(configPath), logger: pino({ level: "silent" }) });
  expect(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)).toBe(true);
  const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: "proxy",
    AgentID: agentId,
    Config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
  });
  return { agent, agentId, backendId: backend.ID };
}

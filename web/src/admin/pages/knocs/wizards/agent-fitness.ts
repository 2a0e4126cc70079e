/**
 * Whether an agent can carry a wizard's backend type (docs/reference.md admin-console §5 "An agent option is disabled
 * if it lacks the capability, or has no version (never connected). For ipset it is disabled without
 * the command or without sudo. Script wizard needs the script capability and agent version 1.6.0 or
 * later; proxy wizard needs the haproxy capability. Version gates for application types: agent 1.6.0
 * or later, 1.9.0 or later for sophos vendors"), in the server's gate order (docs/decisions.md "Gate
 * order"): connected once, the capability, the version. Pure; the reasons are the §8 keys.
 */
import { BACKEND_DESCRIPTORS } from "@postern/shared";
import type { Agent, BackendType } from "@postern/shared";
import { compareVersions } from "../../../lib/version.ts";

/** Why an agent cannot be chosen, or that it can. */
export type AgentFitness =
  | { ok: true }
  | { ok: false; reason: "neverConnected" }
  | { ok: false; reason: "incapable"; key: string }
  | { ok: false; reason: "version"; needed: string };

/** The fitness of `agent` for a backend of `type`. */
export function agentFitness(agent: Agent, type: BackendType): AgentFitness {
  if (agent.Version === "") return { ok: false, reason: "neverConnected" };
  const descriptor = BACKEND_DESCRIPTORS[type];
  const problem = descriptor.capabilityProblem(agent.Capabilities);
  if (problem) return { ok: false, reason: "incapable", key: problem.err };
  const needed = descriptor.minAgentVersion;
  if (needed && compareVersions(agent.Version, needed) < 0) return { ok: false, reason: "version", needed };
  return { ok: true };
}

/** The one agent to choose by itself: the only capable one, if exactly one is (docs/reference.md admin-console §2 "auto-selected"). */
export function soleCapableAgent(agents: readonly Agent[], type: BackendType): string | undefined {
  const capable = agents.filter((a) => agentFitness(a, type).ok);
  return capable.length === 1 ? capable[0]!.ID : undefined;
}

/**
 * The enforcement test bed the latency benchmarks share: a real HAProxy (runtime API), a real ipset
 * set with native timeouts inside a network namespace pair the bench creates (when it runs as root
 * with ipset), a real server on loopback (`startStack`, trusting 127.0.0.1 as a proxy so each sign-in
 * may name its address in X-Forwarded-For), one agent in this process holding both backends, and one
 * ACL per target. Everything started is registered with the caller's Cleanup and stopped by PID.
 */
import { pino } from "pino";
import type { AgentCapabilities } from "../../shared/src/index.ts";
import { startAgent } from "../../agent/src/daemon.ts";
import type { RunningAgent } from "../../agent/src/daemon.ts";
import { loadConfig } from "../../agent/src/config.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import type { CommandRunner } from "../../agent/src/process/runner.ts";
import { createBackends } from "../../agent/src/backends/index.ts";
import { startHaproxy } from "../../test/support/haproxy.ts";
import type { HaproxyInstance } from "../../test/support/haproxy.ts";
import { createNetnsPair, netnsRunner, netnsSupport } from "../../test/support/netns.ts";
import type { NetnsPair } from "../../test/support/netns.ts";
import { createAndEnrolAgent, startStack, waitFor } from "../../test/support/stack.ts";
import type { Stack } from "../../test/support/stack.ts";
import type { Cleanup } from "./cleanup.ts";

/** One enforcement target of the bed: its ACL and what it holds now. */
export interface BedTarget {
  readonly name: "haproxy" | "ipset";
  readonly aclId: string;
  /** The addresses the target holds right now (read from HAProxy's runtime API or `ipset save`). */
  present(): Promise<Set<string>>;
}

/** A running test bed. */
export interface Testbed {
  readonly stack: Stack;
  readonly agent: RunningAgent;
  readonly agentId: string;
  readonly haproxy: HaproxyInstance;
  /** The namespace pair holding the ipset set, or null when ipset is not measured. */
  readonly pair: NetnsPair | null;
  readonly targets: readonly BedTarget[];
  /** Why ipset is not measured ("" when it is). */
  readonly ipsetSkipped: string;
  /** Stops the server (once; the agent keeps running and enforcing on its own). */
  stopServer(): Promise<void>;
}

/**
 * Starts the bed. `haproxyOnly` leaves ipset out even where it could run; `ipsetMaxelem` sizes the
 * set (default 65,536).
 */
export async function startTestbed(
  cleanup: Cleanup,
  opts: { haproxyOnly?: boolean; ipsetMaxelem?: number } = {},
): Promise<Testbed> {
  const support = opts.haproxyOnly ? { ok: false, reason: "--haproxy-only given" } : await netnsSupport();
  const haveIpset =
    support.ok && (await new ExecaRunner().run("ipset", ["-v"]).catch(() => ({ exitCode: 1 }))).exitCode === 0;
  const ipsetSkipped = haveIpset ? "" : support.ok ? "no ipset command" : support.reason;

  const haproxy = await startHaproxy();
  cleanup.add("haproxy", () => haproxy.stop());
  let pair: NetnsPair | null = null;
  const set = `pbench${process.pid % 1_000_000}`;
  if (haveIpset) {
    const p = await createNetnsPair();
    pair = p;
    cleanup.add("namespaces", () => p.destroy());
    const maxelem = String(opts.ipsetMaxelem ?? 65_536);
    await p.runOk(p.server.ns, "ipset", [
      "create",
      set,
      "hash:ip",
      "family",
      "inet",
      "timeout",
      "0",
      "maxelem",
      maxelem,
    ]);
  }

  const stack = await startStack({ trustedProxies: ["127.0.0.1"] });
  let stopped: Promise<void> | undefined;
  const stopServer = (): Promise<void> => (stopped ??= stack.close());
  cleanup.add("server", stopServer);
  const capabilities: AgentCapabilities = {
    haproxy: { socket_location: haproxy.socketPath },
    ...(pair
      ? {
          ipset: {
            command_available: true,
            sudo_enabled: true,
            ipsets: [{ name: set, address_family: "inet" as const }],
          },
        }
      : {}),
  };
  const { agentId, configPath } = await createAndEnrolAgent(stack, "bench", capabilities, {
    haproxySocket: haproxy.socketPath,
  });
  const runner: CommandRunner = pair ? netnsRunner(new ExecaRunner(), pair.server.ns) : new ExecaRunner();
  const config = await loadConfig(configPath);
  const backends = createBackends({ runner, useSudo: config.useSudo });
  const agent = await startAgent({ config, backends, runner, logger: pino({ level: "silent" }) });
  cleanup.add("agent", () => agent.stop());
  if (!(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)))
    throw new Error("the agent did not connect within 10 s");

  const targets: BedTarget[] = [];
  const hapBackend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: "haproxy",
    AgentID: agentId,
    Config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
  });
  targets.push({
    name: "haproxy",
    aclId: await stack.admin.ok<string>("POST", "/api/admin/acls", {
      Description: "HAProxy",
      BackendID: hapBackend.ID,
      ClickToGrant: true,
      Config: { haproxy: { ID: haproxy.aclId } },
    }),
    present: async () =>
      new Set(
        (await haproxy.command(`show acl #${haproxy.aclId}`))
          .split("\n")
          .map((l) => /^0x[0-9a-f]+ (\S+)/.exec(l.trim())?.[1])
          .filter((ip): ip is string => ip !== undefined),
      ),
  });
  if (pair) {
    const p = pair;
    const ipsetBackend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "ipset",
      AgentID: agentId,
      Config: { ipset: {} },
    });
    targets.push({
      name: "ipset",
      aclId: await stack.admin.ok<string>("POST", "/api/admin/acls", {
        Description: "ipset",
        BackendID: ipsetBackend.ID,
        ClickToGrant: true,
        Config: { ipset: { V4SetName: set, V6SetName: "" } },
      }),
      present: async () =>
        new Set(
          (await p.runOk(p.server.ns, "ipset", ["save", set])).stdout
            .split("\n")
            .map((l) => /^add \S+ (\S+)/.exec(l)?.[1])
            .filter((ip): ip is string => ip !== undefined),
        ),
    });
  }
  return { stack, agent, agentId, haproxy, pair, targets, ipsetSkipped, stopServer };
}

/**
 * End to end for the new drivers (issue #10 item 15): nftables, script, webhook, knocproxy and AWS (moto). A real
 * server and a real agent (in-process) with the driver's real target; a user grants in the portal API
 * and the target shows the address, revoke and expiry take it away, and an agent restarted after the
 * target lost the address puts it back. The webhook's secret is entered as a Sensitive ACL variable,
 * sealed by the server and opened by the agent; the receiver verifies with `standardwebhooks`.
 */
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { DescribeSecurityGroupsCommand, RevokeSecurityGroupIngressCommand } from "@aws-sdk/client-ec2";
import type { AgentCapabilities } from "@postern/shared";
import { startAgent } from "../../agent/src/daemon.ts";
import { loadConfig } from "../../agent/src/config.ts";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import type { CommandRunner } from "../../agent/src/process/runner.ts";
import { startHaproxy } from "../support/haproxy.ts";
import { createNetnsPair, netnsRunner, netnsSupport } from "../support/netns.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";
import { motoAvailable, startMoto } from "../support/moto.ts";
import { ApiClient, aclStatus, createAndEnrolAgent, createUser, startStack, waitFor } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";

const CLIENT = "198.51.100.23";
const base = new ExecaRunner({ defaultTimeoutMs: 20_000 });
const can = (c: string, a: string[]) =>
  base
    .run(c, a, { timeoutMs: 5_000 })
    .then((r) => r.exitCode === 0)
    .catch(() => false);
const netns = await netnsSupport();
const haveNft = await can("nft", ["--version"]);
const haveHaproxy = await can("haproxy", ["-v"]);
const haveMoto = await motoAvailable();

/** What one driver's end-to-end run needs. */
interface E2eTarget {
  readonly capabilities: AgentCapabilities;
  readonly settings: Record<string, unknown>;
  readonly backend: Record<string, unknown>;
  readonly acl: Record<string, unknown>;
  readonly runner?: CommandRunner;
  /** The addresses on the real target. */
  present(): Promise<string[]>;
  /** Takes an address off the target behind the agent's back. */
  lose(ip: string): Promise<void>;
  close(): Promise<void>;
}

function e2e(name: string, skipReason: string, make: (stack: Stack) => Promise<E2eTarget>): void {
  describe.skipIf(skipReason !== "")(`${name} end to end`, () => {
    let stack: Stack;
    let t: E2eTarget;
    let agent: Awaited<ReturnType<typeof startAgent>>;
    let configPath = "";
    let user: ApiClient;
    let aclId = "";
    const statusIs = (code: number) => async () => (await aclStatus(user, aclId)).Status === code;
    const holds = async () => (await t.present()).includes(CLIENT);
    const start = async () =>
      startAgent({
        config: await loadConfig(configPath),
        ...(t.runner ? { runner: t.runner } : {}),
        logger: pino({ level: process.env["POSTERN_TEST_LOG"] ?? "silent" }),
      });

    beforeAll(async () => {
      stack = await startStack({ trustedProxies: ["127.0.0.1"] });
      t = await make(stack);
      const enrolled = await createAndEnrolAgent(stack, `agent-${name}`, t.capabilities, {
        driftCheckSeconds: 1,
        ...t.settings,
      });
      configPath = enrolled.configPath;
      agent = await start();
      expect(await waitFor(() => stack.server.services.hub.isConnected(enrolled.agentId), 10_000)).toBe(true);
      const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
        Name: name,
        AgentID: enrolled.agentId,
        Config: t.backend,
      });
      aclId = await stack.admin.ok<string>("POST", "/api/admin/acls", {
        Description: `${name} Knoc`,
        BackendID: backend.ID,
        ClickToGrant: true,
        MaximumGrantDuration: 300,
        Config: t.acl,
      });
      await createUser(stack, "bob", "bob-password", [aclId]);
      user = new ApiClient(stack.server.url, { headers: { "x-forwarded-for": CLIENT } });
      await user.ok("POST", "/api/login", { UserName: "bob", Password: "bob-password", KioskMode: false });
    });

    afterAll(async () => {
      await agent?.stop();
      await stack?.close();
      await t?.close();
    });

    it("a grant in the portal puts the address on the target", async () => {
      expect(await holds()).toBe(false);
      await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
      expect(await waitFor(statusIs(0))).toBe(true);
      expect(await holds()).toBe(true);
    });

    it("revoke takes it away", async () => {
      const entry = await aclStatus(user, aclId);
      await user.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
      expect(await waitFor(statusIs(9))).toBe(true);
      expect(await holds()).toBe(false);
    });

    it("expiry takes it away (MaximumGrantDuration on the test clock)", async () => {
      await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
      expect(await waitFor(statusIs(0))).toBe(true);
      stack.clock.advance(5 * 60_000 + 1_000);
      expect(await waitFor(statusIs(9), 3_000)).toBe(true);
      expect(await waitFor(async () => !(await holds()), 3_000)).toBe(true);
    });

    it("an agent restarted after the target lost the address puts it back", async () => {
      await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
      expect(await waitFor(statusIs(0))).toBe(true);
      await agent.stop();
      await t.lose(CLIENT);
      expect(await holds()).toBe(false);
      agent = await start();
      expect(await waitFor(holds, 5_000)).toBe(true);
    });
  });
}

e2e("nftables", !netns.ok ? netns.reason : haveNft ? "" : "nft is not installed", async () => {
  const pair = await createNetnsPair();
  const ns = pair.server.ns;
  await pair.runOk(ns, "nft", ["add", "table", "inet", "postern"]);
  await pair.runOk(ns, "nft", ["add", "set", "inet", "postern", "allow4", "{ type ipv4_addr; flags timeout; }"]);
  return {
    capabilities: { nftables: { command_available: true, sets: [] } },
    settings: {},
    backend: { nftables: {} },
    acl: { nftables: { Table: "inet postern", V4SetName: "allow4" } },
    runner: netnsRunner(base, ns),
    present: async () => {
      const text = (await pair.runOk(ns, "nft", ["list", "set", "inet", "postern", "allow4"])).stdout;
      return [...(/elements = \{([^}]*)\}/.exec(text)?.[1] ?? "").matchAll(/(\d+\.\d+\.\d+\.\d+)/g)].map((m) => m[1]!);
    },
    lose: async (ip) =>
      void (await pair.runOk(ns, "nft", ["delete", "element", "inet", "postern", "allow4", `{ ${ip} }`])),
    close: () => pair.destroy(),
  };
});

e2e("script", "", async (stack) => {
  const command = join(stack.dir, "knoc.sh");
  const state = join(stack.dir, "granted");
  await writeFile(
    command,
    `#!/bin/sh\nset -eu\ntouch "$STATE"\ncase "$1" in\n  add) grep -qxF "$3" "$STATE" || echo "$3" >> "$STATE" ;;\n  del) grep -vxF "$3" "$STATE" > "$STATE.tmp" || true; mv "$STATE.tmp" "$STATE" ;;\n  flush) : > "$STATE" ;;\nesac\n`,
  );
  await chmod(command, 0o755);
  const present = async () => (await readFile(state, "utf8").catch(() => "")).split("\n").filter(Boolean);
  return {
    capabilities: { script: { enabled: true } },
    settings: { scriptsEnabled: true },
    backend: { script: { Command: command, EnvVars: [{ Name: "STATE", Sensitive: false }] } },
    acl: { script: { Name: "bastion", EnvVars: { STATE: { Value: state } } } },
    present,
    lose: async (ip) => writeFile(state, (await present()).filter((x) => x !== ip).join("\n")),
    close: async () => undefined,
  };
});

e2e("webhook", "", async () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const receiver = await startWebhookReceiver(secret);
  return {
    capabilities: { script: { enabled: true } },
    settings: { scriptsEnabled: true },
    backend: { script: { Command: receiver.url, EnvVars: [{ Name: "WEBHOOK_SECRET", Sensitive: true }] } },
    acl: { script: { Name: "partner", EnvVars: { WEBHOOK_SECRET: { Value: secret } } } },
    present: async () => {
      if (receiver.deliveries.some((d) => !d.verified)) throw new Error("a delivery did not verify");
      return [...receiver.granted];
    },
    lose: async (ip) => void receiver.granted.delete(ip),
    close: () => receiver.stop(),
  };
});

e2e("knocproxy", haveHaproxy ? "" : "haproxy is not installed", async () => {
  const hx = await startHaproxy({ aclFileName: "bastion.acl" });
  const rows = (answer: string) =>
    answer
      .split("\n")
      .map((l) => /^0x[0-9a-f]+ (\S+)/i.exec(l.trim())?.[1])
      .filter((x): x is string => !!x);
  return {
    capabilities: { haproxy: { socket_location: hx.socketPath } },
    settings: { knocproxyDir: hx.dir, haproxySocket: hx.socketPath },
    backend: { knocproxy: { Protocol: "unix", Address: hx.socketPath } },
    acl: { knocproxy: { Name: "bastion" } },
    present: async () => rows(await hx.command(`show acl ${hx.aclFile}`)),
    lose: async (ip) => void (await hx.command(`del acl ${hx.aclFile} ${ip}`)),
    close: () => hx.stop(),
  };
});

e2e("aws", haveMoto ? "" : "moto_server is not installed", async () => {
  const moto = await startMoto();
  const group = await moto.newSecurityGroup("postern-e2e");
  // The agent's AWS SDK reaches moto through the SDK's own endpoint setting.
  process.env["AWS_ENDPOINT_URL_EC2"] = moto.url;
  const cidrs = async () =>
    (
      (await moto.ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [group] }))).SecurityGroups?.[0]
        ?.IpPermissions ?? []
    )
      .filter((p) => p.FromPort === 22)
      .flatMap((p) => (p.IpRanges ?? []).map((r) => r.CidrIp ?? ""));
  return {
    capabilities: {},
    settings: {},
    backend: { aws: { AccessKeyId: "testing", SecretAccessKey: "testing-secret", Region: "eu-west-1" } },
    acl: { aws: { SecurityGroupId: group, Port: 22 } },
    present: async () => (await cidrs()).map((c) => c.replace(/\/32$/, "")),
    lose: async (ip) =>
      void (await moto.ec2.send(
        new RevokeSecurityGroupIngressCommand({
          GroupId: group,
          IpPermissions: [{ IpProtocol: "tcp", FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: `${ip}/32` }] }],
        }),
      )),
    close: async () => {
      delete process.env["AWS_ENDPOINT_URL_EC2"];
      await moto.stop();
    },
  };
});

/**
 * The core loop end to end on real ipset + iptables (issue #2 item 9): two network namespaces
 * joined by a veth; the "server" namespace drops TCP to its web port unless the source is in the
 * ipset set Postern manages; a real agent (in-process, its commands run inside that namespace)
 * enforces what the real server decides. The user reaches Postern through a trusted reverse proxy
 * (X-Forwarded-For names the client namespace's address) and real traffic from the client
 * namespace is refused before the grant, allowed after it, refused after revoke and after expiry;
 * a ValidUntil brought forward shortens the entry's native ipset timeout (issue #8 item 1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { ExecaRunner } from "../../agent/src/process/execa-runner.ts";
import { startAgent } from "../../agent/src/daemon.ts";
import { loadConfig } from "../../agent/src/config.ts";
import { createNetnsPair, dropUnlessInSet, netnsRunner, netnsSupport } from "../support/netns.ts";
import type { NetnsHttpServer, NetnsPair } from "../support/netns.ts";
import { ApiClient, aclStatus, createAndEnrolAgent, createUser, startStack, waitFor } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";

const support = await netnsSupport();
const haveIpset = (await new ExecaRunner().run("ipset", ["-v"]).catch(() => ({ exitCode: 1 }))).exitCode === 0;
const skip = !support.ok || !haveIpset;
if (skip) console.warn(`ipset.e2e: SKIPPED: ${support.ok ? "no ipset command" : support.reason}`);

describe.skipIf(skip)("core loop on real ipset + iptables in namespaces", () => {
  let pair: NetnsPair;
  let http: NetnsHttpServer;
  let stack: Stack;
  let agent: Awaited<ReturnType<typeof startAgent>>;
  let user: ApiClient;
  let aclId = "";
  let bobId = "";
  let url = "";
  const set = `pstn${process.pid}`;

  const reachable = async () => (await pair.request(url, 700)).ok;
  const statusIs = (code: number) => async () => (await aclStatus(user, aclId)).Status === code;

  beforeAll(async () => {
    pair = await createNetnsPair();
    const ns = pair.server.ns;
    await pair.runOk(ns, "ipset", ["create", set, "hash:ip", "family", "inet", "timeout", "0"]);
    http = await pair.startHttpServer();
    await dropUnlessInSet(pair, http.port, set);
    url = `http://${pair.server.ip}:${http.port}/`;

    stack = await startStack({ trustedProxies: ["127.0.0.1"] });
    const { agentId, configPath } = await createAndEnrolAgent(
      stack,
      "firewall",
      { ipset: { command_available: true, sudo_enabled: true, ipsets: [{ name: set, address_family: "inet" }] } },
      { driftCheckSeconds: 1 },
    );
    agent = await startAgent({
      config: await loadConfig(configPath),
      runner: netnsRunner(new ExecaRunner(), ns),
      logger: pino({ level: process.env["POSTERN_TEST_LOG"] ?? "silent" }),
    });
    expect(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)).toBe(true);
    const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "linux",
      AgentID: agentId,
      Config: { ipset: {} },
    });
    aclId = await stack.admin.ok<string>("POST", "/api/admin/acls", {
      Description: "SSH bastion",
      BackendID: backend.ID,
      ClickToGrant: true,
      MaximumGrantDuration: 300,
      Config: { ipset: { V4SetName: set, V6SetName: "" } },
    });
    bobId = await createUser(stack, "bob", "bob-password", [aclId]);
    user = new ApiClient(stack.server.url, { headers: { "x-forwarded-for": pair.client.ip } });
    await user.ok("POST", "/api/login", { UserName: "bob", Password: "bob-password", KioskMode: false });
  });

  afterAll(async () => {
    await agent?.stop();
    await stack?.close();
    await http?.stop();
    await pair?.destroy();
  });

  it("sees the user at the client namespace's address", async () => {
    const status = await user.ok<{ CurrentAddress: string }>("GET", "/api/status");
    expect(status.CurrentAddress).toBe(pair.client.ip);
  });

  it("drops the client's traffic before the grant", async () => {
    expect(await reachable()).toBe(false);
  });

  it("lets it through after the grant, with a native ipset timeout", async () => {
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(statusIs(0))).toBe(true);
    expect(await reachable()).toBe(true);
    const listed = await pair.runOk(pair.server.ns, "ipset", ["list", set]);
    expect(listed.stdout).toMatch(new RegExp(`${pair.client.ip.replaceAll(".", "\\.")} timeout (29\\d|300)`));
  });

  it("drops it again after revoke", async () => {
    const entry = await aclStatus(user, aclId);
    await user.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
    expect(await waitFor(statusIs(9))).toBe(true);
    expect(await reachable()).toBe(false);
  });

  it("drops it after MaximumGrantDuration (5 minutes on the test clock)", async () => {
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(statusIs(0))).toBe(true);
    expect(await reachable()).toBe(true);
    stack.clock.advance(5 * 60_000 + 1_000);
    expect(await waitFor(statusIs(9), 3_000)).toBe(true);
    expect(await waitFor(async () => !(await reachable()), 3_000)).toBe(true);
  });

  it("repairs drift: an entry deleted behind the agent's back comes back", async () => {
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(statusIs(0))).toBe(true);
    await pair.runOk(pair.server.ns, "ipset", ["del", set, pair.client.ip]);
    expect(await waitFor(reachable, 5_000)).toBe(true);
  });

  it("a ValidUntil brought forward shortens the entry's native ipset timeout to it, and ends access then", async () => {
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(statusIs(0))).toBe(true);
    const validUntil = stack.clock.now() + 4_000;
    await stack.admin.ok("PUT", `/api/admin/users/${bobId}`, {
      Name: "bob",
      UserName: "bob",
      AclIds: [aclId],
      ValidUntil: new Date(validUntil).toISOString(),
    });
    // The agent runs on the real clock; the server's test clock may be ahead of it.
    const left = Math.ceil((validUntil - Date.now()) / 1000);
    const timeoutOf = async () => {
      const listed = await pair.runOk(pair.server.ns, "ipset", ["list", set]);
      const m = new RegExp(`${pair.client.ip.replaceAll(".", "\\.")} timeout (\\d+)`).exec(listed.stdout);
      return m ? Number(m[1]) : null;
    };
    expect(await waitFor(async () => ((await timeoutOf()) ?? Infinity) <= left)).toBe(true);
    stack.clock.advance(4_000);
    expect(await waitFor(async () => !(await reachable()), 2_000)).toBe(true);
    expect((await user.call("GET", "/api/status")).status).toBe(401);
  });
});

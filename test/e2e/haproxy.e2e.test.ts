/**
 * The core loop end to end on a real HAProxy (issue #2 item 9): a user signs in from 127.0.0.7,
 * HAProxy refuses that source before the grant, lets it through after it, refuses it after revoke
 * and after expiry (MaximumGrantDuration 5 minutes passed on the server's test clock), and the
 * agent (a real `postern-agent run` process) puts the entry back within 5 s after being killed and
 * restarted and after HAProxy is reloaded with its ACL wiped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { execa } from "execa";
import { startHaproxy, httpGetFrom } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";
import {
  ApiClient,
  aclStatus,
  createAndEnrolAgent,
  createUser,
  spawnAgent,
  startStack,
  waitFor,
} from "../support/stack.ts";
import type { AgentProcess, Stack } from "../support/stack.ts";

const USER_IP = "127.0.0.7";
const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;

describe.skipIf(!hasHaproxy)("core loop on a real HAProxy", () => {
  let haproxy: HaproxyInstance;
  let stack: Stack;
  let agent: AgentProcess;
  let aclId = "";
  let user: ApiClient;
  let frontend = "";
  let agentId = "";
  let configPath = "";

  const allowed = async () => (await httpGetFrom(USER_IP, frontend)) === 200;
  const statusIs = (code: number) => async () => (await aclStatus(user, aclId)).Status === code;

  beforeAll(async () => {
    haproxy = await startHaproxy();
    frontend = `http://127.0.0.1:${haproxy.frontendPort}/`;
    stack = await startStack();
    ({ agentId, configPath } = await createAndEnrolAgent(
      stack,
      "edge",
      { haproxy: { socket_location: haproxy.socketPath } },
      { haproxySocket: haproxy.socketPath, driftCheckSeconds: 1 },
    ));
    agent = spawnAgent(configPath);
    expect(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)).toBe(true);
    const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "proxy",
      AgentID: agentId,
      Config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
    });
    aclId = await stack.admin.ok<string>("POST", "/api/admin/acls", {
      Description: "Intranet",
      BackendID: backend.ID,
      ClickToGrant: true,
      MaximumGrantDuration: 300,
      Config: { haproxy: { ID: haproxy.aclId } },
    });
    await createUser(stack, "alice", "alice-password", [aclId]);
    user = new ApiClient(stack.server.url, { localAddress: USER_IP });
    await user.ok("POST", "/api/login", { UserName: "alice", Password: "alice-password", KioskMode: false });
  });

  afterAll(async () => {
    await agent?.kill();
    await stack?.close();
    await haproxy?.stop();
  });

  it("refuses the user's address before the grant", async () => {
    expect((await aclStatus(user, aclId)).Status).toBe(4);
    expect(await httpGetFrom(USER_IP, frontend)).toBe(403);
  });

  it("lets it through after the grant (status Granted)", async () => {
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(statusIs(0))).toBe(true);
    expect(await httpGetFrom(USER_IP, frontend)).toBe(200);
    // Another source stays refused.
    expect(await httpGetFrom("127.0.0.8", frontend)).toBe(403);
  });

  it("refuses it again after revoke", async () => {
    const entry = await aclStatus(user, aclId);
    await user.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
    expect(await waitFor(statusIs(9))).toBe(true);
    expect(await httpGetFrom(USER_IP, frontend)).toBe(403);
  });

  it("refuses it after MaximumGrantDuration (5 minutes on the test clock)", async () => {
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(statusIs(0))).toBe(true);
    expect(await allowed()).toBe(true);
    stack.clock.advance(5 * 60_000 + 1_000);
    expect(await waitFor(statusIs(9), 3_000)).toBe(true);
    expect(await waitFor(async () => !(await allowed()), 2_000)).toBe(true);
  });

  it("grants while the agent is down as AgentOffline, applied when it returns", async () => {
    await agent.kill(true);
    expect(await waitFor(() => !stack.server.services.hub.isConnected(agentId), 5_000)).toBe(true);
    await user.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect((await aclStatus(user, aclId)).Status).toBe(3);
    expect(await httpGetFrom(USER_IP, frontend)).toBe(403);
    agent = spawnAgent(configPath);
    expect(await waitFor(allowed, 5_000)).toBe(true);
    expect(await waitFor(statusIs(0))).toBe(true);
  });

  it("puts the entry back within 5 s after the agent is killed, the entry removed behind its back and the agent restarted", async () => {
    expect(await allowed()).toBe(true);
    await agent.kill(true);
    await haproxy.command(`del acl #${haproxy.aclId} ${USER_IP}`);
    expect(await allowed()).toBe(false);
    agent = spawnAgent(configPath);
    const started = Date.now();
    expect(await waitFor(allowed, 5_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("puts the entry back within 5 s after HAProxy is reloaded with an emptied ACL file", async () => {
    expect(await allowed()).toBe(true);
    // The agent keeps the ACL file in step with the live set; wait for its write, then hold the agent
    // still (SIGSTOP) while the file is wiped and HAProxy reloads, so the drop is observed for sure.
    expect(await waitFor(async () => (await readFile(haproxy.aclFile, "utf8")).includes(USER_IP), 3_000)).toBe(true);
    agent.child.kill("SIGSTOP");
    try {
      await writeFile(haproxy.aclFile, "");
      await haproxy.reload();
      expect(await waitFor(async () => !(await allowed()), 3_000)).toBe(true);
    } finally {
      agent.child.kill("SIGCONT");
    }
    const started = Date.now();
    expect(await waitFor(allowed, 5_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("removes the address on logout", async () => {
    await user.ok("POST", "/api/logout");
    expect(await waitFor(async () => !(await allowed()), 3_000)).toBe(true);
  });
});

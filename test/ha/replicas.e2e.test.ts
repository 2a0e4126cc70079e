/**
 * Two replicas on PostgreSQL sharing one agent (issue #12 item 8; docs/high-availability.md), all real
 * parts: a throw-away PostgreSQL, two `postern-server` processes with POSTERN_DATABASE_URL behind a
 * real HAProxy load balancer, a real `postern-agent run` connected through the balancer, and a real
 * HAProxy as its enforcement target. A user signs in and grants on the replica that does NOT hold the
 * agent, and the target lets the address through (LISTEN/NOTIFY, agent-hub/cluster.ts); a revoke there
 * takes it away. Then the agent's replica is killed: within 5 s the agent is on the other one, the
 * address stayed allowed and is there once, revoke still takes it away, and an account's expiry
 * (ValidUntil, ended by the expiry sweep) takes another user's address away.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execa } from "execa";
import { join } from "node:path";
import { enrol } from "../../agent/src/enrol.ts";
import { startHaproxy, httpGetFrom, freePort } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";
import { startLoadBalancer } from "../support/load-balancer.ts";
import type { LoadBalancer } from "../support/load-balancer.ts";
import { freshPostgresDatabase, postgresBinDir } from "../support/postgres.ts";
import type { FreshPostgresDatabase } from "../support/postgres.ts";
import { createHaproxyKnoc, startReplicaSet } from "../support/replicas.ts";
import type { Replica, ReplicaSet } from "../support/replicas.ts";
import { ApiClient, aclStatus, spawnAgent, waitFor } from "../support/stack.ts";
import type { AgentProcess } from "../support/stack.ts";

const ALICE_IP = "127.0.0.7";
const BOB_IP = "127.0.0.8";
const ADMIN_IP = "127.0.0.9";
const BALANCER_IP = "127.0.0.2";
const AGENT_IP = "127.0.0.1";
const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;
const hasPostgres = postgresBinDir() !== undefined;
if (!hasHaproxy || !hasPostgres)
  console.warn("haproxy or PostgreSQL is not installed: skipping the replicas test (scripts/setup.sh --test)");

describe.skipIf(!hasHaproxy || !hasPostgres)("two replicas on PostgreSQL share one agent", () => {
  let pg: FreshPostgresDatabase;
  let lb: LoadBalancer;
  let set: ReplicaSet;
  let target: HaproxyInstance;
  let agent: AgentProcess | undefined;
  let admin: ApiClient;
  let aclId = "";
  let frontend = "";

  const agentReplica = async (): Promise<string[]> =>
    (await lb.sessions()).filter((s) => s.src.startsWith(`${AGENT_IP}:`) && s.server).map((s) => s.server!);
  const allowed = async (ip: string) => (await httpGetFrom(ip, frontend)) === 200;
  const entriesOf = async (ip: string): Promise<number> =>
    (await target.command(`show acl #${target.aclId}`)).split("\n").filter((l) => l.trim().endsWith(` ${ip}`)).length;

  beforeAll(async () => {
    pg = await freshPostgresDatabase();
    target = await startHaproxy();
    frontend = `http://127.0.0.1:${target.frontendPort}/`;
    const ports = [await freePort(), await freePort()];
    lb = await startLoadBalancer(
      ports.map((p) => `127.0.0.1:${p}`),
      { source: BALANCER_IP },
    );
    set = await startReplicaSet({ database: { kind: "postgres", url: pg.url }, ports, trustedProxies: [BALANCER_IP] });
    expect(await waitFor(async () => Object.values(await lb.status()).every((s) => s === "UP"), 10_000)).toBe(true);
    admin = new ApiClient(lb.url, { localAddress: ADMIN_IP });
    await admin.ok("POST", "/api/admin/login", { UserName: set.admin.userName, Password: set.admin.password });
    const created = await admin.ok<{ ID: string; Token: string }>("POST", "/api/admin/agents", { Name: "edge" });
    const configPath = join(set.dataDir, "..", "agent.json");
    await enrol({
      server: lb.url,
      token: created.Token,
      configPath,
      capabilities: { haproxy: { socket_location: target.socketPath } },
      version: "1.9.0",
      settings: { useSudo: false, haproxySocket: target.socketPath, driftCheckSeconds: 1 },
    });
    agent = spawnAgent(configPath);
    expect(await waitFor(async () => (await agentReplica()).length === 1, 10_000)).toBe(true);
    aclId = await createHaproxyKnoc(admin, created.ID, target);
  }, 120_000);

  afterAll(async () => {
    await agent?.kill();
    await set?.close();
    await lb?.stop();
    await target?.stop();
    await pg?.close();
  });

  it("grants on the replica without the agent reach it; after that replica's death the agent moves within 5 s and revoke and expiry still work", async () => {
    const [holding] = await agentReplica();
    const home = set.replicas.find((r) => r.name === holding)!;
    const other: Replica = set.replicas.find((r) => r !== home)!;

    // Alice signs in and grants on the replica that does not hold the agent.
    const alice = new ApiClient(other.url, { localAddress: ALICE_IP });
    await alice.ok("POST", "/api/login", { UserName: "alice", Password: "alice-password", KioskMode: false });
    expect(await allowed(ALICE_IP)).toBe(false);
    await alice.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(
      await waitFor(async () => (await aclStatus(alice, aclId)).Status === 0, 5_000),
      `grant on ${other.name} not acknowledged:\n${home.output().slice(-2_000)}`,
    ).toBe(true);
    expect(await waitFor(() => allowed(ALICE_IP), 3_000)).toBe(true);
    expect(await entriesOf(ALICE_IP)).toBe(1);

    // Revoked there too: the address goes.
    const entry = await aclStatus(alice, aclId);
    await alice.ok("DELETE", `/api/sessions/current/granted-acls/${entry.ID}`);
    expect(await waitFor(async () => (await aclStatus(alice, aclId)).Status === 9, 5_000)).toBe(true);
    expect(await waitFor(async () => !(await allowed(ALICE_IP)), 3_000)).toBe(true);

    // Granted again on the other replica; bob, whose account ends in a few seconds, too.
    await alice.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(() => allowed(ALICE_IP), 5_000)).toBe(true);
    const validUntil = new Date(Date.now() + 12_000).toISOString();
    await admin.ok("POST", "/api/admin/users", {
      Name: "bob",
      UserName: "bob",
      PlainPassword: "bob-password-1",
      ConfirmPassword: "bob-password-1",
      AclIds: [aclId],
      ValidUntil: validUntil,
    });
    const bob = new ApiClient(other.url, { localAddress: BOB_IP });
    await bob.ok("POST", "/api/login", { UserName: "bob", Password: "bob-password-1", KioskMode: false });
    await bob.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(() => allowed(BOB_IP), 5_000)).toBe(true);

    // The agent's replica dies: the agent is on the other one within 5 s, and the addresses never leave.
    const killed = Date.now();
    await home.kill();
    let denied = 0;
    const moved = await waitFor(
      async () => {
        if (!(await allowed(ALICE_IP))) denied++;
        return (await agentReplica()).includes(other.name);
      },
      5_000,
      100,
    );
    const took = Date.now() - killed;
    expect(moved, `agent not on ${other.name} within 5 s:\n${other.output().slice(-3_000)}`).toBe(true);
    expect(denied, "times the target refused alice during the failover").toBe(0);
    console.info(`replicas on PostgreSQL: agent on ${other.name} ${took} ms after ${home.name} was killed`);
    expect(await waitFor(async () => (await aclStatus(alice, aclId)).Status === 0, 3_000)).toBe(true);
    expect(await entriesOf(ALICE_IP), "alice's entries after the failover").toBe(1);
    expect(await entriesOf(BOB_IP), "bob's entries after the failover").toBe(1);

    // Bob's account expires: the sweep ends his session and his address leaves the target.
    const left = Date.parse(validUntil) - Date.now();
    expect(await waitFor(async () => !(await allowed(BOB_IP)), left + 5_000, 200)).toBe(true);
    expect(await entriesOf(BOB_IP)).toBe(0);
    expect(await allowed(ALICE_IP)).toBe(true);

    // Revoke on the survivor still takes alice's address away.
    const again = await aclStatus(alice, aclId);
    await alice.ok("DELETE", `/api/sessions/current/granted-acls/${again.ID}`);
    expect(await waitFor(async () => !(await allowed(ALICE_IP)), 3_000)).toBe(true);
    expect(await entriesOf(ALICE_IP)).toBe(0);
  }, 90_000);
});

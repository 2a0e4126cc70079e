import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { GrantStatus, GrantErrorKey } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { createHarness, seedLoop } from "../../testing/harness.ts";
import { publishedAddresses } from "../../repositories/grants.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";

const { auditLog } = testTables;

let h: Harness;
let seed: Seeded;

async function signIn(ip: string) {
  const { session } = await h.services.userSessions.login({
    userName: "alice",
    password: "alice-password",
    kiosk: false,
    ip,
  });
  return session;
}
async function entry(sessionId: string, aclId: string) {
  const status = await h.services.status.status({ ...sessionOf(sessionId) });
  return status.ACLs.find((a) => a.ACLID === aclId)!;
}
const sessions = new Map<string, Awaited<ReturnType<typeof signIn>>>();
function sessionOf(id: string) {
  return sessions.get(id)!;
}
async function newSession(ip: string) {
  const s = await signIn(ip);
  sessions.set(s.sessionId, s);
  return s;
}
const meta = { userName: "alice", ip: "203.0.113.5", click: true };

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h, { clickToGrant: true, maximumGrantDurationSeconds: 300 });
  h.channel.online.add(seed.agentId);
});
afterEach(async () => {
  await h.close();
});

describe("grant engine", () => {
  it("creates a ready entry at login and grants on click: Pending until the agent acks, then Granted", async () => {
    const s = await newSession("203.0.113.5");
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Created);
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    const ops = h.channel.take();
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({
      op: "add",
      ip: "203.0.113.5",
      user: "alice", // the grant's user, for script knoc_username and webhooks
      target: { key: seed.aclId, acl: { haproxy: { ID: 1 } } },
    });
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Pending);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.5", op: "add", ok: true }]);
    const e = await entry(s.sessionId, seed.aclId);
    expect(e.Status).toBe(GrantStatus.Granted);
    // Expiry: the earliest of session end (480 min) and MaximumGrantDuration (300 s).
    expect(Date.parse(e.ExpiredAfter) - h.clock.now()).toBeLessThanOrEqual(300_000);
    expect(Date.parse(e.ExpiredAfter) - h.clock.now()).toBeGreaterThan(290_000);
  });

  it("reports GrantError when the agent refuses (the user sees err.grantFailed, the audit the target's message)", async () => {
    const s = await newSession("203.0.113.5");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    await h.services.engine.handleResults("edge", [
      { key: seed.aclId, ip: "203.0.113.5", op: "add", ok: false, error: "no such acl" },
    ]);
    const e = await entry(s.sessionId, seed.aclId);
    expect(e.Status).toBe(GrantStatus.GrantError);
    expect(e.Error).toBe(GrantErrorKey.grantFailed);
    expect(await h.services.db.select().from(auditLog).where(eq(auditLog.action, "grantError"))).toEqual([
      expect.objectContaining({ errorMessage: "no such acl", agentName: "edge", ipAddress: "203.0.113.5" }),
    ]);
  });

  it("marks AgentOffline when the agent is not connected, and Pending again when it returns", async () => {
    h.channel.online.clear();
    const s = await newSession("203.0.113.5");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.AgentOffline);
    expect(h.channel.take()).toHaveLength(0);
    // The desired state sent on reconnect carries the entry.
    const desired = await h.services.engine.desiredState(seed.agentId);
    expect(desired[0]?.entries.map((e) => [e.ip, e.user])).toEqual([["203.0.113.5", "alice"]]);
    await h.services.engine.agentConnected(seed.agentId);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Pending);
  });

  it("reference-counts an address shared by two sessions: it leaves only with the last grant", async () => {
    const a = await newSession("198.51.100.7");
    const b = await newSession("198.51.100.7");
    await h.services.engine.grant(a.sessionId, seed.aclId, meta);
    await h.services.engine.grant(b.sessionId, seed.aclId, meta);
    h.channel.take();
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "198.51.100.7", op: "add", ok: true }]);
    await h.services.engine.revokeEntry(a.sessionId, (await entry(a.sessionId, seed.aclId)).ID, meta);
    expect(h.channel.take().filter((o) => o.op === "del")).toHaveLength(0);
    expect((await entry(a.sessionId, seed.aclId)).Status).toBe(GrantStatus.Revoked);
    expect((await entry(b.sessionId, seed.aclId)).Status).toBe(GrantStatus.Granted);
    await h.services.engine.revokeEntry(b.sessionId, (await entry(b.sessionId, seed.aclId)).ID, meta);
    const ops = h.channel.take();
    expect(ops).toEqual([expect.objectContaining({ op: "del", ip: "198.51.100.7" })]);
    expect((await entry(b.sessionId, seed.aclId)).Status).toBe(GrantStatus.Revoking);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "198.51.100.7", op: "del", ok: true }]);
    expect((await entry(b.sessionId, seed.aclId)).Status).toBe(GrantStatus.Revoked);
  });

  it("expires a grant at MaximumGrantDuration by the clock, sending del", async () => {
    const s = await newSession("203.0.113.9");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.9", op: "add", ok: true }]);
    h.channel.take();
    h.clock.advance(299_000);
    expect(await h.services.engine.sweep()).toBe(0);
    h.clock.advance(2_000);
    expect(await h.services.engine.sweep()).toBe(1);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.9" })]);
    expect((await h.services.engine.desiredState(seed.agentId))[0]?.entries).toEqual([]);
  });

  it("revokes on logout and ends the session", async () => {
    const s = await newSession("203.0.113.10");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    h.channel.take();
    await h.services.userSessions.logout(s, "203.0.113.10");
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.10" })]);
    await expect(h.services.userSessions.resolve("nope")).rejects.toThrow();
  });

  it("grants automatically at login when the ACL is not click-to-grant", async () => {
    await h.close();
    h = await createHarness();
    seed = await seedLoop(h, { clickToGrant: false });
    h.channel.online.add(seed.agentId);
    const s = await newSession("203.0.113.11");
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.11" })]);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Pending);
  });

  it("moves a grant to the user's new address keeping its expiry", async () => {
    const s = await newSession("203.0.113.20");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.20", op: "add", ok: true }]);
    const before = (await entry(s.sessionId, seed.aclId)).ExpiredAfter;
    h.channel.take();
    h.clock.advance(10_000);
    await h.services.status.followAddress(s, "203.0.113.21");
    const ops = h.channel.take();
    expect(ops).toEqual([
      expect.objectContaining({ op: "del", ip: "203.0.113.20" }),
      expect.objectContaining({ op: "add", ip: "203.0.113.21" }),
    ]);
    expect((await entry(s.sessionId, seed.aclId)).ExpiredAfter).toBe(before);
  });

  it("revokes grants when the ACL is removed from the user", async () => {
    const s = await newSession("203.0.113.30");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    h.channel.take();
    const u = await h.services.users.get(seed.userId);
    await h.services.users.update(
      seed.userId,
      { ...u, AclIds: [], PlainPassword: undefined, ConfirmPassword: undefined, ValidUntil: null },
      { adminName: "a", ip: "" },
    );
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.30" })]);
  });

  it("refuses to grant an ACL no longer assigned to the user", async () => {
    const s = await newSession("203.0.113.40");
    const u = await h.services.users.get(seed.userId);
    await h.services.users.update(
      seed.userId,
      { ...u, AclIds: [], PlainPassword: undefined, ConfirmPassword: undefined, ValidUntil: null },
      { adminName: "a", ip: "" },
    );
    await expect(h.services.engine.grant(s.sessionId, seed.aclId, meta)).rejects.toThrow(/Unauthorised/);
    expect(h.channel.take()).toHaveLength(0);
  });

  it("makes every grant holding a refused entry GrantError and takes the entry back, whatever the order of results", async () => {
    const s = await newSession("203.0.113.50");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    h.channel.take();
    await h.services.engine.handleResults("edge", [
      { key: seed.aclId, ip: "203.0.113.50", op: "add", ok: true },
      { key: seed.aclId, ip: "203.0.113.50", op: "add", ok: false, error: "file not writable" },
    ]);
    const e = await entry(s.sessionId, seed.aclId);
    expect(e).toMatchObject({ Status: GrantStatus.GrantError, Error: GrantErrorKey.grantFailed, ExpiredAfter: "" });
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.50" })]);
    // Revoking the failed grant also takes back whatever the agent may hold, and is ready again.
    await h.services.engine.revokeEntry(s.sessionId, e.ID, meta);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.50" })]);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Revoked);
  });

  it("settles Revoking grants when the agent acknowledges a full sync (a lost del ack cannot leave them stuck)", async () => {
    const s = await newSession("203.0.113.60");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.60", op: "add", ok: true }]);
    await h.services.engine.revokeEntry(s.sessionId, (await entry(s.sessionId, seed.aclId)).ID, meta);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Revoking);
    // The connection drops before the del is acknowledged; the agent reconnects and acks the sync.
    await h.services.engine.agentDisconnected(seed.agentId);
    h.clock.advance(10);
    await h.services.engine.agentConnected(seed.agentId);
    await h.services.engine.handleSyncAck(seed.agentId, "edge", h.clock.now(), []);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Revoked);
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Pending);
  });

  it("marks grants left Pending by a server restart AgentOffline", async () => {
    const s = await newSession("203.0.113.70");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.Pending);
    await h.services.engine.recoverAfterRestart();
    expect((await entry(s.sessionId, seed.aclId)).Status).toBe(GrantStatus.AgentOffline);
  });

  it("does not move grants when a dual-stack client alternates families", async () => {
    const s = await newSession("203.0.113.80");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    h.channel.take();
    await h.services.status.followAddress(s, "2001:db8::80");
    expect(h.channel.take()).toHaveLength(0);
    expect(s.ipAddress).toBe("203.0.113.80");
  });

  it("ends current grants when the ACL's address rules change", async () => {
    const s = await newSession("203.0.113.90");
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    h.channel.take();
    const acl = await h.services.acls.get(seed.aclId);
    await h.services.acls.update(
      seed.aclId,
      {
        ...acl,
        IpExclusions: {
          RestrictionType: "denyList",
          RfcType: "allow",
          Ranges: [{ Start: "203.0.113.0", End: "203.0.113.255" }],
        },
      },
      { adminName: "a", ip: "" },
    );
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.90" })]);
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.90", op: "del", ok: true }]);
    await h.services.engine.grant(s.sessionId, seed.aclId, meta);
    expect(await entry(s.sessionId, seed.aclId)).toMatchObject({
      Status: GrantStatus.GrantError,
      DisableForUser: true,
    });
  });

  it("publishes a grant on a passive allowlist (status 6) with no agent, and takes it off at expiry", async () => {
    const actor = { adminName: "a", ip: "" };
    const backendId = await h.services.backends.create(
      { Name: "list", AgentID: "00000000-0000-0000-0000-000000000000", Config: { allowlist: {} } },
      actor,
    );
    const acl = await h.services.acls.get(seed.aclId);
    const listAcl = await h.services.acls.create(
      {
        ...acl,
        Description: "Vendor allowlist",
        BackendID: backendId,
        MaximumGrantDuration: 300,
        Config: {
          UriToken: "",
          allowlist: {
            Token: "t0k3n",
            ApiKeyId: "00000000-0000-0000-0000-000000000000",
            AllowAccessByIp: false,
            AllowedIpAddresses: [],
          },
        },
      },
      actor,
    );
    const u = await h.services.users.get(seed.userId);
    await h.services.users.update(
      seed.userId,
      { ...u, AclIds: [seed.aclId, listAcl], PlainPassword: undefined, ConfirmPassword: undefined, ValidUntil: null },
      actor,
    );
    const s = await newSession("198.51.100.99");
    await h.services.engine.grant(s.sessionId, listAcl, meta);
    expect(h.channel.take()).toHaveLength(0);
    expect((await entry(s.sessionId, listAcl)).Status).toBe(GrantStatus.Published);
    expect(await publishedAddresses(h.services.db, listAcl, h.clock.now())).toEqual(["198.51.100.99"]);
    h.clock.advance(301_000);
    await h.services.engine.sweep();
    expect((await entry(s.sessionId, listAcl)).Status).toBe(GrantStatus.Revoked);
    expect(await publishedAddresses(h.services.db, listAcl, h.clock.now())).toEqual([]);
  });

  it("applies a sync acknowledgement in bulk: waiting grants Granted, reported failures GrantError, later grants untouched", async () => {
    h.channel.online.clear();
    const a = await newSession("203.0.113.101");
    const b = await newSession("203.0.113.102");
    await h.services.engine.grant(a.sessionId, seed.aclId, meta);
    await h.services.engine.grant(b.sessionId, seed.aclId, meta);
    h.channel.online.add(seed.agentId);
    await h.services.engine.agentConnected(seed.agentId);
    const sentAt = h.clock.now();
    h.clock.advance(5);
    const c = await newSession("203.0.113.103");
    await h.services.engine.grant(c.sessionId, seed.aclId, meta); // after the sync was sent: its own apply decides
    await h.services.engine.handleSyncAck(seed.agentId, "edge", sentAt, [
      { key: seed.aclId, ip: "203.0.113.102", op: "add", ok: false, error: "set full" },
    ]);
    expect((await entry(a.sessionId, seed.aclId)).Status).toBe(GrantStatus.Granted);
    expect(await entry(b.sessionId, seed.aclId)).toMatchObject({
      Status: GrantStatus.GrantError,
      Error: GrantErrorKey.grantFailed,
    });
    expect((await entry(c.sessionId, seed.aclId)).Status).toBe(GrantStatus.Pending);
  });
});

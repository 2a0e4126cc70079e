/**
 * Access ends with the account (issue #8 items 1–3; docs/decisions.md "Access ends with the
 * account"), in process: the session's effective end is the earliest of its own end, the user's
 * ValidUntil and its API key's expiry (a deleted key ends it), shorter ends reach the agents as
 * shorter entry expiries, and observed addresses leave the grants when the main address moves or
 * they age out. The agents are the recording channel (the process boundary); test/e2e/access-ends
 * checks the same on a real HAProxy.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { GrantStatus } from "@postern/shared";
import type { UserWrite } from "@postern/shared";
import { createHarness, seedLoop } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";
import { getGrantAddresses, getGrantFor } from "../../repositories/grants.ts";
import type { UserSessionContext } from "../auth/user-sessions.ts";
import { OBSERVED_ADDRESS_TTL_MS } from "./observed.ts";

const { acls, auditLog, users, userSessions } = testTables;

let h: Harness;
let seed: Seeded;
const actor = { adminName: "root", ip: "127.0.0.1" };
const meta = { userName: "alice", ip: "203.0.113.5", click: true };

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h, { clickToGrant: true });
  await h.services.db.update(acls).set({ cgnatOpen: true }).where(eq(acls.id, seed.aclId));
  h.channel.online.add(seed.agentId);
});
afterEach(async () => {
  await h.close();
});

/** Signs alice in from `ip`; the session carries its cookie token. */
async function signIn(ip: string): Promise<UserSessionContext & { token: string }> {
  const { session, token } = await h.services.userSessions.login({
    userName: "alice",
    password: "alice-password",
    kiosk: false,
    ip,
  });
  return { ...session, token };
}

/** Signs in from `ip`, grants the ACL and acknowledges the agent's add; clears the recorded ops. */
async function grantedSession(ip: string): Promise<UserSessionContext & { token: string }> {
  const s = await signIn(ip);
  await h.services.engine.grant(s.sessionId, seed.aclId, { ...meta, ip });
  await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip, op: "add", ok: true }]);
  h.channel.take();
  return s;
}

function alice(validUntil: number | null): UserWrite {
  return {
    Name: "Alice",
    UserName: "alice",
    Company: "",
    Duration: 480,
    SessionLimit: null,
    AuthType: "local",
    TOTPEnabled: false,
    ValidUntil: validUntil === null ? null : new Date(validUntil).toISOString(),
    ThirdPartyAuth: { DN: "" },
    AclIds: [seed.aclId],
  };
}

async function sessionRow(id: string) {
  return (await h.services.db.select().from(userSessions).where(eq(userSessions.id, id)).limit(1))[0]!;
}
async function grantOf(sessionId: string) {
  return (await getGrantFor(h.services.db, sessionId, seed.aclId))!;
}
async function audits(action: string) {
  return await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
}

describe("account expiry ends access", () => {
  it("a ValidUntil ahead brings the session, the grant and the agent's entry forward; the sweep ends it at ValidUntil", async () => {
    const s = await grantedSession("203.0.113.10");
    const validUntil = h.clock.now() + 5_000;
    await h.services.users.update(seed.userId, alice(validUntil), actor);
    expect(h.channel.take()).toEqual([
      { op: "add", target: expect.anything(), ip: "203.0.113.10", expiresAt: validUntil },
    ]);
    expect((await sessionRow(s.sessionId)).endsAt).toBe(validUntil);
    expect((await grantOf(s.sessionId)).expiresAt).toBe(validUntil);
    expect((await h.services.engine.desiredState(seed.agentId))[0]?.entries).toEqual([
      expect.objectContaining({ ip: "203.0.113.10", expiresAt: validUntil }),
    ]);

    h.clock.advance(4_000); // the test clock runs on in real time: keep a margin
    await h.services.engine.sweep();
    expect(h.channel.take()).toEqual([]);
    h.clock.advance(1_000);
    await h.services.engine.sweep();
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.10" })]);
    expect(await sessionRow(s.sessionId)).toMatchObject({ endReason: "accountExpired" });
    expect((await grantOf(s.sessionId)).status).toBe(GrantStatus.Revoking);
    expect(await audits("sessionExpired")).toEqual([
      expect.objectContaining({ userName: "alice", description: "session ended: the account expired (ValidUntil)" }),
    ]);
  });

  it("a ValidUntil in the past ends every session of the user at once, audited", async () => {
    const a = await grantedSession("203.0.113.11");
    const b = await grantedSession("203.0.113.12");
    await h.services.users.update(seed.userId, alice(h.clock.now() - 1), actor);
    // The sessions end in no particular order (their ids are random).
    const dels = h.channel.take();
    expect(dels).toHaveLength(2);
    expect(dels).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ op: "del", ip: "203.0.113.11" }),
        expect.objectContaining({ op: "del", ip: "203.0.113.12" }),
      ]),
    );
    expect((await sessionRow(a.sessionId)).endReason).toBe("accountExpired");
    expect((await sessionRow(b.sessionId)).endReason).toBe("accountExpired");
    expect(await audits("sessionExpired")).toHaveLength(2);
  });

  it("a later ValidUntil never lengthens a session, and never revives an ended one", async () => {
    const live = await grantedSession("203.0.113.13");
    const first = h.clock.now() + 60_000;
    await h.services.users.update(seed.userId, alice(first), actor);
    h.channel.take();
    await h.services.users.update(seed.userId, alice(null), actor);
    expect(h.channel.take()).toEqual([]);
    expect((await sessionRow(live.sessionId)).endsAt).toBe(first);
    expect((await grantOf(live.sessionId)).expiresAt).toBe(first);

    h.clock.advance(60_000);
    await h.services.engine.sweep();
    expect((await sessionRow(live.sessionId)).endedAt).not.toBeNull();
    await h.services.users.update(seed.userId, alice(h.clock.now() + 3_600_000), actor);
    expect((await sessionRow(live.sessionId)).endedAt).not.toBeNull();
    await expect(h.services.userSessions.resolve(live.token)).rejects.toThrow();
    await expect(h.services.engine.grant(live.sessionId, seed.aclId, meta)).rejects.toThrow();
    expect(await h.services.users.sessions(seed.userId)).toEqual([]);
  });

  it("the sweep bounds sessions by the user's ValidUntil itself, however it was set", async () => {
    const s = await grantedSession("203.0.113.14");
    // Not through UserService (e.g. a restored database): the session's own end is still hours away.
    const validUntil = h.clock.now() + 1_000;
    await h.services.db.update(users).set({ validUntil }).where(eq(users.id, seed.userId));
    h.clock.advance(1_000);
    await h.services.engine.sweep();
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.14" })]);
    expect((await sessionRow(s.sessionId)).endReason).toBe("accountExpired");
  });
});

describe("API keys end the sessions they signed in", () => {
  async function keyUser(expiredAfter: number | null) {
    const created = await h.services.apiKeyUsers.createUser(
      { ...alice(null), Name: "Robot", UserName: "robot", AuthType: "apikey" },
      { Name: "robot-key", ExpiredAfter: expiredAfter === null ? null : new Date(expiredAfter).toISOString() },
      actor,
    );
    const signed = await h.services.apiKeyUsers.signIn(created.ApiKey.PlaintextKey!, "203.0.113.40");
    const session = await h.services.userSessions.resolve(signed.Token);
    await h.services.engine.grant(session.sessionId, seed.aclId, {
      userName: "robot",
      ip: "203.0.113.40",
      click: true,
    });
    await h.services.engine.handleResults("edge", [{ key: seed.aclId, ip: "203.0.113.40", op: "add", ok: true }]);
    h.channel.take();
    return { keyId: created.ApiKey.ID, session, token: signed.Token };
  }

  it("deleting the key ends its sessions and revokes their grants in the same call", async () => {
    const other = await grantedSession("203.0.113.41");
    const { keyId, session, token } = await keyUser(null);
    expect((await sessionRow(session.sessionId)).apiKeyId).toBe(keyId);
    await h.services.apiKeys.delete(keyId, actor);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.40" })]);
    expect((await sessionRow(session.sessionId)).endReason).toBe("apiKeyDeleted");
    await expect(h.services.userSessions.resolve(token)).rejects.toThrow();
    expect(await audits("sessionExpired")).toEqual([
      expect.objectContaining({ userName: "robot", description: "session ended: its API key was deleted" }),
    ]);
    expect((await sessionRow(other.sessionId)).endedAt).toBeNull();
  });

  it("the key's expiry bounds the session (and the agent's entry) and the sweep ends it then", async () => {
    const expiredAfter = h.clock.now() + 10_000;
    const { session } = await keyUser(expiredAfter);
    expect((await sessionRow(session.sessionId)).endsAt).toBe(expiredAfter);
    expect((await h.services.engine.desiredState(seed.agentId))[0]?.entries).toEqual([
      expect.objectContaining({ ip: "203.0.113.40", expiresAt: expiredAfter }),
    ]);
    h.clock.advance(10_000);
    await h.services.engine.sweep();
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.40" })]);
    expect((await sessionRow(session.sessionId)).endReason).toBe("apiKeyExpired");
  });
});

describe("observed addresses do not outlive their network", () => {
  it("are dropped when the main address changes: the moved grant carries only the new address", async () => {
    const s = await signIn("198.51.100.22");
    await h.services.status.observe(s, "198.51.100.23", 8000);
    await h.services.engine.grant(s.sessionId, seed.aclId, { ...meta, ip: "198.51.100.22" });
    expect((await getGrantAddresses(h.services.db, (await grantOf(s.sessionId)).id)).sort()).toEqual([
      "198.51.100.22",
      "198.51.100.23",
    ]);
    await h.services.status.followAddress(s, "198.51.100.23");
    await h.services.status.followAddress(s, "198.51.100.24");
    expect(await getGrantAddresses(h.services.db, (await grantOf(s.sessionId)).id)).toEqual(["198.51.100.24"]);
    expect(await sessionRow(s.sessionId)).toMatchObject({ discoveredIps: [], observedUntil: null });
    expect((await h.services.engine.desiredState(seed.agentId))[0]?.entries.map((e) => e.ip)).toEqual([
      "198.51.100.24",
    ]);
  });

  it(`age out ${OBSERVED_ADDRESS_TTL_MS / 60_000} minutes after last seen: only they leave the grant and the target`, async () => {
    const s = await signIn("198.51.100.30");
    const before = h.clock.now();
    await h.services.status.observe(s, "198.51.100.31", 8000);
    const after = h.clock.now();
    await h.services.engine.grant(s.sessionId, seed.aclId, { ...meta, ip: "198.51.100.30" });
    await h.services.engine.handleResults("edge", [
      { key: seed.aclId, ip: "198.51.100.30", op: "add", ok: true },
      { key: seed.aclId, ip: "198.51.100.31", op: "add", ok: true },
    ]);
    h.channel.take();
    const until = (await sessionRow(s.sessionId)).observedUntil!;
    expect(until).toBeGreaterThanOrEqual(before + OBSERVED_ADDRESS_TTL_MS);
    expect(until).toBeLessThanOrEqual(after + OBSERVED_ADDRESS_TTL_MS);
    h.clock.advance(OBSERVED_ADDRESS_TTL_MS - 1_000); // the test clock runs on in real time: keep a margin
    await h.services.engine.sweep();
    expect(h.channel.take()).toEqual([]);
    expect(await h.services.status.logIps(s, [{ Port: 8000, IP: "198.51.100.31" }])).toEqual(["198.51.100.31"]);
    h.clock.advance(1_000);
    await h.services.engine.sweep();
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "198.51.100.31" })]);
    const g = await grantOf(s.sessionId);
    expect(g.status).toBe(GrantStatus.Granted);
    expect(await getGrantAddresses(h.services.db, g.id)).toEqual(["198.51.100.30"]);
    expect(await sessionRow(s.sessionId)).toMatchObject({ discoveredIps: [], observedUntil: null });
    expect(await h.services.status.logIps(s, [{ Port: 8000, IP: "198.51.100.31" }])).toEqual([]);
  });

  it("a refreshed observation keeps the address; an address another grant holds stays on the target", async () => {
    const other = await grantedSession("198.51.100.41");
    const s = await signIn("198.51.100.40");
    await h.services.status.observe(s, "198.51.100.41", 8000);
    await h.services.engine.grant(s.sessionId, seed.aclId, { ...meta, ip: "198.51.100.40" });
    h.channel.take();
    h.clock.advance(OBSERVED_ADDRESS_TTL_MS - 1_000);
    await h.services.status.observe(s, "198.51.100.41", 8000);
    h.clock.advance(1_000);
    await h.services.engine.sweep();
    expect((await getGrantAddresses(h.services.db, (await grantOf(s.sessionId)).id)).sort()).toEqual([
      "198.51.100.40",
      "198.51.100.41",
    ]);
    h.clock.advance(OBSERVED_ADDRESS_TTL_MS);
    await h.services.engine.sweep();
    expect(await getGrantAddresses(h.services.db, (await grantOf(s.sessionId)).id)).toEqual(["198.51.100.40"]);
    // 198.51.100.41 is still the other session's own address: no del for it.
    expect(h.channel.take().filter((o) => o.ip === "198.51.100.41" && o.op === "del")).toEqual([]);
    expect((await grantOf(other.sessionId)).status).toBe(GrantStatus.Granted);
  });
});

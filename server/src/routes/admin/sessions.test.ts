import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";
import { insertPasskey } from "../../repositories/passkeys.ts";

const { auditLog, grants, users, userSessions } = testTables;

let h: Harness;
let seed: Seeded;
let root = "";
let rootId = "";
const UNKNOWN = "11111111-1111-1111-1111-111111111111";
const actor = { adminName: "test-admin", ip: "127.0.0.1" };

const req = (method: string, path: string, body?: unknown, cookie = root) =>
  apiRequest(h, method, path, body, { cookie });
const audit = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));

/** Signs alice in from `from` and grants the seeded ACL; returns her cookie (the add op is consumed). */
async function aliceGrants(from = "203.0.113.5"): Promise<string> {
  const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" }, { from });
  expect(login.status).toBe(200);
  const cookie = login.setCookie.split(";")[0] ?? "";
  expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie, from })).status).toBe(
    200,
  );
  expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: from })]);
  return cookie;
}
const userStatus = async (cookie: string) => (await apiRequest(h, "GET", "/api/status", undefined, { cookie })).status;
const adminStatus = async (cookie: string) => (await req("GET", "/api/admin/admins", undefined, cookie)).status;
const liveIds = async (userId: string) => (await h.services.users.sessions(userId)).map((s) => s.ID);

async function secondAdmin(): Promise<{ id: string; cookie: string }> {
  const id = (
    await req("POST", "/api/admin/admins", {
      Name: "Bob",
      UserName: "bob",
      PlainPassword: "bob-password",
      ConfirmPassword: "bob-password",
    })
  ).body as string;
  const r = await apiRequest(
    h,
    "POST",
    "/api/admin/login",
    { UserName: "bob", Password: "bob-password" },
    { from: "198.51.100.9" },
  );
  expect(r.status).toBe(204);
  return { id, cookie: r.setCookie.split(";")[0] ?? "" };
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  root = await signInAdmin(h);
  rootId = (await h.services.admins.list()).find((a) => a.UserName === "root")?.ID ?? "";
  h.channel.take();
});
afterEach(async () => {
  await h.close();
});

describe("user sessions", () => {
  it("lists a user's live sessions as {ID, Created, Ends}", async () => {
    expect((await req("GET", `/api/admin/users/${seed.userId}/sessions`)).body).toEqual([]);
    await aliceGrants();
    const r = await req("GET", `/api/admin/users/${seed.userId}/sessions`);
    expect(r.status).toBe(200);
    const [s] = r.body as { ID: string; Created: string; Ends: string }[];
    expect(Object.keys(s ?? {}).sort()).toEqual(["Created", "Ends", "ID"]);
    expect(Date.parse(s!.Ends) - Date.parse(s!.Created)).toBe(480 * 60_000);
    expect(await req("GET", `/api/admin/users/${UNKNOWN}/sessions`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
  });

  it("ends one user session and revokes its grants as logout does", async () => {
    const cookie = await aliceGrants();
    const other = await aliceGrants("198.51.100.20");
    const [first] = await liveIds(seed.userId);
    expect((await req("DELETE", `/api/admin/sessions/${first}`)).status).toBe(204);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect(await userStatus(cookie)).toBe(401);
    expect(await userStatus(other)).toBe(200);
    const g = (await h.services.db.select().from(grants).where(eq(grants.sessionId, first!)).limit(1))[0];
    expect(g?.status).toBe(8);
    expect(
      (await h.services.db.select().from(userSessions).where(eq(userSessions.id, first!)).limit(1))[0]?.endReason,
    ).toBe("invalidated");
    expect(await req("DELETE", `/api/admin/sessions/${first}`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect(await req("DELETE", `/api/admin/sessions/${UNKNOWN}`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect((await audit("sessionDeleted")).map((e) => [e.userName, e.adminName, e.description])).toEqual([
      ["alice", "root", "user session"],
    ]);
  });

  it("ends every user session and revokes every grant", async () => {
    await h.services.users.create(
      {
        Name: "Bob",
        UserName: "bob",
        Company: "",
        Duration: 60,
        SessionLimit: null,
        AuthType: "local",
        PlainPassword: "bob-password",
        ConfirmPassword: "bob-password",
        TOTPEnabled: false,
        ValidUntil: null,
        ThirdPartyAuth: { DN: "" },
        AclIds: [seed.aclId],
      },
      actor,
    );
    const a1 = await aliceGrants();
    const a2 = await aliceGrants("198.51.100.20");
    const b =
      (
        await apiRequest(h, "POST", "/api/login", { UserName: "bob", Password: "bob-password" }, { from: "192.0.2.44" })
      ).setCookie.split(";")[0] ?? "";
    expect(
      (await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie: b, from: "192.0.2.44" }))
        .status,
    ).toBe(200);
    h.channel.take();
    expect((await req("DELETE", "/api/admin/sessions")).status).toBe(204);
    expect(
      h.channel
        .take()
        .map((o) => `${o.op} ${o.ip}`)
        .sort(),
    ).toEqual(["del 192.0.2.44", "del 198.51.100.20", "del 203.0.113.5"]);
    for (const c of [a1, a2, b]) expect(await userStatus(c)).toBe(401);
    expect(await liveIds(seed.userId)).toEqual([]);
    expect((await audit("sessionDeleted")).map((e) => e.description)).toEqual(["all user sessions (3)"]);
    // Nothing left: a second call still answers 204.
    expect((await req("DELETE", "/api/admin/sessions")).status).toBe(204);
    expect(await adminStatus(root)).toBe(200);
  });

  it("requires an admin session, never a user session", async () => {
    const cookie = await aliceGrants();
    expect(await req("DELETE", "/api/admin/sessions", undefined, "")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect(
      (
        await req(
          "DELETE",
          "/api/admin/sessions",
          undefined,
          cookie.replace("postern_session", "postern_admin_session"),
        )
      ).status,
    ).toBe(401);
    expect(await userStatus(cookie)).toBe(200);
    expect(h.channel.take()).toEqual([]);
  });
});

describe("admin sessions", () => {
  it("lists an admin's live sessions as {ID, Created, IPAddress}", async () => {
    const bob = await secondAdmin();
    const r = await req("GET", `/api/admin/admins/${bob.id}/sessions`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { ID: expect.any(String) as unknown, Created: expect.stringMatching(/Z$/) as unknown, IPAddress: "198.51.100.9" },
    ]);
    expect(await req("GET", `/api/admin/admins/${UNKNOWN}/sessions`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
  });

  it("ends another admin's session, and the caller's own as a logout", async () => {
    const bob = await secondAdmin();
    const [bobSession] = await h.services.admins.sessions(bob.id);
    const del = await req("DELETE", `/api/admin/adminsessions/${bobSession!.ID}`);
    expect(del.status).toBe(204);
    expect(del.setCookie).toBe("");
    expect(await adminStatus(bob.cookie)).toBe(401);
    expect(await adminStatus(root)).toBe(200);
    expect(await req("DELETE", `/api/admin/adminsessions/${bobSession!.ID}`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect(await req("DELETE", `/api/admin/adminsessions/${UNKNOWN}`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });

    const [own] = await h.services.admins.sessions(rootId);
    const self = await req("DELETE", `/api/admin/adminsessions/${own!.ID}`);
    expect(self.status).toBe(204);
    expect(self.setCookie).toMatch(/postern_admin_session=;/);
    expect(await adminStatus(root)).toBe(401);
    expect((await audit("sessionDeleted")).map((e) => e.description)).toEqual([
      "admin session of bob",
      "admin session of root",
    ]);
  });

  it("ends every admin session, the caller's included", async () => {
    const bob = await secondAdmin();
    const del = await req("DELETE", "/api/admin/adminsessions");
    expect(del.status).toBe(204);
    expect(del.setCookie).toMatch(/postern_admin_session=;/);
    expect(await adminStatus(bob.cookie)).toBe(401);
    expect(await adminStatus(root)).toBe(401);
    expect((await audit("sessionDeleted")).map((e) => e.description)).toEqual(["all admin sessions (2)"]);
    // User sessions are untouched.
    expect(h.channel.take()).toEqual([]);
  });
});

describe("user extras", () => {
  it("resets a user's 2FA: clears the secret, keeps TOTPEnabled, audits", async () => {
    const u = (await req("GET", `/api/admin/users/${seed.userId}`)).body as Record<string, unknown>;
    expect((await req("PUT", `/api/admin/users/${seed.userId}`, { ...u, TOTPEnabled: true })).status).toBe(200);
    expect((await req("GET", `/api/admin/users/${seed.userId}`)).body).toMatchObject({ TOTPEnabled: true });
    await h.services.db
      .update(users)
      .set({ totpSecretEnc: "sealed", totpLastStep: 9 })
      .where(eq(users.id, seed.userId));
    expect((await req("DELETE", `/api/admin/users/${seed.userId}/totpToken`)).status).toBe(204);
    expect((await h.services.db.select().from(users).where(eq(users.id, seed.userId)).limit(1))[0]).toMatchObject({
      totpEnabled: true,
      totpSecretEnc: null,
      totpLastStep: null,
    });
    expect(await req("DELETE", `/api/admin/users/${UNKNOWN}/totpToken`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect((await audit("totpReset")).map((e) => [e.userName, e.adminName])).toEqual([["alice", "root"]]);
  });

  it("names a user's passkeys (Passkeys); the reset of a passkey-only user removes them", async () => {
    expect((await req("GET", `/api/admin/users/${seed.userId}`)).body).toMatchObject({
      TOTPEnabled: false,
      Passkeys: 0,
    });
    for (const id of ["p1", "p2"])
      await insertPasskey(h.services.db, "user", seed.userId, {
        id,
        name: `key ${id}`,
        credentialId: `cred-${id}`,
        publicKey: "pk",
        deviceType: "singleDevice",
        createdAt: 1,
      });
    expect((await req("GET", `/api/admin/users/${seed.userId}`)).body).toMatchObject({
      TOTPEnabled: false,
      Passkeys: 2,
    });
    const listed = (await req("GET", "/api/admin/users")).body as { ID: string; Passkeys: number }[];
    expect(listed.find((u) => u.ID === seed.userId)?.Passkeys).toBe(2);
    expect((await req("DELETE", `/api/admin/users/${seed.userId}/totpToken`)).status).toBe(204);
    expect((await req("GET", `/api/admin/users/${seed.userId}`)).body).toMatchObject({ Passkeys: 0 });
  });

  it("stores TOTPEnabled for users, never for SAML users, and forgets the secret when it is turned off", async () => {
    const u = (await req("GET", `/api/admin/users/${seed.userId}`)).body as Record<string, unknown>;
    expect((await req("PUT", `/api/admin/users/${seed.userId}`, { ...u, TOTPEnabled: true })).status).toBe(200);
    await h.services.db
      .update(users)
      .set({ totpSecretEnc: "sealed", totpLastStep: 9 })
      .where(eq(users.id, seed.userId));
    expect((await req("PUT", `/api/admin/users/${seed.userId}`, { ...u, TOTPEnabled: false })).status).toBe(200);
    expect((await h.services.db.select().from(users).where(eq(users.id, seed.userId)).limit(1))[0]).toMatchObject({
      totpEnabled: false,
      totpSecretEnc: null,
    });
    const saml = await h.services.users.create(
      {
        Name: "S",
        UserName: "s",
        Company: "",
        Duration: 60,
        SessionLimit: null,
        AuthType: "SAML",
        TOTPEnabled: true,
        ValidUntil: null,
        ThirdPartyAuth: { DN: "" },
        AclIds: [],
      },
      actor,
    );
    expect((await h.services.users.get(saml)).TOTPEnabled).toBe(false);
  });

  it("lists a user's groups and the ACLs they reach, directly and through groups", async () => {
    const g1 = (
      await req("POST", "/api/admin/groups", {
        Name: "Ops",
        Type: "local",
        ACLIDs: [seed.aclId],
        UserIDs: [seed.userId],
      })
    ).body as string;
    const g2 = (
      await req("POST", "/api/admin/groups", {
        Name: "All",
        Type: "dynamic",
        ACLIDs: [seed.aclId],
        UserIDs: [seed.userId],
      })
    ).body as string;
    await req("POST", "/api/admin/groups", { Name: "Empty", Type: "local" });
    const groups = await req("GET", `/api/admin/users/${seed.userId}/groups`);
    expect(groups.status).toBe(200);
    expect(groups.body).toEqual([
      expect.objectContaining({ ID: g2, Name: "All", Type: "dynamic", UserCount: 1, KnocCount: 1 }),
      expect.objectContaining({ ID: g1, Name: "Ops", Type: "local", ACLIDs: [seed.aclId], UserIDs: [seed.userId] }),
    ]);
    const acls = await req("GET", `/api/admin/users/${seed.userId}/acls`);
    expect(acls.status).toBe(200);
    expect(acls.body).toEqual([
      {
        ID: seed.aclId,
        Description: "Intranet",
        URL: "https://intranet.example",
        Category: "Default",
        Icon: "",
        Direct: true,
        Groups: [
          { ID: g2, Name: "All" },
          { ID: g1, Name: "Ops" },
        ],
      },
    ]);
    const u = (await req("GET", `/api/admin/users/${seed.userId}`)).body as Record<string, unknown>;
    expect((await req("PUT", `/api/admin/users/${seed.userId}`, { ...u, AclIds: [] })).status).toBe(200);
    expect((await req("GET", `/api/admin/users/${seed.userId}/acls`)).body).toEqual([
      expect.objectContaining({ ID: seed.aclId, Direct: false }),
    ]);
    expect(await req("GET", `/api/admin/users/${UNKNOWN}/groups`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect(await req("GET", `/api/admin/users/${UNKNOWN}/acls`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
  });
});

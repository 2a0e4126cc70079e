import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiRequest, createHarness, seedLoop } from "../testing/harness.ts";
import type { Harness, Seeded } from "../testing/harness.ts";

let h: Harness;
let seed: Seeded;
let adminCookie = "";

/** One request from 203.0.113.5 (the harness's socket address); an empty body reads as null. */
async function req(method: string, path: string, body?: unknown, cookie = "", extra: Record<string, string> = {}) {
  const r = await apiRequest(h, method, path, body, { cookie, headers: extra });
  return { status: r.status, body: r.body === "" ? null : r.body, setCookie: r.setCookie };
}
const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  await h.services.adminSessions.createLocalAdmin({ userName: "root", name: "Root", password: "root-password" });
  const r = await req("POST", "/api/admin/login", { UserName: "root", Password: "root-password" });
  expect(r.status).toBe(204);
  adminCookie = cookieOf(r.setCookie);
});
afterEach(async () => {
  await h.close();
});

describe("user API", () => {
  it("signs in, shows the status with its ACL entries, grants and revokes", async () => {
    const login = await req("POST", "/api/login", { UserName: "alice", Password: "alice-password", KioskMode: false });
    expect(login.status).toBe(200);
    expect(login.setCookie).toMatch(/postern_session=.+HttpOnly/i);
    const cookie = cookieOf(login.setCookie);
    const status = (await req("GET", "/api/status", undefined, cookie)).body as {
      Name: string;
      ACLs: { ID: string; ACLID: string; Status: number }[];
    };
    expect(status.Name).toBe("Alice");
    expect(status.ACLs).toHaveLength(1);
    expect(status.ACLs[0]).toMatchObject({ ACLID: seed.aclId, Status: 4 });
    const granted = await req("POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, cookie);
    expect(granted.status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5" })]);
    const id = status.ACLs[0]!.ID;
    const revoked = await req("DELETE", `/api/sessions/current/granted-acls/${id}`, undefined, cookie);
    expect(revoked.status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del" })]);
    expect((await req("POST", "/api/logout", undefined, cookie)).status).toBe(204);
    expect(await req("GET", "/api/status", undefined, cookie)).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });

  it("answers err.totpEnrolmentRequired with a session cookie that the portal does not accept yet", async () => {
    const u = (await req("GET", `/api/admin/users/${seed.userId}`, undefined, adminCookie)).body as Record<
      string,
      unknown
    >;
    expect((await req("PUT", `/api/admin/users/${seed.userId}`, { ...u, TOTPEnabled: true }, adminCookie)).status).toBe(
      200,
    );
    const login = await req("POST", "/api/login", { UserName: "alice", Password: "alice-password", KioskMode: false });
    expect(login).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    expect(login.setCookie).toMatch(/postern_session=.+HttpOnly/i);
    expect((await req("GET", "/api/status", undefined, cookieOf(login.setCookie))).status).toBe(401);
    expect(h.channel.take()).toHaveLength(0);
  });

  it("answers a wrong password and an unknown user alike", async () => {
    const a = await req("POST", "/api/login", { UserName: "alice", Password: "wrong-password", KioskMode: false });
    const b = await req("POST", "/api/login", { UserName: "nobody", Password: "wrong-password", KioskMode: false });
    expect(a).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    expect(b).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
  });

  it("refuses bad bodies and unknown grants without changing anything", async () => {
    expect(await req("POST", "/api/login", "{nope")).toMatchObject({
      status: 400,
      body: { Err: "Failed decoding request body" },
    });
    expect((await req("POST", "/api/login", { UserName: "", Password: "x" })).status).toBe(400);
    const cookie = cookieOf(
      (await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" })).setCookie,
    );
    expect((await req("POST", "/api/grant", { ACLID: "not-a-uuid" }, cookie)).status).toBe(400);
    expect(
      (await req("POST", "/api/grant", { ACLID: "11111111-1111-1111-1111-111111111111", IPs: [] }, cookie)).status,
    ).toBe(403);
    expect(
      (
        await req(
          "DELETE",
          "/api/sessions/current/granted-acls/11111111-1111-1111-1111-111111111111",
          undefined,
          cookie,
        )
      ).status,
    ).toBe(404);
    expect(h.channel.take()).toHaveLength(0);
  });

  it("refuses a body over 1 MiB", async () => {
    expect((await req("POST", "/api/login", { UserName: "alice", Password: "x".repeat(1_100_000) })).status).toBe(413);
  });

  it("ends the user's sessions when an admin sets a new password", async () => {
    const cookie = cookieOf(
      (await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" })).setCookie,
    );
    await req("POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, cookie);
    h.channel.take();
    const u = (await req("GET", `/api/admin/users/${seed.userId}`, undefined, adminCookie)).body as Record<
      string,
      unknown
    >;
    expect(
      (
        await req(
          "PUT",
          `/api/admin/users/${seed.userId}`,
          { ...u, PlainPassword: "new-password", ConfirmPassword: "new-password" },
          adminCookie,
        )
      ).status,
    ).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect((await req("GET", "/api/status", undefined, cookie)).status).toBe(401);
  });

  it("refuses cross-site writes and non-JSON bodies", async () => {
    expect(
      (
        await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" }, "", {
          origin: "https://evil.example",
        })
      ).status,
    ).toBe(403);
    expect(
      (
        await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" }, "", {
          "sec-fetch-site": "cross-site",
        })
      ).status,
    ).toBe(403);
    const form = await h.app.request("http://postern.test/api/login", {
      method: "POST",
      headers: { host: "postern.test", "content-type": "application/x-www-form-urlencoded" },
      body: "UserName=alice",
    });
    expect(form.status).toBe(403);
  });

  it("ignores addresses the client merely claims: only the observed address is granted", async () => {
    const cookie = cookieOf(
      (await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" })).setCookie,
    );
    await req(
      "POST",
      "/api/grant",
      {
        ACLID: seed.aclId,
        IPs: [
          { Port: 443, IP: "8.8.8.8" },
          { Port: 222, IP: "1.1.1.1" },
        ],
      },
      cookie,
    );
    expect(h.channel.take().map((o) => o.ip)).toEqual(["203.0.113.5"]);
    expect(
      (
        await req(
          "POST",
          "/api/log_ips",
          {
            IPs: [
              { Port: 443, IP: "8.8.8.8" },
              { Port: 443, IP: "203.0.113.5" },
            ],
          },
          cookie,
        )
      ).body,
    ).toEqual({ Confirmed: ["203.0.113.5"] });
  });

  it("answers 404 for unknown API paths, with or without a session", async () => {
    expect((await req("GET", "/api/admin/nonexistent", undefined, adminCookie)).status).toBe(404);
    expect((await req("GET", "/api/nonexistent")).status).toBe(404);
  });

  it("serves system status and theme without a session", async () => {
    expect((await req("GET", "/api/system_status")).body).toMatchObject({
      JsBundleHash: "test",
      IPApi: "http://postern.test/api/ip",
    });
    expect((await req("GET", "/api/theme")).body).toEqual({ Accent: "teal", HighAccessibility: false });
  });
});

describe("admin API", () => {
  it("refuses every admin route without an admin session, and with a user session", async () => {
    const user = cookieOf(
      (await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" })).setCookie,
    );
    for (const path of ["/api/admin/agents", "/api/admin/backends", "/api/admin/acls", "/api/admin/users"]) {
      expect(await req("GET", path)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
      expect((await req("GET", path, undefined, user.replace("postern_session", "postern_admin_session"))).status).toBe(
        401,
      );
    }
  });

  it("creates, renames and deletes agents with the spec's rules", async () => {
    const created = await req("POST", "/api/admin/agents", { Name: "dmz" }, adminCookie);
    expect(created.status).toBe(201);
    const agent = created.body as { ID: string; Token: string; InstallCommand: string };
    expect(agent.InstallCommand).toContain(agent.Token);
    expect(await req("POST", "/api/admin/agents", { Name: "dmz" }, adminCookie)).toMatchObject({
      status: 409,
      body: { Err: "An agent with that name already exists" },
    });
    expect(
      (await req("PUT", `/api/admin/agents/${agent.ID}`, { ID: agent.ID, Name: "dmz-2" }, adminCookie)).body,
    ).toMatchObject({ Name: "dmz-2" });
    expect(
      await req("PUT", `/api/admin/agents/${agent.ID}`, { ID: seed.agentId, Name: "x" }, adminCookie),
    ).toMatchObject({ status: 400, body: { Err: "Mismatching IDs" } });
    expect(await req("DELETE", `/api/admin/agents/${seed.agentId}`, undefined, adminCookie)).toMatchObject({
      status: 409,
      body: { Err: "Please detach all backends from this agent before deleting it" },
    });
    expect((await req("DELETE", `/api/admin/agents/${agent.ID}`, undefined, adminCookie)).status).toBe(204);
    const list = (await req("GET", "/api/admin/agents", undefined, adminCookie)).body as {
      Name: string;
      Backends: unknown[];
    }[];
    expect(list.map((a) => a.Name)).toEqual(["edge"]);
    expect(list[0]?.Backends).toHaveLength(1);
  });

  it("validates backends: agent required and connected, ipset capability, type locked", async () => {
    const fresh = (await req("POST", "/api/admin/agents", { Name: "new" }, adminCookie)).body as { ID: string };
    const body = (agentId: string, config: unknown) => ({ Name: "b2", AgentID: agentId, Config: config });
    expect(
      await req(
        "POST",
        "/api/admin/backends",
        body("11111111-1111-1111-1111-111111111111", { ipset: {} }),
        adminCookie,
      ),
    ).toMatchObject({ status: 400, body: { Err: "err.invalidAgentId" } });
    expect(await req("POST", "/api/admin/backends", body(fresh.ID, { ipset: {} }), adminCookie)).toMatchObject({
      status: 400,
      body: { Err: "err.agentNeverConnected" },
    });
    expect(await req("POST", "/api/admin/backends", body(seed.agentId, { ipset: {} }), adminCookie)).toMatchObject({
      status: 400,
      body: { Err: "err.ipsetNoCommand" },
    });
    expect(
      (
        await req(
          "POST",
          "/api/admin/backends",
          body(seed.agentId, { haproxy: { Protocol: "udp", Address: "x" } }),
          adminCookie,
        )
      ).status,
    ).toBe(400);
    expect(
      await req("PUT", `/api/admin/backends/${seed.backendId}`, body(seed.agentId, { ipset: {} }), adminCookie),
    ).toMatchObject({ status: 400, body: { Err: "Cannot change backend type" } });
    const ok = await req(
      "POST",
      "/api/admin/backends",
      body(seed.agentId, { haproxy: { Protocol: "tcp", Address: "127.0.0.1:9999" } }),
      adminCookie,
    );
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ ID: expect.any(String) });
  });

  it("validates ACLs: backend first, haproxy ID, grant duration bounds; create answers the id", async () => {
    const base = { Description: "Wiki", BackendID: seed.backendId, Config: { haproxy: { ID: 7 } } };
    expect(await req("POST", "/api/admin/acls", { ...base, Config: {} }, adminCookie)).toMatchObject({
      status: 400,
      body: { Err: "err.aclIdRequired" },
    });
    expect(
      await req("POST", "/api/admin/acls", { ...base, BackendID: "11111111-1111-1111-1111-111111111111" }, adminCookie),
    ).toMatchObject({ status: 400, body: { Err: "err.noBackendSelected" } });
    expect(await req("POST", "/api/admin/acls", { ...base, MaximumGrantDuration: 60 }, adminCookie)).toMatchObject({
      status: 400,
      body: { Err: "The maximum grant duration for the ACL is invalid" },
    });
    expect((await req("POST", "/api/admin/acls", { ...base, Description: "" }, adminCookie)).status).toBe(400);
    expect(await req("POST", "/api/admin/acls", { ...base, MaximumGrantDuration: 301 }, adminCookie)).toMatchObject({
      status: 400,
      body: { Err: "The maximum grant duration for the ACL is invalid" },
    });
    const range = (Start: string, End: string) => ({
      ...base,
      IpExclusions: { RestrictionType: "allowList", Ranges: [{ Start, End }] },
    });
    for (const [a, b] of [
      ["10.0.0.1", ""],
      ["10.0.0.01", "10.0.0.9"],
      ["10.0.0.9", "10.0.0.1"],
      ["256.0.0.1", "256.0.0.2"],
    ] as const) {
      expect(await req("POST", "/api/admin/acls", range(a, b), adminCookie)).toMatchObject({
        status: 400,
        body: { Err: "Invalid IP address" },
      });
    }
    expect(
      await req(
        "POST",
        "/api/admin/acls",
        { ...base, GrantType: { Type: "specifiedIps", Ips: [{ Ip: "not-an-ip" }] } },
        adminCookie,
      ),
    ).toMatchObject({ status: 400, body: { Err: "Invalid IP address" } });
    expect(
      await req("POST", "/api/admin/acls", { ...base, GrantType: { Type: "specifiedIps", Ips: [] } }, adminCookie),
    ).toMatchObject({ status: 400, body: { Err: "Invalid IP address" } });
    const created = await req("POST", "/api/admin/acls", { ...base, MaximumGrantDuration: 300 }, adminCookie);
    expect(created.status).toBe(201);
    expect(typeof created.body).toBe("string");
    const acl = (await req("GET", `/api/admin/acls/${created.body as string}`, undefined, adminCookie)).body;
    expect(acl).toMatchObject({
      Description: "Wiki",
      MaximumGrantDuration: 300,
      Category: "Default",
      BackendName: "proxy",
    });
  });

  it("validates users: password length and confirmation, unique and fixed user names", async () => {
    const user = {
      Name: "Bob",
      UserName: "bob",
      PlainPassword: "bob-password",
      ConfirmPassword: "bob-password",
      AclIds: [seed.aclId],
    };
    expect(
      await req("POST", "/api/admin/users", { ...user, PlainPassword: "short", ConfirmPassword: "short" }, adminCookie),
    ).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    expect(
      await req("POST", "/api/admin/users", { ...user, ConfirmPassword: "other-password" }, adminCookie),
    ).toMatchObject({ status: 400, body: { Err: "err.passwordsDontMatch" } });
    expect((await req("POST", "/api/admin/users", { ...user, Duration: 1e12 }, adminCookie)).status).toBe(400);
    expect((await req("POST", "/api/admin/users", { ...user, ValidUntil: "garbage" }, adminCookie)).status).toBe(400);
    const created = await req("POST", "/api/admin/users", user, adminCookie);
    expect(created.status).toBe(201);
    expect((await req("POST", "/api/admin/users", user, adminCookie)).status).toBe(409);
    const id = created.body as string;
    expect(await req("PUT", `/api/admin/users/${id}`, { ...user, UserName: "robert" }, adminCookie)).toMatchObject({
      status: 400,
      body: { Err: "Cannot change username" },
    });
    const read = (await req("GET", `/api/admin/users/${id}`, undefined, adminCookie)).body;
    expect(read).toMatchObject({ UserName: "bob", Duration: 480, AclIds: [seed.aclId], AuthType: "local" });
    expect(JSON.stringify(read)).not.toContain("password");
  });

  it("reads one agent, and 404 for an unknown id", async () => {
    const read = await req("GET", `/api/admin/agents/${seed.agentId}`, undefined, adminCookie);
    expect(read).toMatchObject({ status: 200, body: { ID: seed.agentId, Name: "edge", Version: "1.9.0", Token: "" } });
    expect(
      await req("GET", "/api/admin/agents/11111111-1111-1111-1111-111111111111", undefined, adminCookie),
    ).toMatchObject({ status: 404, body: { Err: "Not found" } });
  });

  it("deletes a user, ending their sessions and grants; 404 for an unknown id", async () => {
    const cookie = cookieOf(
      (await req("POST", "/api/login", { UserName: "alice", Password: "alice-password" })).setCookie,
    );
    await req("POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, cookie);
    h.channel.take();
    expect((await req("DELETE", `/api/admin/users/${seed.userId}`, undefined, adminCookie)).status).toBe(204);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect((await req("GET", "/api/status", undefined, cookie)).status).toBe(401);
    expect(await req("DELETE", `/api/admin/users/${seed.userId}`, undefined, adminCookie)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
  });

  it("signs an admin out: the cookie no longer works", async () => {
    expect((await req("POST", "/api/admin/logout", undefined, adminCookie)).status).toBe(204);
    expect(await req("GET", "/api/admin/agents", undefined, adminCookie)).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect((await req("POST", "/api/admin/logout", undefined, adminCookie)).status).toBe(401);
  });

  it("generates the admin SAML key pair separately from the users'", async () => {
    const r = await req("POST", "/api/admin/settings/generateAdminSamlKeyCert", undefined, adminCookie);
    expect(r.status).toBe(200);
    expect((r.body as { Cert: string }).Cert).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect((await req("GET", "/api/admin/settings/authentication", undefined, adminCookie)).body).toMatchObject({
      AdminSAMLKeyFileSet: true,
      AdminSAMLCertFileSet: true,
      SAMLKeyFileSet: false,
    });
  });
});

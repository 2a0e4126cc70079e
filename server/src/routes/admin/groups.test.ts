import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { Op } from "@postern/shared";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";

const { auditLog, grants } = testTables;

let h: Harness;
let seed: Seeded;
let admin = "";
/** A second ACL (haproxy ID 2) on the seeded backend; alice does not have it directly. */
let acl2 = "";
let bob = "";
let carol = "";
const actor = { adminName: "test-admin", ip: "127.0.0.1" };
const UNKNOWN = "11111111-1111-1111-1111-111111111111";

const req = (method: string, path: string, body?: unknown, cookie = admin) =>
  apiRequest(h, method, path, body, { cookie });
const aclIdOf = (op: Op) => ("haproxy" in op.target.acl ? op.target.acl.haproxy.ID : -1);

async function createUser(userName: string, authType: "local" | "SAML", aclIds: string[] = []): Promise<string> {
  return h.services.users.create(
    {
      Name: userName,
      UserName: userName,
      Company: "",
      Duration: 480,
      SessionLimit: null,
      AuthType: authType,
      ...(authType === "local"
        ? { PlainPassword: `${userName}-password`, ConfirmPassword: `${userName}-password` }
        : {}),
      TOTPEnabled: false,
      ValidUntil: null,
      ThirdPartyAuth: { DN: "" },
      AclIds: aclIds,
    },
    actor,
  );
}

/** Signs alice in and grants `aclId`; returns her cookie. The add op is taken from the channel. */
async function aliceGrants(aclId: string): Promise<string> {
  const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
  expect(login.status).toBe(200);
  const cookie = login.setCookie.split(";")[0] ?? "";
  expect((await apiRequest(h, "POST", "/api/grant", { ACLID: aclId, IPs: [] }, { cookie })).status).toBe(200);
  expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5" })]);
  return cookie;
}

async function grantStatus(aclId: string): Promise<number | undefined> {
  return (await h.services.db.select().from(grants).where(eq(grants.aclId, aclId)).limit(1))[0]?.status;
}

async function audited(action: string): Promise<string[]> {
  return (await h.services.db.select().from(auditLog).where(eq(auditLog.action, action))).map((r) => r.description);
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  admin = await signInAdmin(h);
  const base = await h.services.acls.get(seed.aclId);
  acl2 = await h.services.acls.create(
    {
      Description: "Wiki",
      URL: "",
      Category: "Default",
      Icon: "",
      ClickToGrant: true,
      CGNATOpen: false,
      HideFromUsers: false,
      HideFromAdmins: false,
      AutoBrowseUsers: false,
      MaximumGrantDuration: null,
      BackendID: seed.backendId,
      ParentID: base.ParentID,
      IpExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
      GrantType: { Type: "userIp", Ips: [] },
      Config: { UriToken: "", haproxy: { ID: 2 } },
    },
    actor,
  );
  bob = await createUser("bob", "local");
  carol = await createUser("carol", "SAML");
  h.channel.take();
});
afterEach(async () => {
  await h.close();
});

describe("groups CRUD", () => {
  it("creates, reads, lists, updates and deletes a group, with audit entries", async () => {
    const created = await req("POST", "/api/admin/groups", {
      Name: "Ops",
      Description: "Operations",
      Type: "LOCAL",
      ACLIDs: [acl2],
      UserIDs: [seed.userId, bob],
    });
    expect(created.status).toBe(201);
    const id = created.body as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await req("GET", `/api/admin/groups/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      ID: id,
      Name: "Ops",
      Description: "Operations",
      Type: "local",
      ACLIDs: [acl2],
      UserIDs: expect.arrayContaining([seed.userId, bob]) as unknown,
      UserCount: 2,
      KnocCount: 1,
      CreatedAt: expect.stringMatching(/Z$/) as unknown,
    });
    await req("POST", "/api/admin/groups", { Name: "Audit", Type: "dynamic" });
    const list = await req("GET", "/api/admin/groups");
    expect(list.status).toBe(200);
    expect((list.body as { Name: string }[]).map((g) => g.Name)).toEqual(["Audit", "Ops"]);

    const updated = await req("PUT", `/api/admin/groups/${id}`, {
      ID: id,
      Name: "Operations",
      Description: "",
      Type: "local",
      ACLIDs: [acl2, seed.aclId],
      UserIDs: [bob],
    });
    expect(updated).toMatchObject({ status: 200, body: id });
    expect((await req("GET", `/api/admin/groups/${id}`)).body).toMatchObject({
      Name: "Operations",
      UserIDs: [bob],
      UserCount: 1,
      KnocCount: 2,
    });

    expect((await req("DELETE", `/api/admin/groups/${id}`)).status).toBe(204);
    expect(await req("GET", `/api/admin/groups/${id}`)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await audited("groupCreated")).toEqual(["Ops", "Audit"]);
    expect(await audited("groupUpdated")).toEqual(["Operations"]);
    expect(await audited("groupDeleted")).toEqual(["Operations"]);
  });

  it("refuses invalid bodies with the exact errors and changes nothing", async () => {
    const post = (body: unknown) => req("POST", "/api/admin/groups", body);
    expect(await post("{nope")).toMatchObject({ status: 400, body: { Err: "Failed decoding request body" } });
    expect(await post({ Type: "local" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Name: /) as unknown },
    });
    expect(await post({ Name: "  ", Type: "local" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Name: /) as unknown },
    });
    expect(await post({ Name: "X" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Type: /) as unknown },
    });
    expect(await post({ Name: "X", Type: "team" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Type: /) as unknown },
    });
    expect(await post({ Name: "X", Type: "local", ACLIDs: ["nope"] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "ACLIDs.0: Invalid ID" },
    });
    expect(await post({ Name: "X", Type: "local", UserIDs: ["nope"] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "UserIDs.0: Invalid ID" },
    });
    expect(await post({ Name: "X", Type: "local", ACLIDs: [UNKNOWN] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: `ACLIDs: unknown ACL ${UNKNOWN}` },
    });
    expect(await post({ Name: "X", Type: "local", UserIDs: [UNKNOWN] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: `UserIDs: unknown user ${UNKNOWN}` },
    });
    expect(await post({ Name: "X", Type: "local", UserIDs: [seed.userId, carol] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "UserIDs: SAML users cannot be members of a local group" },
    });
    expect(await post({ Name: "X", Type: "dynamic", UserIDs: [carol] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "UserIDs: SAML users cannot be members of a dynamic group" },
    });
    expect((await req("GET", "/api/admin/groups")).body).toEqual([]);
    expect(await post({ Name: "X", Type: "local" })).toMatchObject({ status: 201 });
    expect(await post({ Name: "X", Type: "saml" })).toMatchObject({
      status: 409,
      body: { Err: "A group with that name already exists" },
    });
    expect(await audited("groupCreated")).toEqual(["X"]);
  });

  it("refuses type changes, name clashes, mismatching and unknown ids on update and delete", async () => {
    const id = (await req("POST", "/api/admin/groups", { Name: "A", Type: "local" })).body as string;
    await req("POST", "/api/admin/groups", { Name: "B", Type: "local" });
    const put = (body: unknown, target = id) => req("PUT", `/api/admin/groups/${target}`, body);
    expect(await put({ Name: "A", Type: "saml" })).toMatchObject({
      status: 400,
      body: { Err: "Cannot change group type" },
    });
    expect(await put({ Name: "B", Type: "local" })).toMatchObject({
      status: 409,
      body: { Err: "A group with that name already exists" },
    });
    expect(await put({ ID: UNKNOWN, Name: "A", Type: "local" })).toMatchObject({
      status: 400,
      body: { Err: "Mismatching IDs" },
    });
    expect(await put({ Name: "A", Type: "local" }, UNKNOWN)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await put({ Name: "A", Type: "local", UserIDs: [carol] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request" },
    });
    expect(await put({ Name: "A", Type: "local", ACLIDs: [UNKNOWN] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request" },
    });
    expect(await put({ Name: "A", Type: "Local", Description: "same type, other case" })).toMatchObject({
      status: 200,
    });
    expect(await req("DELETE", `/api/admin/groups/${UNKNOWN}`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect(await req("GET", `/api/admin/groups/${UNKNOWN}`)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await audited("groupUpdated")).toEqual(["A"]);
  });

  it("keeps a saml group's members out of the admin's hands", async () => {
    const id = (await req("POST", "/api/admin/groups", { Name: "IdP", Type: "saml", UserIDs: [seed.userId] }))
      .body as string;
    expect((await req("GET", `/api/admin/groups/${id}`)).body).toMatchObject({
      Type: "saml",
      UserIDs: [],
      UserCount: 0,
    });
    expect(
      (await req("PUT", `/api/admin/groups/${id}`, { Name: "IdP", Type: "saml", UserIDs: [carol], ACLIDs: [acl2] }))
        .status,
    ).toBe(200);
    expect((await req("GET", `/api/admin/groups/${id}`)).body).toMatchObject({ UserIDs: [], ACLIDs: [acl2] });
  });

  it("requires an admin session", async () => {
    expect(await req("GET", "/api/admin/groups", undefined, "")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect(await req("POST", "/api/admin/groups", { Name: "X", Type: "local" }, "")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });
});

describe("group changes and grants", () => {
  async function groupWithAcl2(name = "Ops", users = [seed.userId]): Promise<string> {
    const r = await req("POST", "/api/admin/groups", { Name: name, Type: "local", ACLIDs: [acl2], UserIDs: users });
    expect(r.status).toBe(201);
    return r.body as string;
  }

  it("revokes the grant when the group loses the ACL", async () => {
    const id = await groupWithAcl2();
    await aliceGrants(acl2);
    expect(
      (await req("PUT", `/api/admin/groups/${id}`, { Name: "Ops", Type: "local", ACLIDs: [], UserIDs: [seed.userId] }))
        .status,
    ).toBe(200);
    const ops = h.channel.take();
    expect(ops).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect(aclIdOf(ops[0]!)).toBe(2);
    expect(await grantStatus(acl2)).toBe(8);
  });

  it("revokes the grant when the user leaves the group", async () => {
    const id = await groupWithAcl2();
    await aliceGrants(acl2);
    expect(
      (await req("PUT", `/api/admin/groups/${id}`, { Name: "Ops", Type: "local", ACLIDs: [acl2], UserIDs: [bob] }))
        .status,
    ).toBe(200);
    const ops = h.channel.take();
    expect(ops.map((o) => [o.op, aclIdOf(o)])).toEqual([["del", 2]]);
  });

  it("revokes the grant when the group is deleted, and refuses to grant it again", async () => {
    const id = await groupWithAcl2();
    const cookie = await aliceGrants(acl2);
    expect((await req("DELETE", `/api/admin/groups/${id}`)).status).toBe(204);
    expect(h.channel.take().map((o) => [o.op, aclIdOf(o)])).toEqual([["del", 2]]);
    expect((await apiRequest(h, "POST", "/api/grant", { ACLID: acl2, IPs: [] }, { cookie })).status).toBe(403);
  });

  it("revokes nothing while a direct assignment still grants the ACL", async () => {
    const id = await groupWithAcl2();
    await aliceGrants(acl2);
    const u = (await req("GET", `/api/admin/users/${seed.userId}`)).body as Record<string, unknown>;
    expect((await req("PUT", `/api/admin/users/${seed.userId}`, { ...u, AclIds: [seed.aclId, acl2] })).status).toBe(
      200,
    );
    expect((await req("DELETE", `/api/admin/groups/${id}`)).status).toBe(204);
    expect(h.channel.take()).toEqual([]);
    expect(await grantStatus(acl2)).not.toBe(8);
  });

  it("revokes nothing while a second group still grants the ACL", async () => {
    const id = await groupWithAcl2("Ops");
    await groupWithAcl2("Also");
    await aliceGrants(acl2);
    expect(
      (await req("PUT", `/api/admin/groups/${id}`, { Name: "Ops", Type: "local", ACLIDs: [], UserIDs: [] })).status,
    ).toBe(200);
    expect(h.channel.take()).toEqual([]);
  });

  it("revokes nothing when a change only adds", async () => {
    const id = await groupWithAcl2();
    await aliceGrants(acl2);
    expect(
      (
        await req("PUT", `/api/admin/groups/${id}`, {
          Name: "Ops",
          Type: "local",
          ACLIDs: [acl2, seed.aclId],
          UserIDs: [seed.userId, bob],
        })
      ).status,
    ).toBe(200);
    expect(h.channel.take()).toEqual([]);
    expect(await grantStatus(acl2)).toBe(2);
  });

  it("keeps other users' grants on the ACL", async () => {
    const id = await groupWithAcl2("Ops", [seed.userId, bob]);
    await aliceGrants(acl2);
    const login = await apiRequest(
      h,
      "POST",
      "/api/login",
      { UserName: "bob", Password: "bob-password" },
      { from: "198.51.100.7" },
    );
    const bobCookie = login.setCookie.split(";")[0] ?? "";
    expect(
      (await apiRequest(h, "POST", "/api/grant", { ACLID: acl2, IPs: [] }, { cookie: bobCookie, from: "198.51.100.7" }))
        .status,
    ).toBe(200);
    h.channel.take();
    expect(
      (await req("PUT", `/api/admin/groups/${id}`, { Name: "Ops", Type: "local", ACLIDs: [acl2], UserIDs: [bob] }))
        .status,
    ).toBe(200);
    expect(h.channel.take().map((o) => [o.op, o.ip])).toEqual([["del", "203.0.113.5"]]);
  });
});

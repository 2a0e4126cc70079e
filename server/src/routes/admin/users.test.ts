import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { licenseHarness } from "../../testing/licences.ts";
import { testTables } from "../../testing/database.ts";

const { users } = testTables;

let h: Harness;
let seed: Seeded;
let cookie: string;

const req = (method: string, path: string, body?: unknown) => apiRequest(h, method, path, body, { cookie });
const userCount = async () => (await h.services.db.select().from(users)).length;
const userRow = async (userName: string) =>
  (await h.services.db.select().from(users).where(eq(users.userName, userName)).limit(1))[0];

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  cookie = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

describe("SAML users made through the admin API (admin-console §5 User, §9)", () => {
  it("count against the user limit and are refused at limit + overage like any user", async () => {
    // UserLimit 2 + 50 % → 1 more: three users may exist; seedLoop made alice.
    await licenseHarness(h, { UserLimit: 2, UserLimitOverage: 50 });
    const saml = (n: number) => ({ Name: `Sam ${n}`, UserName: `sam${n}@idp.example`, AuthType: "SAML" });
    expect((await req("POST", "/api/admin/users", saml(1))).status).toBe(201);
    expect((await req("POST", "/api/admin/users", saml(2))).status).toBe(201);
    expect(await userCount()).toBe(3);
    expect(await req("POST", "/api/admin/users", saml(3))).toMatchObject({
      status: 403,
      body: { Err: "err.userLimitReached" },
    });
    expect(await userRow("sam3@idp.example")).toBeUndefined();
    expect(await userCount()).toBe(3);
  });

  it("cannot be edited: PUT answers a clear error and changes nothing", async () => {
    const created = await req("POST", "/api/admin/users", {
      Name: "Sam",
      UserName: "sam@idp.example",
      AuthType: "SAML",
    });
    const id = created.body as string;
    const before = await userRow("sam@idp.example");
    const user = (await req("GET", `/api/admin/users/${id}`)).body as Record<string, unknown>;
    expect(await req("PUT", `/api/admin/users/${id}`, { ...user, Name: "Renamed", AclIds: [seed.aclId] })).toEqual(
      expect.objectContaining({
        status: 400,
        body: { Err: "SAML users cannot be edited: the identity provider manages them" },
      }),
    );
    expect(
      await req("PUT", `/api/admin/users/${id}`, { ...user, AuthType: "local", PlainPassword: "pw-12345678" }),
    ).toMatchObject({ status: 400, body: { Err: "SAML users cannot be edited: the identity provider manages them" } });
    expect(await userRow("sam@idp.example")).toEqual(before);
    expect((await req("GET", `/api/admin/users/${id}/acls`)).body).toEqual([]);
    // Deleting stays possible.
    expect((await req("DELETE", `/api/admin/users/${id}`)).status).toBe(204);
  });
});

describe("user validation (admin-console §5 User)", () => {
  it("a local user needs ConfirmPassword on create", async () => {
    const local = { Name: "Bob", UserName: "bob", AuthType: "local", PlainPassword: "bob-password-1" };
    expect(await req("POST", "/api/admin/users", local)).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "ConfirmPassword: required" },
    });
    expect(await req("POST", "/api/admin/users", { ...local, ConfirmPassword: "other-password" })).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await userRow("bob")).toBeUndefined();
    expect((await req("POST", "/api/admin/users", { ...local, ConfirmPassword: "bob-password-1" })).status).toBe(201);
  });

  it("an LDAP user needs a DN on create and on update", async () => {
    const ldap = { Name: "Lee", UserName: "lee", AuthType: "LDAP", ThirdPartyAuth: { DN: "  " } };
    expect(await req("POST", "/api/admin/users", ldap)).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "ThirdPartyAuth.DN: required" },
    });
    const id = (await req("POST", "/api/admin/users", { ...ldap, ThirdPartyAuth: { DN: "uid=lee,dc=example" } }))
      .body as string;
    const user = (await req("GET", `/api/admin/users/${id}`)).body as Record<string, unknown>;
    expect(await req("PUT", `/api/admin/users/${id}`, { ...user, ThirdPartyAuth: { DN: "" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "ThirdPartyAuth.DN: required" },
    });
    // Turning a local user into an LDAP one without a DN is refused too.
    const alice = (await req("GET", `/api/admin/users/${seed.userId}`)).body as Record<string, unknown>;
    expect(await req("PUT", `/api/admin/users/${seed.userId}`, { ...alice, AuthType: "LDAP" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "ThirdPartyAuth.DN: required" },
    });
    expect((await userRow("lee"))?.dn).toBe("uid=lee,dc=example");
    expect((await userRow("alice"))?.authType).toBe("local");
  });
});

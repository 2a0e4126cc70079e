import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { ApiKeySchema, UserCreatedWithKeySchema, UserWriteSchema } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { installTestLicence } from "../../testing/licences.ts";

const { apiKeys, auditLog, users } = testTables;

const DAY = 86_400_000;
let h: Harness;
let seed: Seeded;
let admin = "";

const post = (body: unknown) => apiRequest(h, "POST", "/api/admin/users", body, { cookie: admin });
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const userNames = async () => (await h.services.db.select().from(users)).map((u) => u.userName).sort();
const keyNames = async () => (await h.services.db.select().from(apiKeys)).map((k) => k.name).sort();
const inMonths = (m: number) => new Date(h.clock.now() + m * 30 * DAY).toISOString();
/** An API-key user as the console's wizard sends it, with the key to create now. */
const robot = (key: unknown, over: Record<string, unknown> = {}) => ({
  Name: "Robot",
  UserName: "robot",
  AuthType: "apikey",
  AclIds: [seed.aclId],
  ApiKey: key,
  ...over,
});

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h, { clickToGrant: false });
  admin = await signInAdmin(h);
  h.clock.advance(1); // after alice in creation order (licences admit users in that order)
});
afterEach(async () => {
  await h.close();
});

describe("POST /api/admin/users with ApiKey (create the key now)", () => {
  it("creates the user and its key (scope user.auth:{id}) in one go; the plaintext key once; it signs in", async () => {
    const expires = inMonths(12);
    const r = await post(robot({ Name: " robot key ", ExpiredAfter: expires }));
    expect(r.status).toBe(201);
    const created = UserCreatedWithKeySchema.parse(r.body);
    expect(created.ApiKey).toEqual({
      ID: expect.any(String),
      Name: "robot key",
      Resources: ["robot"],
      Scopes: [`user.auth:${created.ID}`],
      AllowedFrom: [
        { Prefix: "0.0.0.0/0", Note: "" },
        { Prefix: "::/0", Note: "" },
      ],
      ExpiredAfter: new Date(expires).toISOString(),
      CreatedAt: expect.any(String),
      LastUsedAt: null,
      PlaintextKey: expect.stringMatching(/^pst_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/),
    });
    expect(
      (await apiRequest(h, "GET", `/api/admin/users/${created.ID}`, undefined, { cookie: admin })).body,
    ).toMatchObject({ UserName: "robot", AuthType: "apikey", AclIds: [seed.aclId] });
    // Reads never show the plaintext again.
    const read = ApiKeySchema.parse(
      (await apiRequest(h, "GET", `/api/admin/api-keys/${created.ApiKey.ID}`, undefined, { cookie: admin })).body,
    );
    expect(read.PlaintextKey).toBeUndefined();
    expect((await audits("userCreated")).at(-1)).toMatchObject({ userName: "robot", adminName: "root" });
    expect((await audits("apiKeyCreated")).map((a) => a.description)).toEqual([
      `API key "robot key" (scopes: user.auth:${created.ID})`,
    ]);
    const signIn = await apiRequest(h, "POST", "/api/v1/user_sessions", undefined, {
      headers: { authorization: `Bearer ${created.ApiKey.PlaintextKey!}` },
    });
    expect(signIn).toMatchObject({ status: 201, body: { Status: { Name: "Robot" } } });
  });

  it("takes ExpiredAfter null (never) and an AllowedFrom list", async () => {
    const r = await post(
      robot({ Name: "k", ExpiredAfter: null, AllowedFrom: [{ Prefix: "192.0.2.0/24", Note: "office" }] }),
    );
    expect(r).toMatchObject({
      status: 201,
      body: { ApiKey: { ExpiredAfter: null, AllowedFrom: [{ Prefix: "192.0.2.0/24", Note: "office" }] } },
    });
    const key = UserCreatedWithKeySchema.parse(r.body).ApiKey.PlaintextKey!;
    const from = (ip: string) =>
      apiRequest(h, "POST", "/api/v1/user_sessions", undefined, {
        headers: { authorization: `Bearer ${key}` },
        from: ip,
      });
    expect((await from("192.0.2.9")).status).toBe(201);
    expect((await from("203.0.113.5")).status).toBe(403);
  });

  it("requires the key's Name and ExpiredAfter, checks them, and creates nothing on a refusal", async () => {
    const refusals: [unknown, number, { Err: string; Extra?: unknown }][] = [
      [{ ExpiredAfter: null }, 400, { Err: "Bad request", Extra: expect.stringMatching(/^ApiKey\.Name: /) }],
      [{ Name: "  ", ExpiredAfter: null }, 400, { Err: "Bad request", Extra: "ApiKey.Name: Name is required" }],
      [
        { Name: "x".repeat(129), ExpiredAfter: null },
        400,
        { Err: "Bad request", Extra: expect.stringMatching(/^ApiKey\.Name: /) },
      ],
      [
        { Name: "k" },
        400,
        { Err: "Bad request", Extra: "ApiKey.ExpiredAfter: required: an ISO 8601 time, or null for never" },
      ],
      [
        { Name: "k", ExpiredAfter: "in a year" },
        400,
        { Err: "Bad request", Extra: expect.stringMatching(/^ApiKey\.ExpiredAfter: /) },
      ],
      [
        { Name: "k", ExpiredAfter: new Date(h.clock.now() - DAY).toISOString() },
        400,
        { Err: "Bad request", Extra: "ApiKey.ExpiredAfter: must be in the future (or null for never)" },
      ],
      [
        { Name: "k", ExpiredAfter: null, AllowedFrom: [{ Prefix: "192.0.2.300/24" }] },
        400,
        { Err: "err.invalidCidr", Extra: "ApiKey.AllowedFrom.0.Prefix" },
      ],
      [
        { Name: "k", ExpiredAfter: null, AllowedFrom: [] },
        400,
        { Err: "Bad request", Extra: expect.stringMatching(/^ApiKey\.AllowedFrom: /) },
      ],
      ["k", 400, { Err: "Bad request", Extra: expect.stringMatching(/^ApiKey: /) }],
    ];
    for (const [key, status, body] of refusals) {
      expect(await post(robot(key)), JSON.stringify(key)).toMatchObject({ status, body });
    }
    expect(await userNames()).toEqual(["alice"]);
    expect(await keyNames()).toEqual([]);
    expect(await audits("userCreated")).toHaveLength(1); // alice, by the seed
  });

  it("a taken key name is 409 and rolls the user back", async () => {
    await h.services.apiKeys.create(
      { Name: "taken", Scopes: [], ExpiredAfter: null },
      { adminName: "root", ip: "127.0.0.1" },
    );
    expect(await post(robot({ Name: "taken", ExpiredAfter: null }))).toMatchObject({
      status: 409,
      body: { Err: "An API key with that name already exists" },
    });
    expect(await userNames()).toEqual(["alice"]);
    expect(await keyNames()).toEqual(["taken"]);
    expect((await audits("userCreated")).map((a) => a.userName)).toEqual(["alice"]);
    // The user's own rules still come first: a taken user name is 409 and no key is made.
    expect(await post(robot({ Name: "fresh", ExpiredAfter: null }, { UserName: "alice" }))).toMatchObject({
      status: 409,
      body: { Err: "A user with that username already exists" },
    });
    expect(await keyNames()).toEqual(["taken"]);
  });

  it("the user limit refuses the user and its key together", async () => {
    await installTestLicence(h, { UserLimit: 1, UserLimitOverage: 0 });
    expect(await post(robot({ Name: "k", ExpiredAfter: null }))).toMatchObject({
      status: 403,
      body: { Err: "err.userLimitReached" },
    });
    expect(await userNames()).toEqual(["alice"]);
    expect(await keyNames()).toEqual([]);
  });

  it("ApiKey is for API-key users on create only", async () => {
    for (const AuthType of ["local", "LDAP", "SAML"]) {
      const r = await post(
        robot(
          { Name: "k", ExpiredAfter: null },
          {
            AuthType,
            PlainPassword: "robot-password",
            ConfirmPassword: "robot-password",
            ThirdPartyAuth: { DN: "cn=robot" },
          },
        ),
      );
      expect(r, AuthType).toMatchObject({
        status: 400,
        body: { Err: "Bad request", Extra: "ApiKey: only API-key users (AuthType apikey) have a key" },
      });
    }
    expect(await userNames()).toEqual(["alice"]);
    const later = await post(robot(undefined));
    expect(later.status).toBe(201);
    expect(typeof later.body).toBe("string");
    const id = later.body as string;
    const put = await apiRequest(h, "PUT", `/api/admin/users/${id}`, robot({ Name: "k", ExpiredAfter: null }), {
      cookie: admin,
    });
    expect(put).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^ApiKey: only on create/) },
    });
    expect(await keyNames()).toEqual([]);
    // A direct call without the key's creator is a programming error, not a silent drop.
    await expect(
      h.services.users.create(UserWriteSchema.parse(robot({ Name: "k", ExpiredAfter: null }, { UserName: "robot2" })), {
        adminName: "x",
        ip: "",
      }),
    ).rejects.toThrow(/ApiKeyUserService/);
  });

  it("creating the key later: POST /admin/api-keys with the scope user.auth:{id}", async () => {
    const id = (await post(robot(undefined))).body as string;
    const r = await apiRequest(
      h,
      "POST",
      "/api/admin/api-keys",
      { Name: "later", Scopes: [`user.auth:${id}`], ExpiredAfter: inMonths(24) },
      { cookie: admin },
    );
    expect(r).toMatchObject({ status: 201, body: { Resources: ["robot"], Scopes: [`user.auth:${id}`] } });
    const key = ApiKeySchema.parse(r.body).PlaintextKey!;
    expect(
      (await apiRequest(h, "POST", "/api/v1/user_sessions", undefined, { headers: { authorization: `Bearer ${key}` } }))
        .status,
    ).toBe(201);
    // The scope needs an API-key user.
    expect(
      await apiRequest(
        h,
        "POST",
        "/api/admin/api-keys",
        { Name: "alice's", Scopes: [`user.auth:${seed.userId}`], ExpiredAfter: null },
        { cookie: admin },
      ),
    ).toMatchObject({ status: 400, body: { Err: "Bad request" } });
  });
});

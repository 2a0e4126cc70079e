import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { ApiKeyUserSessionSchema, UserWriteSchema } from "@postern/shared";
import type { UserApiKey, UserWrite } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, unfoldAudits } from "../../testing/harness.ts";
import type { ApiResult, Harness, Seeded } from "../../testing/harness.ts";
import { installTestLicence } from "../../testing/licences.ts";

const { auditLog, users, userSessions } = testTables;

const actor = { adminName: "setup", ip: "127.0.0.1" };
const ROBOT_IP = "198.51.100.20";
let h: Harness;
let seed: Seeded;
/** The API-key user "robot" (assigned to the seeded ACL, which grants at sign-in) and its key. */
let robot = { id: "", key: "" };

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
/** One call; each refusal is audited on its own (folding is unfolded after every call, see unfoldAudits). */
const call = async (
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; from?: string; body?: unknown } = {},
) => {
  const r = await apiRequest(h, method, `/api/v1/user_sessions${path}`, opts.body, {
    headers: opts.headers ?? {},
    from: opts.from ?? ROBOT_IP,
  });
  await unfoldAudits(h);
  return r;
};
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));

/** Creates an API-key user with a key (the admin path); returns the id and the plaintext key. */
async function apiKeyUser(
  userName: string,
  over: Partial<UserWrite> = {},
  key: Partial<UserApiKey> = {},
): Promise<{ id: string; key: string }> {
  h.clock.advance(1); // licences admit users in creation order: keep it unambiguous
  const input = UserWriteSchema.parse({
    Name: userName.toUpperCase(),
    UserName: userName,
    AuthType: "apikey",
    AclIds: [seed.aclId],
    ...over,
  });
  const created = await h.services.apiKeyUsers.createUser(
    input,
    { Name: `${userName} key`, ExpiredAfter: null, ...key },
    actor,
  );
  return { id: created.ID, key: created.ApiKey.PlaintextKey! };
}
/** Creates another key with `scopes` through the admin API-key service. */
async function extraKey(
  name: string,
  scopes: string[],
  more: { ExpiredAfter?: string | null; AllowedFrom?: { Prefix: string; Note: string }[] } = {},
): Promise<string> {
  return (
    await h.services.apiKeys.create(
      {
        Name: name,
        Scopes: scopes,
        ExpiredAfter: more.ExpiredAfter ?? null,
        ...(more.AllowedFrom ? { AllowedFrom: more.AllowedFrom } : {}),
      },
      actor,
    )
  ).PlaintextKey!;
}
function expectChallenge(r: ApiResult): void {
  expect(r).toMatchObject({ status: 401, body: { Err: "Unauthorised" } });
  expect(r.headers.get("www-authenticate")).toBe('Bearer realm="postern"');
}
const cookieOf = (token: string) => `postern_session=${token}`;

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h, { clickToGrant: false });
  h.channel.online.add(seed.agentId);
  robot = await apiKeyUser("robot");
});
afterEach(async () => {
  await h.close();
});

describe("POST /api/v1/user_sessions", () => {
  it("signs the API-key user in: a normal session, automatic grants, the cookie token once, audited", async () => {
    const r = await call("POST", "", { headers: bearer(robot.key) });
    expect(r.status).toBe(201);
    const body = ApiKeyUserSessionSchema.parse(r.body);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.setCookie).toBe("");
    const row = (await h.services.db.select().from(userSessions).where(eq(userSessions.id, body.ID)).limit(1))[0]!;
    expect(row).toMatchObject({ userId: robot.id, kiosk: false, ipAddress: ROBOT_IP, verified: true, endedAt: null });
    expect(body.Ends).toBe(new Date(row.endsAt).toISOString());
    expect(row.endsAt - row.createdAt).toBe(480 * 60_000);
    expect(body.Token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(row.tokenHash).not.toContain(body.Token);
    // The ACL without ClickToGrant was granted at sign-in, on the caller's address.
    expect(body.Status).toMatchObject({
      Name: "ROBOT",
      CurrentAddress: ROBOT_IP,
      AuthType: "apikey",
      UserLicensed: true,
      ACLs: [{ ACLID: seed.aclId, Status: 2 }],
    });
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: ROBOT_IP })]);
    expect(await audits("userLoggedIn")).toEqual([expect.objectContaining({ userName: "robot", ipAddress: ROBOT_IP })]);
    // The token is the postern_session cookie of the ordinary user calls.
    const status = await apiRequest(h, "GET", "/api/status", undefined, {
      cookie: cookieOf(body.Token),
      from: ROBOT_IP,
    });
    expect(status).toMatchObject({ status: 200, body: { Name: "ROBOT", ACLs: [{ ACLID: seed.aclId }] } });
    expect(
      (await h.services.db.select().from(users).where(eq(users.id, robot.id)).limit(1))[0]!.lastLogin,
    ).toBeGreaterThanOrEqual(row.createdAt);
  });

  it("accepts HTTP Basic with the key as password, and a body naming the user", async () => {
    const basic = `Basic ${Buffer.from(`robot:${robot.key}`).toString("base64")}`;
    expect((await call("POST", "", { headers: { authorization: basic } })).status).toBe(201);
    expect((await call("POST", "", { headers: bearer(robot.key), body: { UserName: "robot" } })).status).toBe(201);
    expect((await call("POST", "", { headers: bearer(robot.key), body: "  " })).status).toBe(201);
    expect(await audits("userLoggedIn")).toHaveLength(3);
  });

  it("follows the client's address on the user calls: the grants move with it", async () => {
    const body = ApiKeyUserSessionSchema.parse((await call("POST", "", { headers: bearer(robot.key) })).body);
    h.channel.take();
    const moved = await apiRequest(h, "GET", "/api/status", undefined, {
      cookie: cookieOf(body.Token),
      from: "198.51.100.99",
    });
    expect(moved).toMatchObject({ status: 200, body: { CurrentAddress: "198.51.100.99" } });
    expect(h.channel.take().map((o) => `${o.op} ${o.ip}`)).toEqual(["del 198.51.100.20", "add 198.51.100.99"]);
    expect(await audits("userIpChanged")).toEqual([
      expect.objectContaining({ userName: "robot", ipAddress: "198.51.100.99" }),
    ]);
  });

  it("an API-key user with TOTPEnabled still signs in at once (no code is owed)", async () => {
    const otp = await apiKeyUser("otp-robot", { TOTPEnabled: true });
    const r = await call("POST", "", { headers: bearer(otp.key) });
    expect(r.status).toBe(201);
    const token = ApiKeyUserSessionSchema.parse(r.body).Token;
    expect(
      (await apiRequest(h, "GET", "/api/status", undefined, { cookie: cookieOf(token), from: ROBOT_IP })).status,
    ).toBe(200);
  });

  it("refuses missing, malformed, wrong and expired keys with 401 and the challenge, audited", async () => {
    const expiring = await apiKeyUser("soon", {}, { ExpiredAfter: new Date(h.clock.now() + 1000).toISOString() });
    expect((await call("POST", "", { headers: bearer(expiring.key) })).status).toBe(201);
    h.clock.advance(1000);
    const wrong = robot.key.slice(0, -2) + (robot.key.endsWith("AA") ? "BB" : "AA");
    for (const headers of [
      {},
      bearer(""),
      bearer("pst_nope"),
      bearer(wrong),
      bearer(expiring.key),
      { authorization: "Token abc" },
    ]) {
      expectChallenge(await call("POST", "", { headers }));
    }
    expect((await audits("apiKeyAccessDenied")).map((a) => a.description)).toEqual([
      "no API key presented (scope user.auth)",
      "unknown or malformed API key (scope user.auth)",
      "unknown or malformed API key (scope user.auth)",
      `unknown or malformed API key (scope user.auth:${robot.id})`,
      'API key "soon key" has expired',
      "unknown or malformed API key (scope user.auth)",
    ]);
    expect(await audits("userLoggedIn")).toHaveLength(1);
  });

  it("refuses a key without the user's user.auth scope, another user's key and a source outside AllowedFrom (403), audited", async () => {
    const other = await apiKeyUser("other");
    const sessionsOnly = await extraKey("sessions only", ["user.sessions"]);
    const fenced = await apiKeyUser("fenced", {}, { AllowedFrom: [{ Prefix: "10.0.0.0/8", Note: "lan" }] });
    expect((await call("POST", "", { headers: bearer(fenced.key), from: "10.1.2.3" })).status).toBe(201);
    const cases: [string, Record<string, string>, unknown, string | undefined, string][] = [
      [
        "no user.auth scope",
        bearer(sessionsOnly),
        undefined,
        undefined,
        'API key "sessions only" lacks scope user.auth',
      ],
      [
        "another user's key",
        bearer(other.key),
        { UserName: "robot" },
        undefined,
        `API key "other key" lacks scope user.auth:${robot.id}`,
      ],
      [
        "a local user named",
        bearer(robot.key),
        { UserName: "alice" },
        undefined,
        `API key "robot key" lacks scope user.auth:${seed.userId}`,
      ],
      [
        "an unknown user named",
        bearer(robot.key),
        { UserName: "nobody" },
        undefined,
        'API key "robot key" lacks scope user.auth (no user "nobody")',
      ],
      [
        "outside AllowedFrom",
        bearer(fenced.key),
        undefined,
        "11.0.0.1",
        'API key "fenced key" used from outside its AllowedFrom',
      ],
    ];
    for (const [what, headers, body, from, description] of cases) {
      const r = await call("POST", "", { headers, body, ...(from ? { from } : {}) });
      expect(r, what).toMatchObject({ status: 403, body: { Err: "Unauthorised" } });
      expect(r.headers.get("www-authenticate")).toBeNull();
      expect((await audits("apiKeyAccessDenied")).at(-1)?.description, what).toBe(description);
    }
    expect(await audits("apiKeyAccessDenied")).toHaveLength(cases.length);
    expect(await audits("userLoggedIn")).toHaveLength(1);
    expect(await h.services.db.select().from(userSessions)).toHaveLength(1);
  });

  it("refuses users who are not API-key users, deleted, disabled, past ValidUntil or unlicensed", async () => {
    const local = await apiKeyUser("was-apikey");
    await h.services.db.update(users).set({ authType: "local" }).where(eq(users.id, local.id));
    expect(await call("POST", "", { headers: bearer(local.key) })).toMatchObject({
      status: 403,
      body: { Err: "Login not permitted" },
    });
    expect((await audits("userLoginFailed")).at(-1)).toMatchObject({
      userName: "was-apikey",
      ipAddress: ROBOT_IP,
      errorMessage: 'API key "was-apikey key": not an API-key user (AuthType local)',
    });

    const gone = await apiKeyUser("gone");
    await h.services.users.delete(gone.id, actor);
    expect(await call("POST", "", { headers: bearer(gone.key) })).toMatchObject({
      status: 403,
      body: { Err: "Unauthorised" },
    });
    expect((await audits("userLoginFailed")).at(-1)?.errorMessage).toBe(
      `API key "gone key": user.auth:${gone.id} names a deleted user`,
    );

    await h.services.db.update(users).set({ disabled: true }).where(eq(users.id, robot.id));
    expect(await call("POST", "", { headers: bearer(robot.key) })).toMatchObject({
      status: 403,
      body: { Err: "accountDisabled" },
    });
    expect((await audits("userLoginFailed")).at(-1)).toMatchObject({
      userName: "robot",
      errorMessage: "account disabled",
    });
    await h.services.db.update(users).set({ disabled: false, validUntil: h.clock.now() }).where(eq(users.id, robot.id));
    expect(await call("POST", "", { headers: bearer(robot.key) })).toMatchObject({
      status: 403,
      body: { Err: "accountDisabled" },
    });

    // A licence for one user: alice (created first) is licensed, the API-key users are not.
    await h.services.db.update(users).set({ validUntil: null }).where(eq(users.id, robot.id));
    await installTestLicence(h, { UserLimit: 1, UserLimitOverage: 0 });
    expect(await call("POST", "", { headers: bearer(robot.key) })).toMatchObject({
      status: 403,
      body: { Err: "err.unlicensedDescription" },
    });
    expect((await audits("userLoginFailed")).at(-1)).toMatchObject({
      userName: "robot",
      errorMessage: 'API key "robot key": user not licensed',
    });
    expect(await audits("userLoggedIn")).toHaveLength(0);
    expect(await h.services.db.select().from(userSessions)).toHaveLength(0);
    expect(h.channel.take()).toHaveLength(0);
  });

  it("a key for several users needs the UserName", async () => {
    const second = await apiKeyUser("second");
    const both = await extraKey("both", [`user.auth:${robot.id}`, `user.auth:${second.id}`]);
    expect(await call("POST", "", { headers: bearer(both) })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: "UserName: this API key signs in several users; name one" },
    });
    expect((await audits("userLoginFailed")).at(-1)?.errorMessage).toBe(
      'API key "both" signs in 2 users and none was named',
    );
    const r = await call("POST", "", { headers: bearer(both), body: { UserName: "second" } });
    expect(r).toMatchObject({ status: 201, body: { Status: { Name: "SECOND" } } });
    expect((await call("GET", "?UserName=robot", { headers: bearer(both) })).body).toEqual([]);
    expect((await call("GET", "?UserName=second", { headers: bearer(both) })).body).toHaveLength(1);
  });

  it("validates the body: JSON, a non-blank UserName", async () => {
    expect(await call("POST", "", { headers: bearer(robot.key), body: "{" })).toMatchObject({
      status: 400,
      body: { Err: "Failed decoding request body" },
    });
    expect(await call("POST", "", { headers: bearer(robot.key), body: { UserName: " " } })).toMatchObject({
      status: 400,
      body: { Err: "You must specify a username", Extra: "UserName" },
    });
    expect(await call("POST", "", { headers: bearer(robot.key), body: { UserName: 7 } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^UserName: /) },
    });
    expect(await call("POST", "", { headers: bearer(robot.key), body: { UserName: "x".repeat(257) } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^UserName: /) },
    });
    expect(await audits("userLoggedIn")).toHaveLength(0);
  });

  it("is not a cookie route, but cross-site writes are still refused", async () => {
    expect(await call("POST", "", { headers: { ...bearer(robot.key), origin: "https://evil.example" } })).toMatchObject(
      { status: 403, body: { Err: "Unauthorised" } },
    );
    expect(await call("POST", "", { headers: { ...bearer(robot.key), "sec-fetch-site": "cross-site" } })).toMatchObject(
      { status: 403 },
    );
    expect(await audits("userLoggedIn")).toHaveLength(0);
  });
});

describe("GET and DELETE /api/v1/user_sessions", () => {
  let first = { ID: "", Token: "" };
  let second = { ID: "", Token: "" };
  let aliceSession = "";

  beforeEach(async () => {
    first = ApiKeyUserSessionSchema.parse((await call("POST", "", { headers: bearer(robot.key) })).body);
    h.clock.advance(1000);
    second = ApiKeyUserSessionSchema.parse(
      (await call("POST", "", { headers: bearer(robot.key), from: "2001:db8::20" })).body,
    );
    aliceSession = (
      await h.services.userSessions.login({
        userName: "alice",
        password: "alice-password",
        kiosk: false,
        ip: "192.0.2.1",
      })
    ).session.sessionId;
    h.channel.take();
  });

  it("lists the user's own live sessions only", async () => {
    const r = await call("GET", "", { headers: bearer(robot.key) });
    expect(r.status).toBe(200);
    const row = (await h.services.db.select().from(userSessions).where(eq(userSessions.id, first.ID)).limit(1))[0]!;
    expect(r.body).toEqual([
      {
        ID: first.ID,
        UserName: "robot",
        Created: new Date(row.createdAt).toISOString(),
        Ends: new Date(row.endsAt).toISOString(),
        IPAddress: ROBOT_IP,
      },
      {
        ID: second.ID,
        UserName: "robot",
        Created: expect.any(String),
        Ends: expect.any(String),
        IPAddress: "2001:db8::20",
      },
    ]);
    expect((await call("GET", "?UserName=robot", { headers: bearer(robot.key) })).body).toEqual(r.body);
    h.clock.advance(480 * 60_000);
    expect((await call("GET", "", { headers: bearer(robot.key) })).body).toEqual([]);
  });

  it("ends one session: grants revoked, the token dead, audited; another user's session or an unknown id is 404", async () => {
    const r = await call("DELETE", `/${first.ID}`, { headers: bearer(robot.key), from: "192.0.2.44" });
    expect(r.status).toBe(204);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: ROBOT_IP })]);
    expect(
      await apiRequest(h, "GET", "/api/status", undefined, { cookie: cookieOf(first.Token), from: ROBOT_IP }),
    ).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(
      (await apiRequest(h, "GET", "/api/status", undefined, { cookie: cookieOf(second.Token), from: "2001:db8::20" }))
        .status,
    ).toBe(200);
    expect(
      (await h.services.db.select().from(userSessions).where(eq(userSessions.id, first.ID)).limit(1))[0],
    ).toMatchObject({
      endReason: "logout",
      endedAt: expect.any(Number),
    });
    expect(await audits("userLoggedOut")).toEqual([
      expect.objectContaining({
        userName: "robot",
        ipAddress: "192.0.2.44",
        description: 'session ended with API key "robot key"',
      }),
    ]);
    for (const id of [first.ID, aliceSession, "11111111-1111-4111-8111-111111111111", "nope"]) {
      expect(await call("DELETE", `/${id}`, { headers: bearer(robot.key) }), id).toMatchObject({
        status: 404,
        body: { Err: "Not found" },
      });
    }
    expect(
      (await h.services.db.select().from(userSessions).where(eq(userSessions.id, aliceSession)).limit(1))[0]?.endedAt,
    ).toBeNull();
    expect(await audits("userLoggedOut")).toHaveLength(1);
    expect(h.channel.take()).toHaveLength(0);
  });

  it("checks the key first: refused keys end nothing and learn nothing", async () => {
    const other = await apiKeyUser("other");
    const wrong = robot.key.slice(0, -2) + (robot.key.endsWith("AA") ? "BB" : "AA");
    for (const path of [`/${first.ID}`, "/nope"]) {
      expectChallenge(await call("DELETE", path, {}));
      expectChallenge(await call("DELETE", path, { headers: bearer(wrong) }));
      // Another API-key user's key acts for that user, who has no such session.
      expect(await call("DELETE", path, { headers: bearer(other.key) })).toMatchObject({
        status: 404,
        body: { Err: "Not found" },
      });
      expect(await call("DELETE", `${path}?UserName=robot`, { headers: bearer(other.key) })).toMatchObject({
        status: 403,
        body: { Err: "Unauthorised" },
      });
    }
    expectChallenge(await call("GET", "", {}));
    expect(await call("GET", "?UserName=robot", { headers: bearer(other.key) })).toMatchObject({
      status: 403,
      body: { Err: "Unauthorised" },
    });
    expect((await call("GET", "", { headers: bearer(other.key) })).body).toEqual([]);
    expect(await call("GET", "?UserName=", { headers: bearer(robot.key) })).toMatchObject({
      status: 400,
      body: { Err: "You must specify a username", Extra: "UserName" },
    });
    expect(await call("GET", `?UserName=${"x".repeat(257)}`, { headers: bearer(robot.key) })).toMatchObject({
      status: 400,
      body: { Err: "Bad request" },
    });
    expect(h.channel.take()).toHaveLength(0);
    expect(await audits("userLoggedOut")).toHaveLength(0);
    expect((await h.services.db.select().from(userSessions)).filter((s) => s.endedAt !== null)).toHaveLength(0);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { UserWriteSchema } from "@postern/shared";
import type { UserWrite } from "@postern/shared";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { installTestLicence, issueTestLicence, trustTestKey } from "../../testing/licences.ts";
import { testTables } from "../../testing/database.ts";
import { AppError } from "../../errors.ts";
import { SamlProvisioning } from "../saml/provisioning.ts";
import { isUserLicensed, licensedUserIds, requireLicence } from "./gates.ts";

const { auditLog, licenses, users } = testTables;

const DAY = 86_400_000;
const actor = { adminName: "test-admin", ip: "127.0.0.1" };
let h: Harness;
let seed: Seeded;
let n = 0;

/** Creates a user (LDAP: no password hashing) one millisecond after the previous one; returns its id. */
async function addUser(over: Partial<UserWrite> = {}): Promise<string> {
  n += 1;
  h.clock.advance(1);
  return h.services.users.create(
    UserWriteSchema.parse({
      Name: `User ${n}`,
      UserName: `user${n}`,
      AuthType: "LDAP",
      ThirdPartyAuth: { DN: `cn=user${n}` },
      ...over,
    }),
    actor,
  );
}
/** Creates a SAML user the way the IdP's first sign-in does, one millisecond after the previous user; returns its id. */
async function addIdpUser(): Promise<string> {
  n += 1;
  h.clock.advance(1);
  const provisioning = new SamlProvisioning({ db: h.services.db, clock: h.clock, engine: h.services.engine });
  return (await provisioning.provisionUser({ userName: `saml${n}`, name: null, groups: [], ip: "127.0.0.1" })).id;
}
/** Creates local user "bob" (password "bob-password") assigned to the seeded ACL. */
async function addBob(): Promise<string> {
  h.clock.advance(1);
  return h.services.users.create(
    UserWriteSchema.parse({
      Name: "Bob",
      UserName: "bob",
      PlainPassword: "bob-password",
      ConfirmPassword: "bob-password",
      AclIds: [seed.aclId],
    }),
    actor,
  );
}
const userCount = async () => (await h.services.db.select().from(users)).length;

/** Signs a user in over the API from `from`; returns the cookie. */
async function signIn(userName: string, password: string, from = "203.0.113.5"): Promise<string> {
  const r = await apiRequest(
    h,
    "POST",
    "/api/login",
    { UserName: userName, Password: password, KioskMode: false },
    { from },
  );
  expect(r.status).toBe(200);
  return r.setCookie.split(";")[0] ?? "";
}

async function appErrorAsync(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected an AppError");
}

beforeEach(async () => {
  n = 0;
  h = await createHarness();
  seed = await seedLoop(h, { licence: false });
  h.channel.online.add(seed.agentId);
});
afterEach(async () => {
  await h.close();
});

describe("with no licence installed", () => {
  it("is unlicensed: Knocs refused, users neither limited nor refused", async () => {
    expect(await h.services.licensing.status()).toEqual({
      Licensed: false,
      ID: "",
      UserLimit: 0,
      SessionLimit: 0,
      MaxMachines: 0,
      MachineCount: 1,
      Expires: null,
      State: "unlicensed",
    });
    expect(await h.services.licensing.summary()).toBeNull();
    expect(await appErrorAsync(h.services.licensing.requireLicence())).toMatchObject({
      status: 403,
      err: "err.youDoNotHaveALicense",
      extra: undefined,
    });
    for (let i = 0; i < 5; i++) await addUser();
    expect((await h.services.users.list()).every((u) => u.Licensed)).toBe(true);
    const cookie = await signIn("alice", "alice-password");
    const status = await apiRequest(h, "GET", "/api/status", undefined, { cookie });
    expect(status.body).toMatchObject({ Licensed: true, UserLicensed: true });
    expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie })).status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5" })]);
  });

  it("keeps SessionLimit as given (null is unlimited)", async () => {
    const id = await addUser({ SessionLimit: null });
    expect((await h.services.users.get(id)).SessionLimit).toBeNull();
    expect((await h.services.users.get(await addUser({ SessionLimit: 50 }))).SessionLimit).toBe(50);
  });
});

describe("installing", () => {
  it("installs a verified key, replaces the installed one, and audits it", async () => {
    const first = await trustTestKey(h).install(issueTestLicence({ ID: "first" }), actor);
    expect(first).toEqual({
      Licensed: true,
      ID: "first",
      UserLimit: 10,
      SessionLimit: 3,
      MaxMachines: 5,
      MachineCount: 1,
      Expires: null,
      State: "active",
    });
    await h.services.licensing.install("free", actor);
    const rows = await h.services.db.select().from(licenses);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: "free", key: "free" });
    expect(await h.services.licensing.status()).toMatchObject({
      ID: "free",
      UserLimit: 1,
      SessionLimit: 1,
      MaxMachines: 1,
      Expires: null,
      State: "active",
    });
    const audit = await h.services.db.select().from(auditLog).where(eq(auditLog.action, "licenseInstalled"));
    expect(audit.map((a) => [a.adminName, a.description])).toEqual([
      ["test-admin", "licence first: 10 users (+30%), 3 sessions per user, 5 machines, expires never"],
      ["test-admin", "licence free: 1 users (+0%), 1 sessions per user, 1 machines, expires never"],
    ]);
  });

  it("refuses an already expired licence and keeps the installed one", async () => {
    await installTestLicence(h, { ID: "good" });
    const expires = new Date(h.clock.now() - DAY).toISOString();
    expect(
      await appErrorAsync(h.services.licensing.install(issueTestLicence({ ID: "old", Expires: expires }), actor)),
    ).toMatchObject({ status: 400, err: "err.licenseExpired", extra: expires });
    expect((await h.services.licensing.status()).ID).toBe("good");
  });

  it("refuses a signed key when the server trusts no public key", async () => {
    expect(await appErrorAsync(h.services.licensing.install(issueTestLicence(), actor))).toMatchObject({
      status: 400,
      err: "err.invalidLicenseSignature",
    });
    expect(await h.services.db.select().from(licenses)).toHaveLength(0);
  });

  it("summarises the licence for the admin status, with the overage as a count", async () => {
    const expires = new Date(h.clock.now() + 100 * DAY).toISOString();
    await installTestLicence(h, { UserLimit: 10, UserLimitOverage: 30, SessionLimit: 3, Expires: expires });
    expect(await h.services.licensing.summary()).toEqual({
      UserLimit: 10,
      UserLimitOverage: 3,
      UserLimitOveragePercentage: 30,
      SessionLimit: 3,
      Expires: expires,
    });
  });

  it("counts agents as machines", async () => {
    await installTestLicence(h);
    await h.services.agents.create("edge-2", "http://127.0.0.1:8080", actor);
    expect(await h.services.licensing.status()).toMatchObject({ MachineCount: 2, MaxMachines: 5 });
  });

  it("reports expiringSoon and expired as time passes", async () => {
    await installTestLicence(h, { Expires: new Date(h.clock.now() + 61 * DAY).toISOString() });
    expect(await h.services.licensing.status()).toMatchObject({ State: "active", Licensed: true });
    h.clock.advance(DAY + 1000);
    expect(await h.services.licensing.status()).toMatchObject({ State: "expiringSoon", Licensed: true });
    h.clock.advance(60 * DAY);
    expect(await h.services.licensing.status()).toMatchObject({ State: "expired", Licensed: false });
  });
});

describe("the user limit", () => {
  // UserLimit 4 + 50 % → 2 more: six users may exist. seedLoop created alice (1).
  beforeEach(async () => {
    await installTestLicence(h, { UserLimit: 4, UserLimitOverage: 50 });
  });

  it("creates users at the limit and at limit + overage − 1, and refuses at limit + overage", async () => {
    await addUser();
    await addUser();
    await addUser();
    expect(await userCount()).toBe(4); // at the limit
    expect((await h.services.licensing.status()).State).toBe("active");
    await addUser();
    expect(await userCount()).toBe(5); // limit + overage − 1
    expect((await h.services.licensing.status()).State).toBe("overLimit");
    await addUser();
    expect(await userCount()).toBe(6); // limit + overage
    expect(await appErrorAsync(addUser())).toMatchObject({ status: 403, err: "err.userLimitReached" });
    expect(
      await appErrorAsync(addUser({ AuthType: "local", PlainPassword: "password-1", ConfirmPassword: "password-1" })),
    ).toMatchObject({ err: "err.userLimitReached" });
    expect(await userCount()).toBe(6);
    // Through the API too.
    const admin = await signInAdmin(h);
    const r = await apiRequest(
      h,
      "POST",
      "/api/admin/users",
      { Name: "Zed", UserName: "zed", AuthType: "LDAP", ThirdPartyAuth: { DN: "cn=zed" } },
      { cookie: admin },
    );
    expect(r).toMatchObject({ status: 403, body: { Err: "err.userLimitReached" } });
    expect((await h.services.users.list()).every((u) => u.Licensed)).toBe(true);
  });

  it("never counts admins", async () => {
    for (let i = 0; i < 8; i++)
      await h.services.adminSessions.createLocalAdmin({
        userName: `admin${i}`,
        name: `Admin ${i}`,
        password: "root-password",
      });
    for (let i = 0; i < 5; i++) await addUser();
    expect(await userCount()).toBe(6);
    expect((await h.services.licensing.status()).State).toBe("overLimit");
    expect(await appErrorAsync(addUser())).toMatchObject({ err: "err.userLimitReached" });
  });

  it("lets SAML users (created at first sign-in) exceed the limit; they count, and those beyond are not licensed", async () => {
    for (let i = 0; i < 5; i++) await addUser();
    const saml1 = await addIdpUser();
    const saml2 = await addIdpUser();
    expect(await userCount()).toBe(8);
    expect(await appErrorAsync(addUser())).toMatchObject({ err: "err.userLimitReached" });
    // A SAML user an admin creates is refused like any other.
    expect(await appErrorAsync(addUser({ AuthType: "SAML" }))).toMatchObject({ err: "err.userLimitReached" });
    const licensed = new Map((await h.services.users.list()).map((u) => [u.ID, u.Licensed]));
    expect([...licensed.values()].filter(Boolean)).toHaveLength(6);
    expect(licensed.get(seed.userId)).toBe(true);
    expect(licensed.get(saml1)).toBe(false);
    expect(licensed.get(saml2)).toBe(false);
    expect((await h.services.users.get(saml1)).Licensed).toBe(false);
    expect(await isUserLicensed(h.services.db, saml2, h.clock.now())).toBe(false);
    expect(await isUserLicensed(h.services.db, seed.userId, h.clock.now())).toBe(true);
    expect(await isUserLicensed(h.services.db, "11111111-1111-1111-1111-111111111111", h.clock.now())).toBe(false);
    expect(await h.services.licensing.licensedUserIds()).toEqual(
      new Set([...licensed].filter(([, l]) => l).map(([id]) => id)),
    );
  });

  it("licenses users in creation order (CreatedAt, then ID)", async () => {
    const ids = [seed.userId];
    for (let i = 0; i < 7; i++) ids.push(await addIdpUser());
    // Two users created in the same millisecond: the smaller ID comes first.
    const same = h.clock.now();
    await h.services.db.update(users).set({ createdAt: same }).where(eq(users.id, ids[4]!));
    await h.services.db.update(users).set({ createdAt: same }).where(eq(users.id, ids[7]!));
    const tied = [ids[4]!, ids[7]!].sort();
    const expected = [...ids.slice(0, 4), ids[5]!, ids[6]!, ...tied].slice(0, 6);
    expect(await licensedUserIds(h.services.db, h.clock.now())).toEqual(new Set(expected));
    for (const id of ids) expect(await isUserLicensed(h.services.db, id, h.clock.now())).toBe(expected.includes(id));
  });

  it("caps SessionLimit at the licence's, defaulting to it", async () => {
    await installTestLicence(h, { UserLimit: 4, UserLimitOverage: 50, SessionLimit: 3 });
    expect((await h.services.users.get(await addUser({ SessionLimit: null }))).SessionLimit).toBe(3);
    const id = await addUser({ SessionLimit: 2 });
    expect((await h.services.users.get(id)).SessionLimit).toBe(2);
    expect(await appErrorAsync(addUser({ SessionLimit: 4 }))).toMatchObject({
      status: 400,
      err: "Bad request",
      extra: "SessionLimit: must be between 1 and 3 (the licence's SessionLimit)",
    });
    const u = await h.services.users.get(id);
    const write = UserWriteSchema.parse({ ...u, SessionLimit: 5 });
    expect(await appErrorAsync(h.services.users.update(id, write, actor))).toMatchObject({
      status: 400,
      extra: "SessionLimit: must be between 1 and 3 (the licence's SessionLimit)",
    });
    await h.services.users.update(id, { ...write, SessionLimit: null }, actor);
    expect((await h.services.users.get(id)).SessionLimit).toBe(3);
  });
});

describe("grants and the session status", () => {
  it("refuses a grant to an unlicensed user with err.unlicensedDescription while a licensed one succeeds", async () => {
    const bobId = await addBob();
    await trustTestKey(h).install("free", actor); // one user: alice (created first) is licensed, bob is not
    const alice = await signIn("alice", "alice-password");
    const bob = await signIn("bob", "bob-password", "198.51.100.7");
    expect((await apiRequest(h, "GET", "/api/status", undefined, { cookie: bob })).body).toMatchObject({
      Licensed: true,
      UserLicensed: false,
    });
    expect((await apiRequest(h, "GET", "/api/status", undefined, { cookie: alice })).body).toMatchObject({
      Licensed: true,
      UserLicensed: true,
    });
    const refused = await apiRequest(
      h,
      "POST",
      "/api/grant",
      { ACLID: seed.aclId, IPs: [] },
      { cookie: bob, from: "198.51.100.7" },
    );
    expect(refused).toMatchObject({ status: 403, body: { Err: "err.unlicensedDescription" } });
    expect(h.channel.take()).toEqual([]);
    const granted = await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie: alice });
    expect(granted.status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: "203.0.113.5" })]);
    expect((await h.services.users.get(bobId)).Licensed).toBe(false);
    // Bob can still sign out (docs/reference.md user-portal §6: unlicensed users can only log out).
    expect((await apiRequest(h, "POST", "/api/logout", undefined, { cookie: bob })).status).toBe(204);
  });

  it("refuses everyone once the licence has expired, and a moved address does not fail the request", async () => {
    await installTestLicence(h, { Expires: new Date(h.clock.now() + 60 * 60_000).toISOString() });
    const alice = await signIn("alice", "alice-password");
    expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie: alice })).status).toBe(
      200,
    );
    h.channel.take();
    h.clock.advance(2 * 60 * 60_000); // the licence expired; the 480-minute session goes on
    expect(await appErrorAsync(h.services.licensing.requireLicence())).toMatchObject({
      status: 403,
      err: "err.youDoNotHaveALicense",
      extra: "err.licenseExpired",
    });
    // A new address: the grant is revoked on the old one and not granted again.
    const moved = await apiRequest(h, "GET", "/api/status", undefined, { cookie: alice, from: "203.0.113.77" });
    expect(moved).toMatchObject({ status: 200, body: { Licensed: false, UserLicensed: false } });
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    const refused = await apiRequest(
      h,
      "POST",
      "/api/grant",
      { ACLID: seed.aclId, IPs: [] },
      { cookie: alice, from: "203.0.113.77" },
    );
    expect(refused).toMatchObject({ status: 403, body: { Err: "err.unlicensedDescription" } });
    expect((await h.services.users.get(seed.userId)).Licensed).toBe(false);
  });
});

describe("a broken licence store", () => {
  it("answers err.failedToRefreshLicenseStatus when more than one licence is stored", async () => {
    await installTestLicence(h);
    await h.services.db.insert(licenses).values({ id: "second", key: "free", payload: {}, installedAt: h.clock.now() });
    expect(await appErrorAsync(h.services.licensing.status())).toMatchObject({
      status: 500,
      err: "err.failedToRefreshLicenseStatus",
      extra: "2 licences are installed; expected exactly one",
    });
    expect(await h.services.licensing.summary()).toBeNull();
    expect(await appErrorAsync(requireLicence(h.services.db, h.clock.now()))).toMatchObject({
      status: 403,
      err: "err.youDoNotHaveALicense",
      extra: "err.failedToRefreshLicenseStatus",
    });
    expect(await appErrorAsync(addUser())).toMatchObject({ status: 500, err: "err.failedToRefreshLicenseStatus" });
    expect(await isUserLicensed(h.services.db, seed.userId, h.clock.now())).toBe(false);
  });

  it("answers err.failedToRefreshLicenseStatus when the stored key is unparsable or missing", async () => {
    await h.services.db.insert(licenses).values({ id: "bad", key: "garbage", payload: {}, installedAt: h.clock.now() });
    expect(await appErrorAsync(h.services.licensing.status())).toMatchObject({
      status: 500,
      err: "err.failedToRefreshLicenseStatus",
      extra: "the installed licence key cannot be parsed",
    });
    await h.services.db.update(licenses).set({ key: "" });
    expect(await appErrorAsync(h.services.licensing.status())).toMatchObject({
      status: 500,
      extra: "the installed licence has no key",
    });
    expect(await h.services.licensing.usersAdmitted()).toBe(false);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";
import * as usersRepo from "../../repositories/users.ts";
import { passwordStrength } from "../../services/auth/password-change.ts";

const { admins, auditLog } = testTables;

let h: Harness;
let seed: Seeded;
let root = "";

const NEW = "fresh-Quokka-71";
const LENGTH = { Err: "Bad request", Extra: "NewPassword: Must be between 8 and 64 characters" };
const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";
const audit = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const login = (UserName: string, Password: string, from?: string) =>
  apiRequest(h, "POST", "/api/login", { UserName, Password }, from ? { from } : {});
const adminLogin = (UserName: string, Password: string) =>
  apiRequest(h, "POST", "/api/admin/login", { UserName, Password });
const put = (body: unknown, cookie: string) => apiRequest(h, "PUT", "/api/password", body, { cookie });
const post = (body: unknown, cookie: string) => apiRequest(h, "POST", "/api/password", body, { cookie });
const userStatus = async (cookie: string, from = "203.0.113.5") =>
  (await apiRequest(h, "GET", "/api/status", undefined, { cookie, from })).status;
const adminStatus = async (cookie: string) =>
  (await apiRequest(h, "GET", "/api/admin/admins", undefined, { cookie })).status;

async function alice(from = "203.0.113.5"): Promise<string> {
  const r = await login("alice", "alice-password", from);
  expect(r.status).toBe(200);
  return cookieOf(r.setCookie);
}

/** A user of `authType` created by the admin API, signed in directly (no password sign-in exists for them here). */
async function signedInUser(userName: string, authType: "LDAP" | "SAML" | "apikey"): Promise<string> {
  const id = await h.services.users.create(
    {
      Name: userName,
      UserName: userName,
      Company: "",
      Duration: 60,
      SessionLimit: null,
      AuthType: authType,
      TOTPEnabled: false,
      ValidUntil: null,
      ThirdPartyAuth: { DN: authType === "LDAP" ? `uid=${userName},dc=test` : "" },
      AclIds: [],
    },
    { adminName: "root", ip: "127.0.0.1" },
  );
  const { token } = await h.services.userSessions.issue((await usersRepo.getUser(h.services.db, id))!, {
    kiosk: false,
    ip: "203.0.113.5",
  });
  return `postern_session=${token}`;
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  root = await signInAdmin(h);
  h.channel.take();
});
afterEach(async () => {
  await h.close();
});

describe("PUT /password", () => {
  it("changes the user's password, keeps this session, ends the others and revokes their grants", async () => {
    const current = await alice();
    const other = await alice("198.51.100.20");
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/grant",
          { ACLID: seed.aclId, IPs: [] },
          { cookie: other, from: "198.51.100.20" },
        )
      ).status,
    ).toBe(200);
    h.channel.take();
    const r = await put({ CurrentPassword: "alice-password", NewPassword: NEW, ConfirmPassword: NEW }, current);
    expect(r).toMatchObject({ status: 204, body: "" });
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "198.51.100.20" })]);
    expect(await userStatus(current)).toBe(200);
    expect(await userStatus(other, "198.51.100.20")).toBe(401);
    expect((await login("alice", "alice-password")).status).toBe(401);
    expect((await login("alice", NEW)).status).toBe(200);
    expect((await audit("passwordChanged")).map((e) => [e.userName, e.adminName, e.ipAddress, e.description])).toEqual([
      ["alice", "", "203.0.113.5", "other sessions ended: 1"],
    ]);
  });

  it("refuses bad input with the spec's keys, changing nothing", async () => {
    const cookie = await alice();
    const ok = { CurrentPassword: "alice-password", NewPassword: NEW, ConfirmPassword: NEW };
    expect(await put({ ...ok, NewPassword: "short", ConfirmPassword: "short" }, cookie)).toMatchObject({
      status: 400,
      body: LENGTH,
    });
    expect(await put({ ...ok, NewPassword: "x".repeat(65), ConfirmPassword: "x".repeat(65) }, cookie)).toMatchObject({
      status: 400,
      body: LENGTH,
    });
    expect(await put({ ...ok, NewPassword: undefined }, cookie)).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^NewPassword: /) as unknown },
    });
    expect(await put({ ...ok, CurrentPassword: "" }, cookie)).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^CurrentPassword: /) as unknown },
    });
    expect(await put({ ...ok, ConfirmPassword: "fresh-Quokka-72" }, cookie)).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await put({ ...ok, ConfirmPassword: undefined }, cookie)).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await put({ ...ok, NewPassword: "password", ConfirmPassword: "password" }, cookie)).toMatchObject({
      status: 400,
      body: { Err: "Password is too weak", Extra: "This is a heavily used password." },
    });
    expect(await put({ ...ok, CurrentPassword: "wrong-password" }, cookie)).toMatchObject({
      status: 403,
      body: { Err: "Invalid credentials" },
    });
    expect(await put("{nope", cookie)).toMatchObject({ status: 400, body: { Err: "Failed decoding request body" } });
    expect(await put(ok, "")).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await put(ok, root)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect((await login("alice", "alice-password")).status).toBe(200);
    expect(await audit("passwordChanged")).toEqual([]);
    expect((await audit("passwordChangeFailed")).map((e) => e.errorMessage)).toEqual([
      "err.passwordsDontMatch",
      "err.passwordsDontMatch",
      "Password is too weak",
      "Invalid credentials",
    ]);
  });

  it("scores strength with the account's own names as known words", async () => {
    expect((await passwordStrength("zorkmid2024", [])).score).toBeGreaterThanOrEqual(2);
    expect((await passwordStrength("zorkmid2024", ["zorkmid"])).score).toBeLessThan(2);
    expect((await passwordStrength("correct-horse-9", [])).score).toBe(4);
    await h.services.users.create(
      {
        Name: "Quux Zorkmid",
        UserName: "zorkmid",
        Company: "",
        Duration: 60,
        SessionLimit: null,
        AuthType: "local",
        PlainPassword: "zorkmid-password-1",
        ConfirmPassword: "zorkmid-password-1",
        TOTPEnabled: false,
        ValidUntil: null,
        ThirdPartyAuth: { DN: "" },
        AclIds: [],
      },
      { adminName: "root", ip: "127.0.0.1" },
    );
    const z = cookieOf((await login("zorkmid", "zorkmid-password-1")).setCookie);
    expect(
      await put(
        { CurrentPassword: "zorkmid-password-1", NewPassword: "zorkmid2024", ConfirmPassword: "zorkmid2024" },
        z,
      ),
    ).toMatchObject({ status: 400, body: { Err: "Password is too weak" } });
    expect(
      await put(
        { CurrentPassword: "alice-password", NewPassword: "zorkmid2024", ConfirmPassword: "zorkmid2024" },
        await alice(),
      ),
    ).toMatchObject({ status: 204 });
  });

  it("refuses accounts whose password is not Postern's with 403 Cannot change password", async () => {
    for (const [name, type] of [
      ["lara", "LDAP"],
      ["sam", "SAML"],
      ["kai", "apikey"],
    ] as const) {
      const cookie = await signedInUser(name, type);
      expect(
        await put({ CurrentPassword: "whatever-1", NewPassword: NEW, ConfirmPassword: NEW }, cookie),
      ).toMatchObject({ status: 403, body: { Err: "Cannot change password" } });
    }
  });

  it("throttles wrong current passwords as failed sign-ins of the account", async () => {
    const cookie = await alice();
    for (let i = 0; i < 5; i++)
      expect(
        (await put({ CurrentPassword: `wrong-${i}`, NewPassword: NEW, ConfirmPassword: NEW }, cookie)).status,
      ).toBe(403);
    const r = await put({ CurrentPassword: "alice-password", NewPassword: NEW, ConfirmPassword: NEW }, cookie);
    expect(r).toMatchObject({ status: 429, body: { Err: "Too many requests. Please try again in...", Extra: "60" } });
    expect(r.headers.get("retry-after")).toBe("60");
    expect((await login("alice", "alice-password")).status).toBe(429);
    expect((await audit("passwordChangeFailed")).at(-1)?.errorMessage).toBe(
      "Too many requests. Please try again in...",
    );
  });
});

describe("POST /password (older shape)", () => {
  it("changes the signed-in user's password without a confirmation", async () => {
    const cookie = await alice();
    expect(await post({ ExistingPassword: "alice-password", NewPassword: NEW }, cookie)).toMatchObject({ status: 204 });
    expect((await login("alice", NEW)).status).toBe(200);
    expect(await post({ ExistingPassword: NEW, NewPassword: "short" }, cookie)).toMatchObject({
      status: 400,
      body: LENGTH,
    });
    expect(await post({ ExistingPassword: "wrong-password", NewPassword: NEW }, cookie)).toMatchObject({
      status: 403,
      body: { Err: "Invalid credentials" },
    });
    expect(await post({ CurrentPassword: NEW, NewPassword: NEW }, cookie)).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^ExistingPassword: /) as unknown },
    });
    expect(await post({ ExistingPassword: NEW, NewPassword: NEW }, "")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });

  it("changes the admin's password with an admin session, ending the admin's other sessions only", async () => {
    const other = cookieOf((await adminLogin("root", "root-password")).setCookie);
    const user = await alice();
    const r = await post({ ExistingPassword: "root-password", NewPassword: NEW }, `${root}; ${user}`);
    expect(r).toMatchObject({ status: 204 });
    expect(await adminStatus(root)).toBe(200);
    expect(await adminStatus(other)).toBe(401);
    expect(await userStatus(user)).toBe(200);
    expect((await adminLogin("root", "root-password")).status).toBe(401);
    expect((await adminLogin("root", NEW)).status).toBe(204);
    expect((await login("alice", "alice-password")).status).toBe(200); // the user's password is untouched
    expect((await audit("passwordChanged")).map((e) => [e.userName, e.adminName])).toEqual([["", "root"]]);
    expect(await post({ ExistingPassword: "wrong-password", NewPassword: NEW }, root)).toMatchObject({
      status: 403,
      body: { Err: "Invalid credentials" },
    });
    expect(await post({ ExistingPassword: NEW, NewPassword: "password" }, root)).toMatchObject({
      status: 400,
      body: { Err: "Password is too weak" },
    });
  });

  it("refuses a non-local admin and a sign-in still owing its TOTP code", async () => {
    await h.services.adminSessions.createLocalAdmin({ userName: "lee", name: "Lee", password: "lee-password" });
    await h.services.db
      .update(admins)
      .set({ authType: "LDAP", passwordHash: null, dn: "uid=lee,dc=test" })
      .where(eq(admins.userName, "lee"));
    const lee = await h.services.adminSessions.issue(
      (await h.services.db.select().from(admins).where(eq(admins.userName, "lee")).limit(1))[0]!,
      "203.0.113.5",
    );
    expect(
      await post({ ExistingPassword: "lee-password", NewPassword: NEW }, `postern_admin_session=${lee.token}`),
    ).toMatchObject({ status: 403, body: { Err: "Cannot change password" } });

    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/admin/admins",
          {
            Name: "Tia",
            UserName: "tia",
            PlainPassword: "tia-password",
            ConfirmPassword: "tia-password",
            TOTPEnabled: true,
          },
          { cookie: root },
        )
      ).status,
    ).toBe(201);
    const pending = await adminLogin("tia", "tia-password");
    expect(pending).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    expect(
      await post({ ExistingPassword: "tia-password", NewPassword: NEW }, cookieOf(pending.setCookie)),
    ).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
  });
});

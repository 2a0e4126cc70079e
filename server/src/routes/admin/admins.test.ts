import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";
import { insertPasskey } from "../../repositories/passkeys.ts";

const { admins, auditLog } = testTables;

let h: Harness;
let root = "";
let rootId = "";
const UNKNOWN = "11111111-1111-1111-1111-111111111111";
const PASSWORD_RULE = { Err: "Bad request", Extra: "PlainPassword: Must be between 8 and 64 characters" };

const req = (method: string, path: string, body?: unknown, cookie = root) =>
  apiRequest(h, method, path, body, { cookie });
const newAdmin = (over: Record<string, unknown> = {}) => ({
  Name: "Bob Admin",
  UserName: "bob",
  AuthType: "local",
  PlainPassword: "bob-password",
  ConfirmPassword: "bob-password",
  TOTPEnabled: false,
  LoginEnabled: true,
  ThirdPartyAuth: { DN: "" },
  ...over,
});

async function signIn(userName: string, password: string): Promise<{ status: number; cookie: string }> {
  const r = await apiRequest(h, "POST", "/api/admin/login", { UserName: userName, Password: password });
  return { status: r.status, cookie: r.setCookie.split(";")[0] ?? "" };
}
const works = async (cookie: string) => (await req("GET", "/api/admin/admins", undefined, cookie)).status;
const row = async (id: string) => (await h.services.db.select().from(admins).where(eq(admins.id, id)).limit(1))[0];
const audited = async (action: string) =>
  (await h.services.db.select().from(auditLog).where(eq(auditLog.action, action))).map((r) => r.description);

/** Creates bob through the API and signs him in; returns his id and cookie. */
async function bob(over: Record<string, unknown> = {}): Promise<{ id: string; cookie: string }> {
  const created = await req("POST", "/api/admin/admins", newAdmin(over));
  expect(created.status).toBe(201);
  const login = await signIn("bob", "bob-password");
  // With TOTP on, the sign-in owes a code: 401 and a session only the 2FA routes accept.
  expect(login.status).toBe(over["TOTPEnabled"] === true ? 401 : 204);
  return { id: created.body as string, cookie: login.cookie };
}

beforeEach(async () => {
  h = await createHarness();
  root = await signInAdmin(h);
  rootId = ((await h.services.admins.list()).find((a) => a.UserName === "root") ?? { ID: "" }).ID;
});
afterEach(async () => {
  await h.close();
});

describe("admins CRUD", () => {
  it("creates, lists, reads and updates admins without ever returning secrets", async () => {
    const { id } = await bob();
    const list = await req("GET", "/api/admin/admins");
    expect(list.status).toBe(200);
    const items = list.body as Record<string, unknown>[];
    expect(items.map((a) => a["UserName"])).toEqual(["bob", "root"]);
    for (const a of items)
      expect(Object.keys(a).sort()).toEqual([
        "AuthType",
        "CreatedAt",
        "ID",
        "LastLogin",
        "LoginEnabled",
        "Name",
        "Passkeys",
        "TOTPEnabled",
        "ThirdPartyAuth",
        "UserName",
      ]);
    expect((await req("GET", `/api/admin/admins/${id}`)).body).toMatchObject({
      ID: id,
      Name: "Bob Admin",
      UserName: "bob",
      AuthType: "local",
      TOTPEnabled: false,
      LoginEnabled: true,
      ThirdPartyAuth: { DN: "" },
    });
    expect(JSON.stringify(list.body)).not.toContain("argon2");

    const put = await req("PUT", `/api/admin/admins/${id}`, {
      ...newAdmin({ Name: "Robert", TOTPEnabled: true }),
      ID: id,
      PlainPassword: "",
      ConfirmPassword: "",
    });
    expect(put).toMatchObject({ status: 200, body: id });
    expect((await req("GET", `/api/admin/admins/${id}`)).body).toMatchObject({ Name: "Robert", TOTPEnabled: true });
    // TOTP is now on and bob has no secret yet: the sign-in asks him to enrol.
    expect(
      await apiRequest(h, "POST", "/api/admin/login", { UserName: "bob", Password: "bob-password" }),
    ).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    expect((await audited("adminCreated")).slice(1)).toEqual(["bob"]); // the first is root, created by signInAdmin
    expect(await audited("adminUpdated")).toEqual(["bob"]);
  });

  it("creates LDAP and SAML admins without a password; SAML admins have no TOTP", async () => {
    const ldap = await req(
      "POST",
      "/api/admin/admins",
      newAdmin({
        UserName: "ldap",
        AuthType: "LDAP",
        PlainPassword: undefined,
        ConfirmPassword: undefined,
        ThirdPartyAuth: { DN: "uid=ldap,dc=example" },
      }),
    );
    expect(ldap.status).toBe(201);
    expect(await row(ldap.body as string)).toMatchObject({
      authType: "LDAP",
      passwordHash: null,
      dn: "uid=ldap,dc=example",
    });
    const saml = await req(
      "POST",
      "/api/admin/admins",
      newAdmin({ UserName: "saml", AuthType: "SAML", TOTPEnabled: true }),
    );
    expect(saml.status).toBe(201);
    expect(await row(saml.body as string)).toMatchObject({ authType: "SAML", passwordHash: null, totpEnabled: false });
  });

  it("refuses invalid creates with the exact errors", async () => {
    const post = (over: Record<string, unknown>) => req("POST", "/api/admin/admins", newAdmin(over));
    expect(await req("POST", "/api/admin/admins", "{nope")).toMatchObject({
      status: 400,
      body: { Err: "Failed decoding request body" },
    });
    expect(await post({ Name: "" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Name: /) as unknown },
    });
    expect(await post({ UserName: "" })).toMatchObject({
      status: 400,
      body: { Err: "You must specify a username", Extra: "UserName" },
    });
    expect(await post({ AuthType: "kerberos" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^AuthType: /) as unknown },
    });
    expect(await post({ PlainPassword: undefined, ConfirmPassword: undefined })).toMatchObject({
      status: 400,
      body: PASSWORD_RULE,
    });
    expect(await post({ PlainPassword: "short", ConfirmPassword: "short" })).toMatchObject({
      status: 400,
      body: PASSWORD_RULE,
    });
    expect(await post({ PlainPassword: "x".repeat(65), ConfirmPassword: "x".repeat(65) })).toMatchObject({
      status: 400,
      body: PASSWORD_RULE,
    });
    expect(await post({ ConfirmPassword: undefined })).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await post({ ConfirmPassword: "other-password" })).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await post({ UserName: "root" })).toMatchObject({
      status: 409,
      body: { Err: "An admin with that username already exists" },
    });
    expect(await post({ PlainPassword: "x".repeat(64), ConfirmPassword: "x".repeat(64) })).toMatchObject({
      status: 201,
    });
    expect((await audited("adminCreated")).slice(1)).toEqual(["bob"]); // the first is root, created by signInAdmin
  });

  it("refuses invalid updates with the exact errors", async () => {
    const { id } = await bob();
    const put = (over: Record<string, unknown>, target = id) =>
      req(
        "PUT",
        `/api/admin/admins/${target}`,
        newAdmin({ PlainPassword: undefined, ConfirmPassword: undefined, ...over }),
      );
    expect(await put({ UserName: "robert" })).toMatchObject({ status: 400, body: { Err: "Cannot change username" } });
    expect(await put({ ID: UNKNOWN })).toMatchObject({ status: 400, body: { Err: "Mismatching IDs" } });
    expect(await put({}, UNKNOWN)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await put({ PlainPassword: "new-password" })).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await put({ PlainPassword: "new-password", ConfirmPassword: "other-password" })).toMatchObject({
      status: 400,
      body: { Err: "err.passwordsDontMatch" },
    });
    expect(await put({ PlainPassword: "short", ConfirmPassword: "short" })).toMatchObject({
      status: 400,
      body: PASSWORD_RULE,
    });
    expect(await put({ AuthType: "LDAP" })).toMatchObject({ status: 200 });
    expect((await row(id))?.passwordHash).toBeNull();
    // Back to local without a password: nothing to sign in with.
    expect(await put({ AuthType: "local" })).toMatchObject({ status: 400, body: PASSWORD_RULE });
    expect(
      await put({ AuthType: "local", PlainPassword: "new-password", ConfirmPassword: "new-password" }),
    ).toMatchObject({ status: 200 });
    expect((await signIn("bob", "new-password")).status).toBe(204);
  });

  it("requires an admin session", async () => {
    expect(await req("GET", "/api/admin/admins", undefined, "")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect(await req("POST", "/api/admin/admins", newAdmin(), "")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });
});

describe("admin self-protection and session ends", () => {
  it("refuses to delete or disable the acting admin's own account", async () => {
    expect(await req("DELETE", `/api/admin/admins/${rootId}`)).toMatchObject({
      status: 403,
      body: { Err: "You cannot delete your own account" },
    });
    const self = newAdmin({ Name: "root", UserName: "root", PlainPassword: undefined, ConfirmPassword: undefined });
    expect(await req("PUT", `/api/admin/admins/${rootId}`, { ...self, LoginEnabled: false })).toMatchObject({
      status: 403,
      body: { Err: "You cannot disable your own login" },
    });
    expect((await row(rootId))?.loginEnabled).toBe(true);
    expect(await works(root)).toBe(200);
  });

  it("lets an admin turn on their own 2FA but never off (cannotDisableOwn2fa)", async () => {
    const self = newAdmin({ Name: "root", UserName: "root", PlainPassword: undefined, ConfirmPassword: undefined });
    expect((await req("PUT", `/api/admin/admins/${rootId}`, { ...self, TOTPEnabled: true })).status).toBe(200);
    expect(await req("PUT", `/api/admin/admins/${rootId}`, { ...self, TOTPEnabled: false })).toMatchObject({
      status: 403,
      body: { Err: "cannotDisableOwn2fa" },
    });
    expect(
      await req("PUT", `/api/admin/admins/${rootId}`, { ...self, AuthType: "SAML", TOTPEnabled: true }),
    ).toMatchObject({ status: 403, body: { Err: "cannotDisableOwn2fa" } });
    expect((await row(rootId))?.totpEnabled).toBe(true);
  });

  it("ends an admin's sessions when their login is disabled, and they cannot sign in", async () => {
    const { id, cookie } = await bob();
    expect(await works(cookie)).toBe(200);
    expect(
      (
        await req(
          "PUT",
          `/api/admin/admins/${id}`,
          newAdmin({ LoginEnabled: false, PlainPassword: undefined, ConfirmPassword: undefined }),
        )
      ).status,
    ).toBe(200);
    expect(await works(cookie)).toBe(401);
    expect((await row(id))?.loginEnabled).toBe(false);
    expect((await signIn("bob", "bob-password")).status).toBe(403);
    // Enabling again does not bring the ended session back.
    expect(
      (await req("PUT", `/api/admin/admins/${id}`, newAdmin({ PlainPassword: undefined, ConfirmPassword: undefined })))
        .status,
    ).toBe(200);
    expect(await works(cookie)).toBe(401);
  });

  it("ends the admin's other sessions on a new password, keeping the one acting", async () => {
    const { id, cookie } = await bob();
    expect(
      (
        await req(
          "PUT",
          `/api/admin/admins/${id}`,
          newAdmin({ PlainPassword: "bob-password-2", ConfirmPassword: "bob-password-2" }),
        )
      ).status,
    ).toBe(200);
    expect(await works(cookie)).toBe(401);
    const second = await signIn("root", "root-password");
    const self = newAdmin({
      Name: "root",
      UserName: "root",
      PlainPassword: "root-password-2",
      ConfirmPassword: "root-password-2",
    });
    expect((await req("PUT", `/api/admin/admins/${rootId}`, self)).status).toBe(200);
    expect(await works(root)).toBe(200);
    expect(await works(second.cookie)).toBe(401);
  });

  it("deletes another admin and ends their sessions", async () => {
    const { id, cookie } = await bob();
    expect((await req("DELETE", `/api/admin/admins/${id}`)).status).toBe(204);
    expect(await works(cookie)).toBe(401);
    expect(await req("GET", `/api/admin/admins/${id}`)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await req("DELETE", `/api/admin/admins/${id}`)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await audited("adminDeleted")).toEqual(["bob"]);
  });
});

describe("2FA reset", () => {
  it("clears another admin's TOTP secret, keeps TOTPEnabled, and refuses the acting admin's own", async () => {
    const { id } = await bob({ TOTPEnabled: true });
    await h.services.db.update(admins).set({ totpSecretEnc: "sealed", totpLastStep: 42 }).where(eq(admins.id, id));
    await h.services.db.update(admins).set({ totpSecretEnc: "mine", totpLastStep: 7 }).where(eq(admins.id, rootId));
    expect((await req("DELETE", `/api/admin/admins/${id}/totpToken`)).status).toBe(204);
    expect(await row(id)).toMatchObject({ totpEnabled: true, totpSecretEnc: null, totpLastStep: null });
    expect(await req("DELETE", `/api/admin/admins/${rootId}/totpToken`)).toMatchObject({
      status: 403,
      body: { Err: "cannotResetOwn2fa" },
    });
    expect(await row(rootId)).toMatchObject({ totpSecretEnc: "mine", totpLastStep: 7 });
    expect(await req("DELETE", `/api/admin/admins/${UNKNOWN}/totpToken`)).toMatchObject({
      status: 404,
      body: { Err: "Not found" },
    });
    expect(await audited("totpReset")).toEqual(["admin bob"]);
  });

  it("names an admin's passkeys (Passkeys); the reset of a passkey-only admin removes them", async () => {
    const { id } = await bob({ TOTPEnabled: false });
    await insertPasskey(h.services.db, "admin", id, {
      id: "p1",
      name: "key",
      credentialId: "cred-p1",
      publicKey: "pk",
      deviceType: "singleDevice",
      createdAt: 1,
    });
    expect((await req("GET", `/api/admin/admins/${id}`)).body).toMatchObject({ TOTPEnabled: false, Passkeys: 1 });
    const listed = (await req("GET", "/api/admin/admins")).body as { ID: string; Passkeys: number }[];
    expect(listed.find((a) => a.ID === id)?.Passkeys).toBe(1);
    expect(listed.find((a) => a.ID === rootId)?.Passkeys).toBe(0);
    expect((await req("DELETE", `/api/admin/admins/${id}/totpToken`)).status).toBe(204);
    expect((await req("GET", `/api/admin/admins/${id}`)).body).toMatchObject({ Passkeys: 0 });
  });

  it("forgets the TOTP secret when an admin's 2FA is turned off", async () => {
    const { id } = await bob({ TOTPEnabled: true });
    await h.services.db.update(admins).set({ totpSecretEnc: "sealed", totpLastStep: 42 }).where(eq(admins.id, id));
    expect(
      (
        await req(
          "PUT",
          `/api/admin/admins/${id}`,
          newAdmin({ TOTPEnabled: false, PlainPassword: undefined, ConfirmPassword: undefined }),
        )
      ).status,
    ).toBe(200);
    expect(await row(id)).toMatchObject({ totpEnabled: false, totpSecretEnc: null, totpLastStep: null });
  });
});

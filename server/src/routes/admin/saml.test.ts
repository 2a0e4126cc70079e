import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { desc, eq } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, socketEnv } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { FakeIdp, b64, makeKeyPair, requestIdOf, responseXml } from "../../testing/saml.ts";
import { setSetting } from "../../services/settings.ts";

const { adminSessions, admins, auditLog } = testTables;

const actor = { adminName: "test-admin", ip: "127.0.0.1" };
const ADMIN_SP = {
  acsUrl: "http://postern.test/api/admin/saml/acs",
  audience: "http://postern.test/api/admin/saml/metadata",
};
const USER_SP = { acsUrl: "http://postern.test/api/saml/acs", audience: "http://postern.test/api/saml/metadata" };
const FAILED = "/admin?error=Authentication%20failed";

let idp: FakeIdp;
let h: Harness;

beforeAll(async () => {
  idp = new FakeIdp(await makeKeyPair("idp.example.test"));
});
beforeEach(async () => {
  h = await createHarness();
  await setSetting(h.services.db, "PublicURL", "http://postern.test");
  await setSetting(h.services.db, "AdminSAMLMetadataFile", idp.metadata());
  await h.services.admins.create(
    {
      Name: "Sam L",
      UserName: "sam@example.test",
      AuthType: "SAML",
      TOTPEnabled: false,
      LoginEnabled: true,
      ThirdPartyAuth: { DN: "" },
    },
    actor,
  );
});
afterEach(async () => {
  await h.close();
});

async function acs(samlResponse: string): Promise<{ status: number; location: string; setCookie: string }> {
  const res = await h.app.request(
    "http://postern.test/api/admin/saml/acs",
    {
      method: "POST",
      headers: {
        host: "postern.test",
        "content-type": "application/x-www-form-urlencoded",
        origin: "https://idp.example.test",
        "sec-fetch-site": "cross-site",
      },
      body: new URLSearchParams({ SAMLResponse: samlResponse }).toString(),
    },
    socketEnv(),
  );
  return {
    status: res.status,
    location: res.headers.get("location") ?? "",
    setCookie: res.headers.get("set-cookie") ?? "",
  };
}

async function start(): Promise<string> {
  const r = await apiRequest(h, "GET", "/api/admin/login/saml");
  expect(r.status).toBe(302);
  return requestIdOf(r.headers.get("location") ?? "");
}

const adminCookie = (setCookie: string) => /postern_admin_session=[^;]+/.exec(setCookie)?.[0] ?? "";
const sessionCount = async () => (await h.services.db.select().from(adminSessions)).length;
const lastAudit = async () => (await h.services.db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0];

async function expectRefused(samlResponse: string, reason: RegExp, key = FAILED): Promise<void> {
  const sessions = await sessionCount();
  const r = await acs(samlResponse);
  expect(r).toMatchObject({ status: 303, location: key });
  expect(r.setCookie).not.toMatch(/postern_admin_session=/);
  expect(await sessionCount()).toBe(sessions);
  const entry = await lastAudit();
  expect(entry).toMatchObject({ action: "adminLoginFailed", ipAddress: "203.0.113.5" });
  expect(entry?.errorMessage).toMatch(reason);
}

describe("admin SAML", () => {
  it("answers the admin SP metadata, and 404 SAML not configured without admin settings", async () => {
    const r = await apiRequest(h, "GET", "/api/admin/saml/metadata");
    expect(r.status).toBe(200);
    expect(String(r.body)).toContain('entityID="http://postern.test/api/admin/saml/metadata"');
    expect(String(r.body)).toContain('Location="http://postern.test/api/admin/saml/acs"');
    // The user side has its own settings.
    expect(await apiRequest(h, "GET", "/api/saml/metadata")).toMatchObject({
      status: 404,
      body: { Err: "SAML not configured" },
    });
    await setSetting(h.services.db, "AdminSAMLMetadataFile", "");
    expect(await apiRequest(h, "GET", "/api/admin/saml/metadata")).toMatchObject({
      status: 404,
      body: { Err: "SAML not configured" },
    });
    const login = await apiRequest(h, "GET", "/api/admin/login/saml");
    expect(login.headers.get("location")).toBe("/admin?error=SAML%20not%20configured");
  });

  it("signs in an existing SAML admin and redirects to /admin/home", async () => {
    const r = await acs(idp.signed(idp.fields(await start(), ADMIN_SP, "sam@example.test")));
    expect(r).toMatchObject({ status: 303, location: "/admin/home" });
    const cookie = adminCookie(r.setCookie);
    expect((await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie })).status).toBe(200);
    expect(await lastAudit()).toMatchObject({ action: "adminLoggedIn", adminName: "sam@example.test" });
    expect(
      (await h.services.db.select().from(admins).where(eq(admins.userName, "sam@example.test")).limit(1))[0]?.lastLogin,
    ).not.toBeNull();
  });

  it("creates an admin at the first sign-in through the admin IdP (audit admin auto-created)", async () => {
    const nobody = async () =>
      (await h.services.db.select().from(admins).where(eq(admins.userName, "nobody@example.test")).limit(1))[0];
    const autoCreated = async () =>
      await h.services.db.select().from(auditLog).where(eq(auditLog.action, "adminAutoCreated"));
    expect(await nobody()).toBeUndefined();
    const fields = {
      ...idp.fields(await start(), ADMIN_SP, "nobody@example.test"),
      attributes: { displayName: ["No Body"] },
    };
    const r = await acs(idp.signed(fields));
    expect(r).toMatchObject({ status: 303, location: "/admin/home" });
    const cookie = adminCookie(r.setCookie);
    expect((await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie })).status).toBe(200);
    expect(await nobody()).toMatchObject({
      name: "No Body",
      authType: "SAML",
      totpEnabled: false,
      loginEnabled: true,
      passwordHash: null,
    });
    expect(await autoCreated()).toEqual([
      expect.objectContaining({
        adminName: "nobody@example.test",
        ipAddress: "203.0.113.5",
        description: "created at the first sign-in through the admin IdP",
      }),
    ]);
    // The next sign-in finds the admin: nothing is created again.
    const again = await acs(idp.signed(idp.fields(await start(), ADMIN_SP, "nobody@example.test")));
    expect(again).toMatchObject({ status: 303, location: "/admin/home" });
    expect(await autoCreated()).toHaveLength(1);
    expect(await h.services.db.select().from(admins).where(eq(admins.userName, "nobody@example.test"))).toHaveLength(1);
  });

  it("creates no admin from a response of the user IdP's audience", async () => {
    await expectRefused(idp.signed(idp.fields(await start(), USER_SP, "visitor@example.test")), /./);
    expect(
      (await h.services.db.select().from(admins).where(eq(admins.userName, "visitor@example.test")).limit(1))[0],
    ).toBeUndefined();
  });

  it("never signs in a local admin of the same name", async () => {
    await h.services.adminSessions.createLocalAdmin({
      userName: "root@example.test",
      name: "Root",
      password: "root-password",
    });
    await expectRefused(idp.signed(idp.fields(await start(), ADMIN_SP, "root@example.test")), /not a SAML admin/);
  });

  it("answers Login not permitted for a SAML admin with login turned off", async () => {
    await h.services.db.update(admins).set({ loginEnabled: false }).where(eq(admins.userName, "sam@example.test"));
    const r = await acs(idp.signed(idp.fields(await start(), ADMIN_SP, "sam@example.test")));
    expect(r).toMatchObject({ status: 303, location: "/admin?error=Login%20not%20permitted" });
    expect(r.setCookie).not.toMatch(/postern_admin_session=/);
    expect(await lastAudit()).toMatchObject({
      action: "adminLoginFailed",
      adminName: "sam@example.test",
      errorMessage: "login not permitted",
    });
  });

  it("refuses a response made for the user portal, and a request of the user portal", async () => {
    await setSetting(h.services.db, "SAMLMetadataFile", idp.metadata());
    // Issued for the user SP (audience and recipient), answering an admin request.
    await expectRefused(
      idp.signed({ ...idp.fields(await start(), ADMIN_SP, "sam@example.test"), audience: USER_SP.audience }),
      /audience/,
    );
    await expectRefused(
      idp.signed({ ...idp.fields(await start(), ADMIN_SP, "sam@example.test"), recipient: USER_SP.acsUrl }),
      /recipient/,
    );
    // A user-portal request id answered to the admin ACS.
    const userStart = await apiRequest(h, "GET", "/api/login/saml?kioskMode=false");
    const userRequest = requestIdOf(userStart.headers.get("location") ?? "");
    await expectRefused(
      idp.signed(idp.fields(userRequest, ADMIN_SP, "sam@example.test")),
      /InResponseTo names no pending request/,
    );
  });

  it("refuses an unsigned response and one signed by another key", async () => {
    const other = await makeKeyPair("attacker");
    await expectRefused(
      idp.signed(idp.fields(await start(), ADMIN_SP, "sam@example.test"), other),
      /UNMATCH_CERTIFICATE/,
    );
    await expectRefused(
      b64(responseXml(idp.fields(await start(), ADMIN_SP, "sam@example.test"))),
      /FAILED_TO_VERIFY_SIGNATURE/,
    );
  });

  it("refuses a form without SAMLResponse with Bad request", async () => {
    const res = await h.app.request(
      "http://postern.test/api/admin/saml/acs",
      {
        method: "POST",
        headers: { host: "postern.test", "content-type": "application/x-www-form-urlencoded" },
        body: "RelayState=x",
      },
      socketEnv(),
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin?error=Bad%20request");
    expect(await lastAudit()).toMatchObject({ action: "adminLoginFailed", errorMessage: "SAMLResponse missing" });
  });
});

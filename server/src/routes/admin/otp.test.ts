/**
 * Admin 2FA (issue #4 item 1; docs/reference.md admin-console §7 GET /admin/otp/generate, POST /admin/otp/verify
 * with {Code} or {deferEnrolment}): enrolment, verification, replay, deferral allowed and refused,
 * body validation, completed sessions refused, SAML admins without TOTP, the 2FA reset.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { generateSync } from "otplib";
import { AdminWriteSchema } from "@postern/shared";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { setSetting } from "../../services/settings.ts";

const { admins, adminSessions, auditLog } = testTables;

let h: Harness;
let root = "";
let bobId = "";

const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";
const bobRow = async () => (await h.services.db.select().from(admins).where(eq(admins.id, bobId)).limit(1))[0]!;
const actions = async (action: string) =>
  await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const codeAt = (secret: string, offsetSeconds = 0) =>
  generateSync({ secret, epoch: Math.floor(h.clock.now() / 1000) + offsetSeconds });

/** Moves the test clock to the middle of a 30-second step. */
function midStep(): void {
  const into = h.clock.now() % 30_000;
  h.clock.advance((45_000 - into) % 30_000 || 30_000);
}

async function login(userName = "bob", password = "bob-password") {
  const r = await apiRequest(h, "POST", "/api/admin/login", { UserName: userName, Password: password });
  return { ...r, cookie: cookieOf(r.setCookie) };
}
const generate = (cookie: string) => apiRequest(h, "GET", "/api/admin/otp/generate", undefined, { cookie });
const verify = (cookie: string, body: unknown) => apiRequest(h, "POST", "/api/admin/otp/verify", body, { cookie });
/** An admin-only read: 200 with a usable admin session, 401 otherwise. */
const adminRead = (cookie: string) => apiRequest(h, "GET", "/api/admin/status", undefined, { cookie });

async function enrolBob(): Promise<{ secret: string; cookie: string }> {
  const l = await login();
  expect(l).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
  const secret = ((await generate(l.cookie)).body as { Secret: string }).Secret;
  const v = await verify(l.cookie, { Code: codeAt(secret) });
  expect(v.status).toBe(204);
  return { secret, cookie: cookieOf(v.setCookie) };
}

beforeEach(async () => {
  h = await createHarness();
  root = await signInAdmin(h);
  const r = await apiRequest(
    h,
    "POST",
    "/api/admin/admins",
    {
      Name: "Bob",
      UserName: "bob",
      AuthType: "local",
      PlainPassword: "bob-password",
      ConfirmPassword: "bob-password",
      TOTPEnabled: true,
    },
    { cookie: root },
  );
  expect(r.status).toBe(201);
  bobId = (await h.services.admins.list()).find((a) => a.UserName === "bob")!.ID;
  midStep();
});
afterEach(async () => {
  await h.close();
});

describe("admin enrolment and verification", () => {
  it("login → 401 enrolment → generate → verify → the admin console works", async () => {
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    expect(l.setCookie).toMatch(/postern_admin_session=.+HttpOnly/i);
    expect((await adminRead(l.cookie)).status).toBe(401);
    const g = await generate(l.cookie);
    expect(g.status).toBe(200);
    const { Secret, URL } = g.body as { Secret: string; URL: string };
    expect(URL).toBe(`otpauth://totp/Postern:bob?secret=${Secret}&issuer=Postern`);
    expect((await bobRow()).totpSecretEnc).toBeNull();
    const v = await verify(l.cookie, { Code: codeAt(Secret) });
    expect(v).toMatchObject({ status: 204, body: "" });
    // The session id (cookie token) is rotated when 2FA completes: the pending token is spent.
    const completed = cookieOf(v.setCookie);
    expect(completed).toMatch(/^postern_admin_session=[A-Za-z0-9_-]{22}$/);
    expect(completed).not.toBe(l.cookie);
    expect((await adminRead(l.cookie)).status).toBe(401);
    expect((await generate(l.cookie)).status).toBe(401);
    expect((await adminRead(completed)).status).toBe(200);
    const row = await bobRow();
    expect(row.totpSecretEnc).toMatch(/^v1\./);
    expect(row.totpSecretEnc).not.toContain(Secret);
    expect(h.services.secrets.open(`totp.admin:${bobId}`, row.totpSecretEnc!)).toBe(Secret);
    // Sealed for the admin, not usable as a user's secret of the same id.
    expect(() => h.services.secrets.open(`totp.user:${bobId}`, row.totpSecretEnc!)).toThrow();
    expect(await actions("totpEnrolled")).toEqual([expect.objectContaining({ adminName: "bob", userName: "" })]);
    expect((await actions("adminLoggedIn")).filter((e) => e.adminName === "bob")).toHaveLength(1);
  });

  it("verifies enrolled admins: wrong code refused and audited, replay refused, next step accepted", async () => {
    const { secret } = await enrolBob();
    const used = codeAt(secret);
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpVerificationRequired" } });
    expect(await generate(l.cookie)).toMatchObject({ status: 409, body: { Err: "User already verified" } });
    expect(await verify(l.cookie, { Code: used })).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect(await verify(l.cookie, { Code: codeAt(secret, -60) })).toMatchObject({
      status: 401,
      body: { Err: "Invalid code" },
    });
    expect(await actions("totpCodeFailed")).toEqual([
      expect.objectContaining({ adminName: "bob", description: "verification" }),
      expect.objectContaining({ adminName: "bob", description: "verification" }),
    ]);
    expect((await adminRead(l.cookie)).status).toBe(401);
    h.clock.advance(30_000);
    const v = await verify(l.cookie, { Code: codeAt(secret) });
    expect(v.status).toBe(204);
    expect((await adminRead(l.cookie)).status).toBe(401);
    expect((await adminRead(cookieOf(v.setCookie))).status).toBe(200);
    expect(await actions("totpVerified")).toEqual([expect.objectContaining({ adminName: "bob" })]);
  });

  it("refuses generate and verify for a completed admin session", async () => {
    const { secret, cookie } = await enrolBob();
    expect(await generate(cookie)).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
    expect(await verify(cookie, { Code: codeAt(secret, 30) })).toMatchObject({
      status: 409,
      body: { Err: "Already verified 2FA" },
    });
    expect(await verify(root, { Code: "123456" })).toMatchObject({
      status: 409,
      body: { Err: "Already verified 2FA" },
    });
    await setSetting(h.services.db, "AllowAdminTotpDeferral", true);
    expect(await verify(root, { deferEnrolment: true })).toMatchObject({
      status: 409,
      body: { Err: "Already verified 2FA" },
    });
    expect(await actions("totpCodeFailed")).toHaveLength(0);
    expect(await actions("totpEnrolmentDeferred")).toHaveLength(0);
  });

  it("refuses bad bodies with their keys", async () => {
    const l = await login();
    expect(await verify(l.cookie, "{nope")).toMatchObject({
      status: 400,
      body: { Err: "Failed decoding request body" },
    });
    for (const body of [
      {},
      { deferEnrolment: false },
      { Code: "123456", deferEnrolment: true },
      { Code: 123456 },
      { Code: "1".repeat(17) },
      { deferEnrolment: "yes" },
    ]) {
      expect({ body, r: await verify(l.cookie, body) }).toMatchObject({
        body,
        r: { status: 400, body: { Err: "Bad request" } },
      });
    }
    expect(await verify(l.cookie, { Code: "abcdef" })).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect((await adminRead(l.cookie)).status).toBe(401);
  });

  it("refuses callers without an admin session (user cookies included)", async () => {
    expect(await generate("")).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await verify("", { Code: "123456" })).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    const l = await login();
    const asUser = l.cookie.replace("postern_admin_session", "postern_session");
    expect(await generate(asUser)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await apiRequest(h, "GET", "/api/otp/generate", undefined, { cookie: asUser })).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    await h.services.db
      .update(adminSessions)
      .set({ endsAt: h.clock.now() - 1 })
      .where(eq(adminSessions.adminId, bobId));
    expect(await generate(l.cookie)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await verify(l.cookie, { Code: "123456" })).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });
});

describe("deferring admin enrolment", () => {
  it("is refused while the server does not allow it (the default)", async () => {
    const l = await login();
    expect(await verify(l.cookie, { deferEnrolment: true })).toMatchObject({
      status: 403,
      body: { Err: "2FA enrolment cannot be deferred" },
    });
    expect((await adminRead(l.cookie)).status).toBe(401);
    expect(await actions("totpEnrolmentDeferred")).toHaveLength(0);
  });

  it("is switched on and off by an admin in the authentication settings (off by default)", async () => {
    const auth = (body?: unknown) =>
      apiRequest(h, body === undefined ? "GET" : "POST", "/api/admin/settings/authentication", body, { cookie: root });
    expect((await auth()).body).toMatchObject({ AllowAdminTotpDeferral: false });
    expect((await auth({ AllowAdminTotpDeferral: true })).body).toMatchObject({ AllowAdminTotpDeferral: true });
    const l = await login();
    const v = await verify(l.cookie, { deferEnrolment: true });
    expect(v).toMatchObject({ status: 204 });
    // Deferring completes the sign-in: the session continues under a new token.
    expect((await adminRead(cookieOf(v.setCookie))).status).toBe(200);
    // Other authentication fields leave it as it is; switching it off refuses deferral again.
    expect((await auth({ LDAPStartTLS: false })).body).toMatchObject({ AllowAdminTotpDeferral: true });
    expect((await auth({ AllowAdminTotpDeferral: false })).body).toMatchObject({ AllowAdminTotpDeferral: false });
    const again = await login();
    expect(await verify(again.cookie, { deferEnrolment: true })).toMatchObject({
      status: 403,
      body: { Err: "2FA enrolment cannot be deferred" },
    });
  });

  it("completes this sign-in without 2FA when allowed, audited; the next sign-in asks to enrol again", async () => {
    await setSetting(h.services.db, "AllowAdminTotpDeferral", true);
    const l = await login();
    const v = await verify(l.cookie, { deferEnrolment: true });
    expect(v).toMatchObject({ status: 204 });
    expect((await adminRead(l.cookie)).status).toBe(401);
    expect((await adminRead(cookieOf(v.setCookie))).status).toBe(200);
    expect(await actions("totpEnrolmentDeferred")).toEqual([
      expect.objectContaining({ adminName: "bob", ipAddress: "203.0.113.5" }),
    ]);
    expect(await bobRow()).toMatchObject({ totpEnabled: true, totpSecretEnc: null });
    expect(await login()).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
  });

  it("is never a way around an enrolled admin's code", async () => {
    await enrolBob();
    await setSetting(h.services.db, "AllowAdminTotpDeferral", true);
    const l = await login();
    expect(await verify(l.cookie, { deferEnrolment: true })).toMatchObject({
      status: 409,
      body: { Err: "User already verified" },
    });
    expect((await adminRead(l.cookie)).status).toBe(401);
    expect(await actions("totpEnrolmentDeferred")).toHaveLength(0);
  });
});

describe("SAML admins", () => {
  it("have no TOTP: stored off, never pending, the 2FA routes refuse their session", async () => {
    const id = await h.services.admins.create(
      AdminWriteSchema.parse({ Name: "Sam", UserName: "sam@idp", AuthType: "SAML", TOTPEnabled: true }),
      { adminName: "root", ip: "127.0.0.1" },
    );
    expect((await h.services.admins.get(id)).TOTPEnabled).toBe(false);
    // Even with TOTP forced on in the database, a SAML admin's sign-in owes no code.
    await h.services.db.update(admins).set({ totpEnabled: true }).where(eq(admins.id, id));
    const row = (await h.services.db.select().from(admins).where(eq(admins.id, id)).limit(1))[0]!;
    const signed = await h.services.adminSessions.issue(row, "203.0.113.5");
    expect(signed.pending).toBeNull();
    const cookie = `postern_admin_session=${signed.token}`;
    expect((await adminRead(cookie)).status).toBe(200);
    expect(await generate(cookie)).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
    // And a SAML admin's session left pending is refused by the TOTP service itself.
    await h.services.db.update(adminSessions).set({ verified: false }).where(eq(adminSessions.adminId, id));
    expect(await generate(cookie)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await verify(cookie, { Code: "123456" })).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });
});

describe("admin 2FA reset", () => {
  it("after a reset the admin's next sign-in asks to enrol; an admin cannot reset their own", async () => {
    const { secret } = await enrolBob();
    expect(
      (await apiRequest(h, "DELETE", `/api/admin/admins/${bobId}/totpToken`, undefined, { cookie: root })).status,
    ).toBe(204);
    expect(await bobRow()).toMatchObject({ totpEnabled: true, totpSecretEnc: null, totpLastStep: null });
    expect(await actions("totpReset")).toEqual([
      expect.objectContaining({ adminName: "root", description: "admin bob" }),
    ]);
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    expect(await verify(l.cookie, { Code: codeAt(secret, 30) })).toMatchObject({
      status: 401,
      body: { Err: "Invalid code" },
    });
    const fresh = ((await generate(l.cookie)).body as { Secret: string }).Secret;
    expect(fresh).not.toBe(secret);
    const v = await verify(l.cookie, { Code: codeAt(fresh) });
    expect(v.status).toBe(204);
    // Bob, now signed in, cannot reset his own 2FA.
    expect(
      await apiRequest(h, "DELETE", `/api/admin/admins/${bobId}/totpToken`, undefined, {
        cookie: cookieOf(v.setCookie),
      }),
    ).toMatchObject({ status: 403, body: { Err: "cannotResetOwn2fa" } });
    expect((await bobRow()).totpSecretEnc).not.toBeNull();
  });
});

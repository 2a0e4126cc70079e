/**
 * User 2FA (issue #4 item 1; docs/reference.md user-portal §4, §7 /otp/generate and /otp/verify): enrolment end to
 * end, verification, wrong / malformed / replayed / too old codes, the secret sealed at rest,
 * completed sessions refused, the admin's 2FA reset, SAML users without TOTP, the throttling hooks.
 * Codes are computed by otplib from the returned secret at the TestClock's time.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { generateSync } from "otplib";
import { testTables } from "../../testing/database.ts";
import { AppError } from "../../errors.ts";
import { Errors } from "@postern/shared";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import { totpStep } from "../../services/auth/totp.ts";
import { randomUUID } from "node:crypto";

const { auditLog, users, userSessions } = testTables;

let h: Harness;
let seed: Seeded;

const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";
const aliceRow = async () => (await h.services.db.select().from(users).where(eq(users.id, seed.userId)).limit(1))[0]!;
const actions = async (action: string) =>
  await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));

/** The code of `secret` at the test clock's time plus `offsetSeconds`. */
const codeAt = (secret: string, offsetSeconds = 0) =>
  generateSync({ secret, epoch: Math.floor(h.clock.now() / 1000) + offsetSeconds });

/** Moves the test clock to the middle of a 30-second step, so a test never straddles a step edge. */
function midStep(): void {
  const into = h.clock.now() % 30_000;
  h.clock.advance((45_000 - into) % 30_000 || 30_000);
}

async function login(userName = "alice", password = "alice-password") {
  const r = await apiRequest(h, "POST", "/api/login", { UserName: userName, Password: password, KioskMode: false });
  return { ...r, cookie: cookieOf(r.setCookie) };
}
const generate = (cookie: string) => apiRequest(h, "GET", "/api/otp/generate", undefined, { cookie });
const verify = (cookie: string, code: unknown) => apiRequest(h, "POST", "/api/otp/verify", { Code: code }, { cookie });
const status = (cookie: string) => apiRequest(h, "GET", "/api/status", undefined, { cookie });

/** Signs alice in and enrols her; answers the secret and the (completed) session cookie. */
async function enrolAlice(): Promise<{ secret: string; cookie: string }> {
  const l = await login();
  expect(l).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
  const g = await generate(l.cookie);
  expect(g.status).toBe(200);
  const secret = (g.body as { Secret: string }).Secret;
  const v = await verify(l.cookie, codeAt(secret));
  expect(v).toMatchObject({ status: 200 });
  return { secret, cookie: cookieOf(v.setCookie) };
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  await h.services.db.update(users).set({ totpEnabled: true }).where(eq(users.id, seed.userId));
  midStep();
});
afterEach(async () => {
  await h.close();
});

describe("enrolment", () => {
  it("login → 401 enrolment → generate → verify with an otplib code → the portal works", async () => {
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    expect(l.setCookie).toMatch(/postern_session=.+HttpOnly/i);
    expect((await status(l.cookie)).status).toBe(401);

    const g = await generate(l.cookie);
    expect(g.status).toBe(200);
    const { Secret, URL } = g.body as { Secret: string; URL: string };
    expect(Secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(URL).toBe(`otpauth://totp/Postern:alice?secret=${Secret}&issuer=Postern`);
    // The same secret for the whole pending session; nothing stored until a code verifies.
    expect((await generate(l.cookie)).body).toEqual({ Secret, URL });
    expect((await aliceRow()).totpSecretEnc).toBeNull();

    const v = await verify(l.cookie, codeAt(Secret));
    expect(v.status).toBe(200);
    const session = (
      await h.services.db.select().from(userSessions).where(eq(userSessions.userId, seed.userId)).limit(1)
    )[0]!;
    expect(v.body).toEqual({ Ends: new Date(session.endsAt).toISOString() });
    expect(session.verified).toBe(true);
    // The session id (cookie token) is rotated when 2FA completes: the pending token is spent.
    const completed = cookieOf(v.setCookie);
    expect(completed).toMatch(/^postern_session=[A-Za-z0-9_-]{22}$/);
    expect(completed).not.toBe(l.cookie);
    expect(v.setCookie).toMatch(/HttpOnly/);
    expect((await status(l.cookie)).status).toBe(401);
    expect((await generate(l.cookie)).status).toBe(401);
    expect((await status(completed)).body).toMatchObject({ Name: "Alice" });

    const row = await aliceRow();
    expect(row.totpLastStep).toBe(totpStep(h.clock.now()));
    expect(await actions("totpEnrolled")).toEqual([
      expect.objectContaining({ userName: "alice", ipAddress: "203.0.113.5" }),
    ]);
    expect(await actions("userLoggedIn")).toHaveLength(1);
  });

  it("stores the secret sealed, never in plaintext", async () => {
    const { secret } = await enrolAlice();
    const row = await aliceRow();
    expect(row.totpSecretEnc).toMatch(/^v1\./);
    expect(row.totpSecretEnc).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(h.services.secrets.open(`totp.user:${seed.userId}`, row.totpSecretEnc!)).toBe(secret);
    // Bound to its purpose: it does not open as another account's secret.
    expect(() => h.services.secrets.open("totp.user:someone-else", row.totpSecretEnc!)).toThrow();
    // The enrolment key is sealed too.
    const stored = JSON.stringify(await h.services.db.select().from(users));
    expect(stored).not.toContain(secret);
  });

  it("gives another secret to another pending session; the first enrolment wins", async () => {
    const a = await login();
    const b = await login();
    const sa = ((await generate(a.cookie)).body as { Secret: string }).Secret;
    const sb = ((await generate(b.cookie)).body as { Secret: string }).Secret;
    expect(sa).not.toBe(sb);
    expect((await verify(a.cookie, codeAt(sa))).status).toBe(200);
    // b's enrolment secret is no longer the account's: b must give a code of the enrolled one.
    expect(await generate(b.cookie)).toMatchObject({ status: 409, body: { Err: "User already verified" } });
    expect(await verify(b.cookie, codeAt(sb, 30))).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect((await verify(b.cookie, codeAt(sa, 30))).status).toBe(200);
  });

  it("an unfinished enrolment leaves the account as it was: the next sign-in enrols again", async () => {
    const l = await login();
    expect((await generate(l.cookie)).status).toBe(200);
    expect((await aliceRow()).totpSecretEnc).toBeNull();
    expect(await login()).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
  });

  it("refuses a wrong enrolment code and keeps the session pending", async () => {
    const l = await login();
    const secret = ((await generate(l.cookie)).body as { Secret: string }).Secret;
    const wrong = String((Number(codeAt(secret)) + 1) % 1_000_000).padStart(6, "0");
    expect(await verify(l.cookie, wrong)).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect((await aliceRow()).totpSecretEnc).toBeNull();
    expect((await status(l.cookie)).status).toBe(401);
    expect(await actions("totpCodeFailed")).toEqual([
      expect.objectContaining({ userName: "alice", errorMessage: "Invalid code", description: "enrolment" }),
    ]);
  });
});

describe("verification", () => {
  it("asks enrolled users for a code; a wrong code is refused and audited, the right one signs in", async () => {
    const { secret, cookie: first } = await enrolAlice();
    expect((await apiRequest(h, "POST", "/api/logout", undefined, { cookie: first })).status).toBe(204);
    h.clock.advance(30_000);
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpVerificationRequired" } });
    expect(await generate(l.cookie)).toMatchObject({ status: 409, body: { Err: "User already verified" } });
    const right = codeAt(secret);
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    expect(await verify(l.cookie, wrong)).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect((await status(l.cookie)).status).toBe(401);
    expect(await actions("totpCodeFailed")).toEqual([
      expect.objectContaining({ userName: "alice", description: "verification" }),
    ]);
    const v = await verify(l.cookie, right);
    expect(v.status).toBe(200);
    expect(v.body).toHaveProperty("Ends");
    expect((await status(l.cookie)).status).toBe(401);
    expect((await status(cookieOf(v.setCookie))).status).toBe(200);
    expect(await actions("totpVerified")).toEqual([
      expect.objectContaining({ userName: "alice", ipAddress: "203.0.113.5" }),
    ]);
  });

  it("never accepts a used time step twice, even within the window", async () => {
    const { secret } = await enrolAlice();
    const used = codeAt(secret);
    const l = await login();
    expect(await verify(l.cookie, used)).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    // A code of the next step (within the tolerance) is fine, once.
    const next = codeAt(secret, 30);
    expect((await verify(l.cookie, next)).status).toBe(200);
    const again = await login();
    expect(await verify(again.cookie, next)).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    // Steps at or before the last used one are refused: the current step is now behind it.
    expect(await verify(again.cookie, codeAt(secret))).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect((await aliceRow()).totpLastStep).toBe(totpStep(h.clock.now()) + 1);
    h.clock.advance(60_000);
    expect((await verify(again.cookie, codeAt(secret))).status).toBe(200);
  });

  it("accepts ±1 step and refuses codes 2 steps away", async () => {
    const { secret } = await enrolAlice();
    h.clock.advance(120_000);
    const l = await login();
    expect(await verify(l.cookie, codeAt(secret, -60))).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect(await verify(l.cookie, codeAt(secret, 60))).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    expect((await verify(l.cookie, codeAt(secret, -30))).status).toBe(200);
    h.clock.advance(120_000);
    const l2 = await login();
    expect((await verify(l2.cookie, codeAt(secret, 30))).status).toBe(200);
  });

  it("ignores spaces in a code", async () => {
    const { secret } = await enrolAlice();
    h.clock.advance(30_000);
    const l = await login();
    const c = codeAt(secret);
    expect((await verify(l.cookie, `${c.slice(0, 3)} ${c.slice(3)}`)).status).toBe(200);
  });
});

describe("refusals", () => {
  it("refuses malformed bodies with their keys, and malformed codes as invalid", async () => {
    const l = await login();
    expect(await apiRequest(h, "POST", "/api/otp/verify", "{nope", { cookie: l.cookie })).toMatchObject({
      status: 400,
      body: { Err: "Failed decoding request body" },
    });
    expect(await apiRequest(h, "POST", "/api/otp/verify", {}, { cookie: l.cookie })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Code: /) },
    });
    expect(await verify(l.cookie, 123456)).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Code: /) },
    });
    expect(await verify(l.cookie, "1".repeat(17))).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Code: /) },
    });
    for (const code of ["", "abcdef", "12345", "1234567"]) {
      expect(await verify(l.cookie, code)).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    }
    expect(await actions("totpCodeFailed")).toHaveLength(4);
    expect((await status(l.cookie)).status).toBe(401);
  });

  it("refuses callers without a session, and ended sessions", async () => {
    expect(await apiRequest(h, "GET", "/api/otp/generate")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect(await apiRequest(h, "POST", "/api/otp/verify", { Code: "123456" })).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect(await verify("postern_session=nonsense", "123456")).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    const l = await login();
    await h.services.db
      .update(userSessions)
      .set({ endedAt: h.clock.now() })
      .where(eq(userSessions.userId, seed.userId));
    expect(await generate(l.cookie)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await verify(l.cookie, "123456")).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    // An admin's cookie is not a user session.
    const admin = await signInAdmin(h);
    expect(await generate(admin.replace("postern_admin_session", "postern_session"))).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
    expect(await actions("totpCodeFailed")).toHaveLength(0);
  });

  it("refuses generate and verify for a completed session", async () => {
    const { secret, cookie } = await enrolAlice();
    expect(await generate(cookie)).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
    expect(await verify(cookie, codeAt(secret, 30))).toMatchObject({
      status: 409,
      body: { Err: "Already verified 2FA" },
    });
    // A user without TOTP signs in at once; the 2FA routes refuse that session too.
    await h.services.db
      .update(users)
      .set({ totpEnabled: false, totpSecretEnc: null, totpLastStep: null })
      .where(eq(users.id, seed.userId));
    const plain = await login();
    expect(plain.status).toBe(200);
    expect(await generate(plain.cookie)).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
    expect(await verify(plain.cookie, "123456")).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
    expect(await actions("totpCodeFailed")).toHaveLength(0);
  });

  it("asks to sign in again when TOTP was turned off during a pending sign-in", async () => {
    const l = await login();
    await h.services.db.update(users).set({ totpEnabled: false }).where(eq(users.id, seed.userId));
    expect(await generate(l.cookie)).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect(await verify(l.cookie, "123456")).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    expect((await login()).status).toBe(200);
  });
});

describe("2FA reset by an admin", () => {
  it("after a reset the next sign-in asks to enrol, with a new secret", async () => {
    const { secret } = await enrolAlice();
    const admin = await signInAdmin(h);
    expect(
      (await apiRequest(h, "DELETE", `/api/admin/users/${seed.userId}/totpToken`, undefined, { cookie: admin })).status,
    ).toBe(204);
    expect(await aliceRow()).toMatchObject({ totpEnabled: true, totpSecretEnc: null, totpLastStep: null });
    expect(await actions("totpReset")).toEqual([expect.objectContaining({ adminName: "root", userName: "alice" })]);
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    // The old authenticator no longer works.
    expect(await verify(l.cookie, codeAt(secret, 30))).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    const fresh = ((await generate(l.cookie)).body as { Secret: string }).Secret;
    expect(fresh).not.toBe(secret);
    const v = await verify(l.cookie, codeAt(fresh));
    expect(v.status).toBe(200);
    expect((await status(cookieOf(v.setCookie))).status).toBe(200);
  });
});

describe("SAML users", () => {
  it("never owe a TOTP code, even with TOTPEnabled forced on in the database", async () => {
    const id = randomUUID();
    await h.services.db
      .insert(users)
      .values({ id, name: "Sam", userName: "sam@idp", authType: "SAML", totpEnabled: true });
    const row = (await h.services.db.select().from(users).where(eq(users.id, id)).limit(1))[0]!;
    const signed = await h.services.userSessions.issue(row, { kiosk: false, ip: "203.0.113.5" });
    expect(signed.pending).toBeNull();
    const cookie = `postern_session=${signed.token}`;
    expect((await status(cookie)).status).toBe(200);
    expect(await generate(cookie)).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
    expect(await verify(cookie, "123456")).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });
  });

  it("are refused TOTP by the service even for a session left pending", async () => {
    const id = randomUUID();
    await h.services.db
      .insert(users)
      .values({ id, name: "Sam", userName: "sam@idp", authType: "SAML", totpEnabled: true });
    const row = (await h.services.db.select().from(users).where(eq(users.id, id)).limit(1))[0]!;
    const signed = await h.services.userSessions.issue(row, { kiosk: false, ip: "203.0.113.5" });
    await h.services.db.update(userSessions).set({ verified: false }).where(eq(userSessions.userId, id));
    expect(await generate(`postern_session=${signed.token}`)).toMatchObject({
      status: 401,
      body: { Err: "err.invalidSession" },
    });
  });
});

describe("throttling hooks", () => {
  it("reports each failed code to onCodeFailure and each accepted one to onCodeSuccess", async () => {
    const onCodeFailure = vi.fn();
    const onCodeSuccess = vi.fn();
    h.services.totp.useHooks({ onCodeFailure, onCodeSuccess });
    const l = await login();
    const secret = ((await generate(l.cookie)).body as { Secret: string }).Secret;
    expect((await verify(l.cookie, "000000" === codeAt(secret) ? "111111" : "000000")).status).toBe(401);
    expect((await verify(l.cookie, "abc")).status).toBe(401);
    expect(onCodeFailure).toHaveBeenCalledTimes(2);
    expect(onCodeFailure).toHaveBeenCalledWith({
      kind: "user",
      accountId: seed.userId,
      userName: "alice",
      ip: "203.0.113.5",
    });
    expect(onCodeSuccess).not.toHaveBeenCalled();
    expect((await verify(l.cookie, codeAt(secret))).status).toBe(200);
    expect(onCodeSuccess).toHaveBeenCalledTimes(1);
    expect(onCodeFailure).toHaveBeenCalledTimes(2);
  });

  it("a refusing beforeCode stops the check: nothing consumed, nothing audited", async () => {
    const { secret } = await enrolAlice();
    h.services.totp.useHooks({
      beforeCode: () => {
        throw new AppError(Errors.tooManyRequests, "30");
      },
    });
    const l = await login();
    const code = codeAt(secret, 30);
    expect(await verify(l.cookie, code)).toMatchObject({
      status: 429,
      body: { Err: "Too many requests. Please try again in..." },
    });
    expect(await actions("totpCodeFailed")).toHaveLength(0);
    expect((await aliceRow()).totpLastStep).toBe(totpStep(h.clock.now()));
    h.services.totp.useHooks({});
    expect((await verify(l.cookie, code)).status).toBe(200);
  });
});

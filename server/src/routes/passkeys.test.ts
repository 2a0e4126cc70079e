/**
 * Passkeys as a second factor (issue #14 item 2, test item 6; docs/decisions.md "Passkeys"): enrolment,
 * listing and removal for users and admins, sign-in with a passkey on the pending session, and the
 * ceremony's edges a browser is not needed for — a wrong, reused or expired challenge, an unknown or
 * removed credential, a replayed counter, a wrong origin, SAML users refused, the 2FA throttle, and
 * the admin's 2FA reset clearing passkeys. Answers come from a software authenticator
 * (testing/webauthn.ts), checked by the real @simplewebauthn/server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { testTables } from "../testing/database.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin, unfoldAudits } from "../testing/harness.ts";
import type { Harness, Seeded } from "../testing/harness.ts";
import { SoftAuthenticator } from "../testing/webauthn.ts";
import { PASSKEY_CHALLENGE_TTL_MS } from "../services/auth/passkeys.ts";

const { auditLog, passkeys, users } = testTables;

let h: Harness;
let seed: Seeded;

const ORIGIN = "http://postern.test";
const RP_ID = "postern.test";
const cookieOf = (r: { setCookie: string }) => r.setCookie.split(";")[0] ?? "";
const actions = async (action: string) =>
  await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const challengeOf = (body: unknown) => (body as { Options: { challenge: string } }).Options.challenge;

/** One audience's API: users at /api, admins at /api/admin. */
function api(prefix: "" | "/admin") {
  const base = `/api${prefix}/otp/passkeys`;
  return {
    list: (cookie: string) => apiRequest(h, "GET", base, undefined, { cookie }),
    regOptions: (cookie: string) => apiRequest(h, "POST", `${base}/registration/options`, {}, { cookie }),
    register: (cookie: string, name: string, response: unknown) =>
      apiRequest(h, "POST", `${base}/registration`, { Name: name, Response: response }, { cookie }),
    remove: (cookie: string, id: string) => apiRequest(h, "DELETE", `${base}/${id}`, undefined, { cookie }),
    authOptions: (cookie: string) => apiRequest(h, "POST", `${base}/authentication/options`, {}, { cookie }),
    authenticate: (cookie: string, response: unknown) =>
      apiRequest(h, "POST", `${base}/authentication`, { Response: response }, { cookie }),
  };
}
const user = api("");
const admin = api("/admin");

async function login(userName = "alice", password = "alice-password") {
  const r = await apiRequest(h, "POST", "/api/login", { UserName: userName, Password: password, KioskMode: false });
  return { ...r, cookie: cookieOf(r) };
}
const status = (cookie: string) => apiRequest(h, "GET", "/api/status", undefined, { cookie });

/** Enrols a new software passkey for the holder of `cookie`; answers it and its id. */
async function enrol(a: typeof user, cookie: string, name: string): Promise<{ key: SoftAuthenticator; id: string }> {
  const key = new SoftAuthenticator(ORIGIN, RP_ID);
  const o = await a.regOptions(cookie);
  expect(o.status).toBe(200);
  const r = await a.register(cookie, name, key.register(challengeOf(o.body)));
  expect(r).toMatchObject({ status: 201, body: { Name: name, LastUsed: null } });
  return { key, id: (r.body as { ID: string }).ID };
}

/** Signs alice in (she owes her second factor) and answers her pending cookie and fresh challenge. */
async function pendingAlice(): Promise<{ cookie: string; challenge: string }> {
  const l = await login();
  expect(l).toMatchObject({ status: 401, body: { Err: "err.totpVerificationRequired" } });
  const o = await user.authOptions(l.cookie);
  expect(o).toMatchObject({ status: 200, body: { Totp: false } });
  return { cookie: l.cookie, challenge: challengeOf(o.body) };
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
});
afterEach(async () => {
  await h.close();
});

describe("users", () => {
  it("enrols, lists, signs in with a passkey (a new session cookie), removes", async () => {
    const first = await login();
    expect(first.status).toBe(200);
    expect((await user.list(first.cookie)).body).toEqual([]);
    const { key, id } = await enrol(user, first.cookie, "Laptop");
    expect((await user.list(first.cookie)).body).toMatchObject([{ ID: id, Name: "Laptop" }]);
    expect(await actions("passkeyAdded")).toMatchObject([{ userName: "alice", description: "Laptop" }]);
    const [row] = await h.services.db.select().from(passkeys).where(eq(passkeys.id, id));
    expect(row).toMatchObject({ userId: seed.userId, adminId: null, transports: ["internal"], counter: 0 });

    // A passkey owes a second factor like TOTP: the sign-in is pending until it answers.
    const { cookie, challenge } = await pendingAlice();
    expect((await status(cookie)).status).toBe(401);
    const done = await user.authenticate(cookie, key.authenticate(challenge));
    expect(done.status).toBe(200);
    expect(done.body).toHaveProperty("Ends");
    const full = cookieOf(done);
    expect(full).not.toBe(cookie);
    expect((await status(full)).status).toBe(200);
    expect((await status(cookie)).status).toBe(401); // the pending token is spent
    expect(await actions("passkeyUsed")).toMatchObject([{ userName: "alice", description: "Laptop" }]);
    expect(await h.services.metrics.registry.metrics()).toContain(
      'postern_sign_ins_total{audience="user",method="passkey",result="success"} 1',
    );
    expect((await user.list(full)).body).toMatchObject([{ LastUsed: expect.any(String) as string }]);
    // A completed session has no second factor to give.
    expect(await user.authOptions(full)).toMatchObject({ status: 409, body: { Err: "Already verified 2FA" } });

    expect((await user.remove(full, id)).status).toBe(204);
    expect((await user.remove(full, id)).status).toBe(404);
    expect(await actions("passkeyRemoved")).toMatchObject([{ userName: "alice", description: "Laptop" }]);
    expect((await login()).status).toBe(200); // no second factor left
  });

  it("refuses a wrong challenge, and the challenge is spent by it", async () => {
    const { key } = await enrol(user, (await login()).cookie, "Key");
    const { cookie, challenge } = await pendingAlice();
    const wrong = await user.authenticate(
      cookie,
      key.authenticate(Buffer.from("not-the-challenge").toString("base64url")),
    );
    expect(wrong).toMatchObject({ status: 401, body: { Err: "Passkey not accepted" } });
    // The right answer to the spent challenge is refused too: single use.
    const late = await user.authenticate(cookie, key.authenticate(challenge));
    expect(late).toMatchObject({ status: 401, body: { Err: "Passkey not accepted" } });
    await unfoldAudits(h);
    const failed = await actions("passkeyFailed");
    expect(failed).toHaveLength(2);
    expect(failed[1]).toMatchObject({ userName: "alice", errorMessage: "no challenge", description: "sign-in" });
    // A fresh challenge works.
    const o = await user.authOptions(cookie);
    expect((await user.authenticate(cookie, key.authenticate(challengeOf(o.body)))).status).toBe(200);
  });

  it("refuses an answer without a challenge and an expired challenge", async () => {
    const { key } = await enrol(user, (await login()).cookie, "Key");
    const l = await login();
    expect(l.status).toBe(401);
    const none = await user.authenticate(l.cookie, key.authenticate("AAAA"));
    expect(none).toMatchObject({ status: 401, body: { Err: "Passkey not accepted" } });
    const o = await user.authOptions(l.cookie);
    h.clock.advance(PASSKEY_CHALLENGE_TTL_MS + 1);
    const expired = await user.authenticate(l.cookie, key.authenticate(challengeOf(o.body)));
    expect(expired).toMatchObject({ status: 401, body: { Err: "Passkey not accepted" } });
  });

  it("refuses an unknown credential, a wrong origin and a replayed counter", async () => {
    const { key } = await enrol(user, (await login()).cookie, "Key");
    const stranger = new SoftAuthenticator(ORIGIN, RP_ID);
    let p = await pendingAlice();
    expect(await user.authenticate(p.cookie, stranger.authenticate(p.challenge))).toMatchObject({ status: 401 });
    p = { ...p, challenge: challengeOf((await user.authOptions(p.cookie)).body) };
    const phished = key.authenticate(p.challenge, { origin: "http://evil.test" });
    expect(await user.authenticate(p.cookie, phished)).toMatchObject({ status: 401 });
    p = { ...p, challenge: challengeOf((await user.authOptions(p.cookie)).body) };
    expect((await user.authenticate(p.cookie, key.authenticate(p.challenge))).status).toBe(200);
    // The same counter again (a cloned authenticator, a replay) is refused.
    p = await pendingAlice();
    expect(await user.authenticate(p.cookie, key.authenticate(p.challenge, { keepCounter: true }))).toMatchObject({
      status: 401,
      body: { Err: "Passkey not accepted" },
    });
    await unfoldAudits(h);
    expect((await actions("passkeyFailed")).map((a) => a.errorMessage)).toContain("unknown credential");
  });

  it("refuses a removed credential while another still signs in", async () => {
    const c = (await login()).cookie;
    const a = await enrol(user, c, "A");
    const b = await enrol(user, c, "B");
    expect((await user.remove(c, a.id)).status).toBe(204);
    const p = await pendingAlice();
    expect(await user.authenticate(p.cookie, a.key.authenticate(p.challenge))).toMatchObject({ status: 401 });
    const o = await user.authOptions(p.cookie);
    expect((o.body as { Options: { allowCredentials: { id: string }[] } }).Options.allowCredentials).toEqual([
      expect.objectContaining({ id: b.key.id }),
    ]);
    expect((await user.authenticate(p.cookie, b.key.authenticate(challengeOf(o.body)))).status).toBe(200);
  });

  it("refuses registration with a wrong challenge, a credential enrolled twice, a bad name", async () => {
    const c = (await login()).cookie;
    const key = new SoftAuthenticator(ORIGIN, RP_ID);
    await user.regOptions(c);
    expect(await user.register(c, "K", key.register("AAAA"))).toMatchObject({ status: 401 });
    const o = await user.regOptions(c);
    expect((await user.register(c, "K", key.register(challengeOf(o.body)))).status).toBe(201);
    const again = await user.regOptions(c);
    expect((again.body as { Options: { excludeCredentials: { id: string }[] } }).Options.excludeCredentials).toEqual([
      expect.objectContaining({ id: key.id }),
    ]);
    expect(await user.register(c, "K2", key.register(challengeOf(again.body)))).toMatchObject({
      status: 409,
      body: { Err: "This passkey is already registered" },
    });
    const o3 = await user.regOptions(c);
    const blank = await user.register(c, "  ", new SoftAuthenticator(ORIGIN, RP_ID).register(challengeOf(o3.body)));
    expect(blank.status).toBe(400);
    expect((await user.list(c)).body).toHaveLength(1);
  });

  it("refuses SAML users and sessions without a login", async () => {
    const c = (await login()).cookie;
    await h.services.db.update(users).set({ authType: "SAML" }).where(eq(users.id, seed.userId));
    expect(await user.regOptions(c)).toMatchObject({
      status: 403,
      body: { Err: "Passkeys are not available for this account" },
    });
    expect((await user.list(c)).status).toBe(403);
    expect((await user.regOptions("postern_session=nope")).status).toBe(401);
    expect((await user.authOptions("postern_session=nope")).status).toBe(401);
  });

  it("counts refused passkeys against the 2FA throttle", async () => {
    const { key } = await enrol(user, (await login()).cookie, "Key");
    const p = await pendingAlice();
    const stranger = new SoftAuthenticator(ORIGIN, RP_ID);
    for (let i = 0; i < 5; i++) {
      const o = await user.authOptions(p.cookie);
      expect((await user.authenticate(p.cookie, stranger.authenticate(challengeOf(o.body)))).status).toBe(401);
    }
    const o = await user.authOptions(p.cookie);
    expect(await user.authenticate(p.cookie, key.authenticate(challengeOf(o.body)))).toMatchObject({
      status: 429,
      body: { Err: "Too many requests. Please try again in..." },
    });
  });

  it("lets a user with TOTP and a passkey use either; the admin's 2FA reset clears passkeys", async () => {
    const { key } = await enrol(user, (await login()).cookie, "Key");
    await h.services.db
      .update(users)
      .set({ totpEnabled: true, totpSecretEnc: "sealed-secret" })
      .where(eq(users.id, seed.userId));
    const l = await login();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpVerificationRequired" } });
    const o = await user.authOptions(l.cookie);
    expect(o).toMatchObject({ status: 200, body: { Totp: true } });
    expect((await user.authenticate(l.cookie, key.authenticate(challengeOf(o.body)))).status).toBe(200);

    const root = await signInAdmin(h);
    expect(
      (await apiRequest(h, "DELETE", `/api/admin/users/${seed.userId}/totpToken`, undefined, { cookie: root })).status,
    ).toBe(204);
    expect(await h.services.db.select().from(passkeys)).toEqual([]);
    expect(await login()).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
  });
});

describe("admins", () => {
  it("enrols, signs in with a passkey, removes; another admin's 2FA reset clears passkeys", async () => {
    const root = await signInAdmin(h);
    await signInAdmin(h, "bob");
    const bobLogin = async () =>
      await apiRequest(h, "POST", "/api/admin/login", { UserName: "bob", Password: "root-password" });
    const bob = cookieOf(await bobLogin());
    const { key, id } = await enrol(admin, bob, "YubiKey");
    expect(await actions("passkeyAdded")).toMatchObject([{ adminName: "bob", description: "YubiKey" }]);

    const l = await bobLogin();
    expect(l).toMatchObject({ status: 401, body: { Err: "err.totpVerificationRequired" } });
    const pending = cookieOf(l);
    expect((await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie: pending })).status).toBe(401);
    // A user's pending cookie is no admin's.
    expect((await user.authOptions(pending)).status).toBe(401);
    const o = await admin.authOptions(pending);
    expect(o).toMatchObject({ status: 200, body: { Totp: false } });
    const done = await admin.authenticate(pending, key.authenticate(challengeOf(o.body)));
    expect(done.status).toBe(204);
    const full = cookieOf(done);
    expect((await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie: full })).status).toBe(200);
    expect(await actions("passkeyUsed")).toMatchObject([{ adminName: "bob" }]);

    // Removed: the next sign-in owes nothing; enrolled again, root's reset of bob's 2FA clears it.
    expect((await admin.remove(full, id)).status).toBe(204);
    expect((await bobLogin()).status).toBe(204);
    await enrol(admin, full, "Phone");
    const bobId = (await h.services.admins.list()).find((a) => a.UserName === "bob")!.ID;
    expect(
      (await apiRequest(h, "DELETE", `/api/admin/admins/${bobId}/totpToken`, undefined, { cookie: root })).status,
    ).toBe(204);
    expect(await admin.list(full)).toMatchObject({ status: 200, body: [] });
    expect((await bobLogin()).status).toBe(204);
  });

  it("keeps one admin's passkeys from another and from users", async () => {
    const root = await signInAdmin(h);
    const { id } = await enrol(admin, root, "Root key");
    const alice = (await login()).cookie;
    expect((await user.list(alice)).body).toEqual([]);
    expect((await user.remove(alice, id)).status).toBe(404);
    expect((await admin.list(alice)).status).toBe(401);
    await signInAdmin(h, "carol");
    const carol = cookieOf(
      await apiRequest(h, "POST", "/api/admin/login", { UserName: "carol", Password: "root-password" }),
    );
    expect((await admin.remove(carol, id)).status).toBe(404);
    expect((await admin.list(root)).body).toHaveLength(1);
  });
});

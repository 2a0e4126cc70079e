import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, seedLoop, signInAdmin, socketEnv } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";
import type * as Argon2 from "@node-rs/argon2";
import { testTables } from "../../testing/database.ts";
import { createApp } from "../../app.ts";
import { parseTrustedProxies } from "../../http/client-address.ts";
import { setSetting } from "../../services/settings.ts";
import { FOLD_WINDOW_MS, flushFoldedAudits } from "../../services/audit-fold.ts";

const { auditLog, loginThrottle, users } = testTables;

/** Argon2's verify, counted: the real one runs (a pass-through), so the throttle's "no hash" is observable. */
const argon2 = vi.hoisted(() => ({ verifies: 0 }));
vi.mock("@node-rs/argon2", async (importOriginal) => {
  const real = await importOriginal<typeof Argon2>();
  return {
    ...real,
    verify: (...args: Parameters<typeof real.verify>) => {
      argon2.verifies++;
      return real.verify(...args);
    },
  };
});

let h: Harness;
let seed: Seeded;
let root = "";

const TOO_MANY = "Too many requests. Please try again in...";
const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";
const login = (
  UserName: string,
  Password: string,
  opts: { from?: string; kiosk?: boolean; headers?: Record<string, string> } = {},
) =>
  apiRequest(
    h,
    "POST",
    "/api/login",
    { UserName, Password, KioskMode: opts.kiosk ?? false },
    { ...(opts.from ? { from: opts.from } : {}), ...(opts.headers ? { headers: opts.headers } : {}) },
  );
const admin = (method: string, path: string, body?: unknown) => apiRequest(h, method, path, body, { cookie: root });
const audit = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
/** GET /status with `cookie` from `from` (the session's own address: another one would move its grants). */
const userStatus = async (cookie: string, from = "203.0.113.5") =>
  (await apiRequest(h, "GET", "/api/status", undefined, { cookie, from })).status;
const clearThrottle = async () => await h.services.db.delete(loginThrottle);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return ((s[Math.floor((s.length - 1) / 2)] ?? 0) + (s[Math.ceil((s.length - 1) / 2)] ?? 0)) / 2;
};
async function timed(call: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

/** Signs alice in from `from`, grants the seeded ACL (the add op is consumed) and returns her cookie. */
async function aliceGrants(from = "203.0.113.5"): Promise<string> {
  const r = await login("alice", "alice-password", { from });
  expect(r.status).toBe(200);
  const cookie = cookieOf(r.setCookie);
  expect((await apiRequest(h, "POST", "/api/grant", { ACLID: seed.aclId, IPs: [] }, { cookie, from })).status).toBe(
    200,
  );
  expect(h.channel.take()).toEqual([expect.objectContaining({ op: "add", ip: from })]);
  return cookie;
}

async function updateAlice(fields: Record<string, unknown>): Promise<void> {
  const u = (await admin("GET", `/api/admin/users/${seed.userId}`)).body as Record<string, unknown>;
  expect((await admin("PUT", `/api/admin/users/${seed.userId}`, { ...u, ...fields })).status).toBe(200);
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

describe("POST /login outcomes", () => {
  it("signs in with {Ends} and audits userLoggedIn; failures audit userLoginFailed", async () => {
    const ok = await login("alice", "alice-password");
    expect(ok.status).toBe(200);
    expect(Date.parse((ok.body as { Ends: string }).Ends) - h.clock.now()).toBeGreaterThan(480 * 60_000 - 5_000);
    expect(await login("alice", "wrong-password")).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    expect(await login("nobody", "wrong-password")).toMatchObject({
      status: 401,
      body: { Err: "Invalid credentials" },
    });
    expect((await audit("userLoggedIn")).map((e) => [e.userName, e.ipAddress])).toEqual([["alice", "203.0.113.5"]]);
    expect((await audit("userLoginFailed")).map((e) => [e.userName, e.errorMessage, e.ipAddress])).toEqual([
      ["alice", "wrong password", "203.0.113.5"],
      ["nobody", "unknown user", "203.0.113.5"],
    ]);
  });

  it("refuses a disabled account with 403 accountDisabled, audited", async () => {
    await h.services.db.update(users).set({ disabled: true }).where(eq(users.id, seed.userId));
    expect(await login("alice", "alice-password")).toMatchObject({ status: 403, body: { Err: "accountDisabled" } });
    expect((await audit("userLoginFailed")).map((e) => [e.userName, e.errorMessage])).toEqual([
      ["alice", "account disabled"],
    ]);
    expect(await audit("userLoggedIn")).toEqual([]);
    // A wrong password still answers as for anyone (nothing about the account is revealed).
    expect(await login("alice", "wrong-password")).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
  });

  it("refuses an account past its ValidUntil with 403 accountDisabled", async () => {
    await updateAlice({ ValidUntil: new Date(h.clock.now() - 60_000).toISOString() });
    expect(await login("alice", "alice-password")).toMatchObject({ status: 403, body: { Err: "accountDisabled" } });
    expect((await audit("userLoginFailed")).map((e) => e.errorMessage)).toEqual(["account disabled"]);
    // A ValidUntil ahead caps the session instead.
    const until = h.clock.now() + 10 * 60_000;
    await updateAlice({ ValidUntil: new Date(until).toISOString() });
    const ok = await login("alice", "alice-password");
    expect(ok.status).toBe(200);
    expect(Date.parse((ok.body as { Ends: string }).Ends)).toBe(until);
  });

  it("lasts KioskSessionDuration on a public computer (5 and 120 minutes, set by the admin config API)", async () => {
    for (const minutes of [5, 120]) {
      expect((await admin("POST", "/api/admin/settings/config", { KioskSessionDuration: minutes })).status).toBe(200);
      const before = h.clock.now();
      const r = await login("alice", "alice-password", { kiosk: true });
      expect(r.status).toBe(200);
      const ends = Date.parse((r.body as { Ends: string }).Ends);
      expect(ends - before).toBeGreaterThanOrEqual(minutes * 60_000);
      expect(ends - before).toBeLessThan(minutes * 60_000 + 2_000);
      expect(r.setCookie).toMatch(new RegExp(`Expires=${new Date(ends).toUTCString()}`));
    }
    // Without KioskMode the user's Duration (480) applies.
    const r = await login("alice", "alice-password");
    expect(Date.parse((r.body as { Ends: string }).Ends) - h.clock.now()).toBeGreaterThan(479 * 60_000);
  });

  it("SessionLimit: a third sign-in with limit 2 ends the oldest session and revokes its grants", async () => {
    await updateAlice({ SessionLimit: 2 });
    const first = await aliceGrants("203.0.113.5");
    const second = await aliceGrants("198.51.100.20");
    const third = await login("alice", "alice-password", { from: "192.0.2.30" });
    expect(third.status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect(await userStatus(first)).toBe(401);
    expect(await userStatus(second, "198.51.100.20")).toBe(200);
    expect(await userStatus(cookieOf(third.setCookie), "192.0.2.30")).toBe(200);
  });
});

describe("admin credentials on the user login (user-portal §4 'Unauthorised')", () => {
  it("signs the admin in (admin cookie) and answers 401 err.unauthorised", async () => {
    await h.services.adminSessions.createLocalAdmin({ userName: "carol", name: "Carol", password: "carol-password" });
    const r = await login("carol", "carol-password", { from: "198.51.100.4" });
    expect(r).toMatchObject({ status: 401, body: { Err: "err.unauthorised" } });
    expect(r.body).not.toHaveProperty("Extra");
    expect(r.setCookie).toMatch(/^postern_admin_session=[^;]+;.*HttpOnly/);
    expect(r.setCookie).not.toMatch(/postern_session=/);
    expect((await apiRequest(h, "GET", "/api/admin/admins", undefined, { cookie: cookieOf(r.setCookie) })).status).toBe(
      200,
    );
    expect((await audit("adminLoggedIn")).map((e) => [e.adminName, e.ipAddress])).toContainEqual([
      "carol",
      "198.51.100.4",
    ]);
  });

  it("leaves the admin's TOTP pending (Extra names the step) and the cookie unusable until then", async () => {
    expect(
      (
        await admin("POST", "/api/admin/admins", {
          Name: "Dave",
          UserName: "dave",
          PlainPassword: "dave-password",
          ConfirmPassword: "dave-password",
          TOTPEnabled: true,
        })
      ).status,
    ).toBe(201);
    const r = await login("dave", "dave-password");
    expect(r).toMatchObject({ status: 401, body: { Err: "err.unauthorised", Extra: "err.totpEnrolmentRequired" } });
    expect((await apiRequest(h, "GET", "/api/admin/admins", undefined, { cookie: cookieOf(r.setCookie) })).status).toBe(
      401,
    );
  });

  it("refuses a wrong admin password as any other, and an admin whose login is off with 403 Login not permitted", async () => {
    expect(await login("root", "wrong-password")).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    expect(
      (
        await admin("POST", "/api/admin/admins", {
          Name: "Eve",
          UserName: "eve",
          PlainPassword: "eve-password",
          ConfirmPassword: "eve-password",
          LoginEnabled: false,
        })
      ).status,
    ).toBe(201);
    const r = await login("eve", "eve-password");
    expect(r).toMatchObject({ status: 403, body: { Err: "Login not permitted" } });
    expect(r.setCookie).toBe("");
  });

  it("prefers the user when a user and an admin share the name", async () => {
    await h.services.adminSessions.createLocalAdmin({
      userName: "alice",
      name: "Alice admin",
      password: "admin-alice-pw",
    });
    expect(await login("alice", "admin-alice-pw")).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    const r = await login("alice", "alice-password");
    expect(r.status).toBe(200);
    expect(r.setCookie).toMatch(/^postern_session=/);
  });
});

describe("throttling", () => {
  it("blocks an account after 5 failures with 429, Extra seconds and Retry-After, even for the right password", async () => {
    for (let i = 0; i < 5; i++)
      expect((await login("alice", `wrong-${i}`, { from: `198.51.100.${i + 1}` })).status).toBe(401);
    const r = await login("alice", "alice-password", { from: "192.0.2.99" });
    expect(r).toMatchObject({ status: 429, body: { Err: TOO_MANY, Extra: "60" } });
    expect(r.headers.get("retry-after")).toBe("60");
    expect(r.setCookie).toBe("");
    expect((await audit("userLoginFailed")).map((e) => e.errorMessage)).toEqual([
      ...Array<string>(5).fill("wrong password"),
      "too many attempts",
    ]);
    expect(await audit("userLoggedIn")).toEqual([]);
    // Other accounts are not blocked; after the block alice signs in, which clears her count.
    expect((await login("bob", "whatever", { from: "192.0.2.99" })).status).toBe(401);
    h.clock.advance(60_000);
    expect((await login("alice", "alice-password")).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login("alice", "wrong")).status).toBe(401);
    expect((await login("alice", "alice-password")).status).toBe(200);
  });

  it("serves many sign-ins of one account at once in turn, and still refuses parallel guesses past the limit", async () => {
    const right = await Promise.all(Array.from({ length: 12 }, () => login("alice", "alice-password")));
    expect(right.map((r) => r.status)).toEqual(Array<number>(12).fill(200));
    expect(await audit("userLoginFailed")).toEqual([]);
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login("bob", `guess-${i}`, { from: `198.51.100.${i + 1}` })),
    );
    const statuses = guesses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array<number>(5).fill(401), ...Array<number>(7).fill(429)]);
  });

  it("blocks a source address after 20 failures over any names; IPv6 by /64", async () => {
    for (let i = 0; i < 20; i++) expect((await login(`ghost${i}`, "x", { from: "203.0.113.77" })).status).toBe(401);
    expect(await login("alice", "alice-password", { from: "203.0.113.77" })).toMatchObject({
      status: 429,
      body: { Err: TOO_MANY, Extra: "60" },
    });
    expect((await login("alice", "alice-password", { from: "203.0.113.78" })).status).toBe(200);
    for (let i = 0; i < 20; i++)
      expect((await login(`ghost${i}`, "x", { from: `2001:db8:7:7::${i + 1}` })).status).toBe(401);
    expect((await login("alice", "alice-password", { from: "2001:db8:7:7:abcd::1" })).status).toBe(429);
    expect((await login("alice", "alice-password", { from: "2001:db8:7:8::1" })).status).toBe(200);
  });

  it("throttles 2FA codes per account (5 wrong codes), audited, and a new sign-in does not reset them", async () => {
    await updateAlice({ TOTPEnabled: true });
    const first = await login("alice", "alice-password");
    expect(first).toMatchObject({ status: 401, body: { Err: "err.totpEnrolmentRequired" } });
    const verify = (cookie: string, from?: string) =>
      apiRequest(h, "POST", "/api/otp/verify", { Code: "abcdef" }, { cookie, ...(from ? { from } : {}) });
    for (let i = 0; i < 5; i++)
      expect(await verify(cookieOf(first.setCookie))).toMatchObject({ status: 401, body: { Err: "Invalid code" } });
    const blocked = await verify(cookieOf(first.setCookie), "198.51.100.99");
    expect(blocked).toMatchObject({ status: 429, body: { Err: TOO_MANY, Extra: "60" } });
    expect((await audit("totpCodeFailed")).map((e) => [e.userName, e.errorMessage])).toEqual([
      ...Array<string[]>(5).fill(["alice", "Invalid code"]),
      ["alice", "too many attempts"],
    ]);
    const again = await login("alice", "alice-password");
    expect(again.status).toBe(401);
    expect((await verify(cookieOf(again.setCookie))).status).toBe(429);
    h.clock.advance(60_000);
    expect((await verify(cookieOf(again.setCookie))).status).toBe(401);
  });

  it("folds a flood of blocked attempts from one address: one audit entry per minute, then its Count", async () => {
    const blockedEntries = async () =>
      (await audit("userLoginFailed")).filter((e) => e.errorMessage === "too many attempts");
    for (let i = 0; i < 20; i++) await login(`name${i}`, "wrong", { from: "198.51.100.66" });
    for (let i = 0; i < 200; i++) expect((await login(`guess${i}`, "x", { from: "198.51.100.66" })).status).toBe(429);
    expect(await blockedEntries()).toHaveLength(1);
    // Admin sign-ins fold the same way.
    for (let i = 0; i < 30; i++)
      await apiRequest(
        h,
        "POST",
        "/api/admin/login",
        { UserName: "root", Password: "wrong" },
        { from: "198.51.100.67" },
      );
    expect((await audit("adminLoginFailed")).filter((e) => e.errorMessage === "too many attempts")).toHaveLength(1);
    h.clock.advance(FOLD_WINDOW_MS);
    expect(await flushFoldedAudits(h.services.db, h.clock.now())).toBe(2);
    expect(await blockedEntries()).toHaveLength(2);
    expect((await blockedEntries())[1]).toMatchObject({
      ipAddress: "198.51.100.66",
      userName: "guess199",
      description: "(Count: 199 more like this from this address in the minute)",
    });
  });

  it("answers a blocked attempt without hashing: no Argon2 verify runs for it", async () => {
    await clearThrottle();
    const before = argon2.verifies;
    for (let i = 0; i < 5; i++)
      expect((await login("alice", "wrong", { from: `198.51.100.${i + 1}` })).status).toBe(401);
    expect(argon2.verifies - before).toBe(5);
    for (let i = 0; i < 5; i++)
      expect((await login("alice", "alice-password", { from: `192.0.2.${i + 1}` })).status).toBe(429);
    expect(argon2.verifies - before).toBe(5);
    expect((await audit("userLoginFailed")).filter((e) => e.errorMessage === "too many attempts")).toHaveLength(5);
  });

  it("answers an unknown user and a wrong password alike, in time too (medians within 25%)", async () => {
    await login("warm", "up");
    await login("alice", "warm-up");
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let i = 0; i < 20; i++) {
      let a: unknown, b: unknown;
      await clearThrottle();
      unknown.push(await timed(async () => (a = await login(`nobody${i}`, "wrong-password"))));
      await clearThrottle();
      wrong.push(await timed(async () => (b = await login("alice", "wrong-password"))));
      expect(a).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
      expect(b).toMatchObject({ status: 401, body: { Err: "Invalid credentials" } });
    }
    const [mu, mw] = [median(unknown), median(wrong)];
    expect(Math.abs(mu - mw) / Math.max(mu, mw)).toBeLessThan(0.25);
  });
});

describe("session cookies", () => {
  it("sets a new HttpOnly, SameSite=Lax session id at every sign-in; the old one stays valid until logout", async () => {
    const a = await login("alice", "alice-password");
    const b = await login("alice", "alice-password");
    for (const r of [a, b]) {
      expect(r.setCookie).toMatch(/^postern_session=[A-Za-z0-9_-]{22};/);
      expect(r.setCookie).toMatch(/; HttpOnly/);
      expect(r.setCookie).toMatch(/; SameSite=Lax/);
      expect(r.setCookie).not.toMatch(/; Secure/);
    }
    expect(cookieOf(a.setCookie)).not.toBe(cookieOf(b.setCookie));
    expect(await userStatus(cookieOf(a.setCookie))).toBe(200);
    expect((await apiRequest(h, "POST", "/api/logout", undefined, { cookie: cookieOf(a.setCookie) })).status).toBe(204);
    expect(await userStatus(cookieOf(a.setCookie))).toBe(401);
    expect(await userStatus(cookieOf(b.setCookie))).toBe(200);
    expect(await audit("userLoggedOut")).toHaveLength(1);
  });

  it("marks cookies Secure over TLS, and behind a trusted proxy that says https", async () => {
    const body = JSON.stringify({ UserName: "alice", Password: "alice-password" });
    const headers = { host: "postern.test", "content-type": "application/json" };
    const direct = await h.app.request(
      "https://postern.test/api/login",
      { method: "POST", headers, body },
      socketEnv(),
    );
    expect(direct.status).toBe(200);
    expect(direct.headers.get("set-cookie")).toMatch(/; Secure/);

    const proxied = createApp(h.services, "/nonexistent", parseTrustedProxies(["10.0.0.1"]));
    const viaProxy = await proxied.request(
      "http://postern.test/api/login",
      {
        method: "POST",
        headers: { ...headers, "x-forwarded-proto": "https", "x-forwarded-for": "198.51.100.50" },
        body,
      },
      socketEnv("10.0.0.1"),
    );
    expect(viaProxy.status).toBe(200);
    expect(viaProxy.headers.get("set-cookie")).toMatch(/; Secure/);
    expect((await audit("userLoggedIn")).at(-1)?.ipAddress).toBe("198.51.100.50");

    // An untrusted peer cannot claim https.
    const spoofed = await proxied.request(
      "http://postern.test/api/login",
      { method: "POST", headers: { ...headers, "x-forwarded-proto": "https" }, body },
      socketEnv("198.51.100.60"),
    );
    expect(spoofed.status).toBe(200);
    expect(spoofed.headers.get("set-cookie")).not.toMatch(/; Secure/);
  });
});

describe("CSRF", () => {
  const body = { UserName: "alice", Password: "alice-password" };
  it("refuses cross-site writes: another Origin, Sec-Fetch-Site cross-site or same-site, form content types", async () => {
    expect(await login("alice", "alice-password", { headers: { origin: "https://evil.example" } })).toMatchObject({
      status: 403,
      body: { Err: "Unauthorised" },
    });
    expect(
      (await login("alice", "alice-password", { headers: { origin: "http://postern.test.evil.example" } })).status,
    ).toBe(403);
    expect((await login("alice", "alice-password", { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
    expect((await login("alice", "alice-password", { headers: { "sec-fetch-site": "same-site" } })).status).toBe(403);
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"]) {
      const r = await apiRequest(h, "POST", "/api/login", JSON.stringify(body), { headers: { "content-type": type } });
      expect(r.status).toBe(403);
    }
    // A signed-in user's writes are refused the same way.
    const cookie = cookieOf((await login("alice", "alice-password")).setCookie);
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/grant",
          { ACLID: seed.aclId, IPs: [] },
          { cookie, headers: { origin: "https://evil.example" } },
        )
      ).status,
    ).toBe(403);
    expect(
      (await apiRequest(h, "POST", "/api/logout", undefined, { cookie, headers: { "sec-fetch-site": "cross-site" } }))
        .status,
    ).toBe(403);
    expect(h.channel.take()).toEqual([]);
    expect(await userStatus(cookie)).toBe(200);
    expect(await audit("userLoggedIn")).toHaveLength(1);
  });

  it("allows same-origin writes", async () => {
    expect(
      (
        await login("alice", "alice-password", {
          headers: { origin: "http://postern.test", "sec-fetch-site": "same-origin" },
        })
      ).status,
    ).toBe(200);
    expect((await login("alice", "alice-password", { headers: { "sec-fetch-site": "none" } })).status).toBe(200);
    expect(
      (await login("alice", "alice-password", { headers: { "content-type": "application/json; charset=utf-8" } }))
        .status,
    ).toBe(200);
  });
});

describe("ending sessions revokes grants", () => {
  it("one user session, all user sessions, all admin sessions", async () => {
    const a = await aliceGrants("203.0.113.5");
    const b = await aliceGrants("198.51.100.20");
    const [first] = (await h.services.users.sessions(seed.userId)).map((s) => s.ID);
    expect((await admin("DELETE", `/api/admin/sessions/${first}`)).status).toBe(204);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect(await userStatus(a)).toBe(401);
    expect(await userStatus(b, "198.51.100.20")).toBe(200);
    expect((await admin("DELETE", "/api/admin/sessions")).status).toBe(204);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "198.51.100.20" })]);
    expect(await userStatus(b, "198.51.100.20")).toBe(401);
    const other = cookieOf(
      (await apiRequest(h, "POST", "/api/admin/login", { UserName: "root", Password: "root-password" })).setCookie,
    );
    expect((await admin("DELETE", "/api/admin/adminsessions")).status).toBe(204);
    for (const c of [root, other])
      expect((await apiRequest(h, "GET", "/api/admin/admins", undefined, { cookie: c })).status).toBe(401);
  });
});

describe("session cookies over TLS (__Host- prefix)", () => {
  /** One request to `base` (https or http) from the user's address. */
  const call = (base: string, method: string, path: string, opts: { body?: unknown; cookie?: string } = {}) =>
    h.app.request(
      `${base}${path}`,
      {
        method,
        headers: {
          host: "postern.test",
          ...(opts.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
        },
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      },
      socketEnv(),
    );
  const signIn = (base: string) =>
    call(base, "POST", "/api/login", { body: { UserName: "alice", Password: "alice-password", KioskMode: false } });

  it("are __Host- prefixed, Secure and Path=/ over TLS, and only the prefixed name is read there", async () => {
    const r = await signIn("https://postern.test");
    expect(r.status).toBe(200);
    const setCookie = r.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^__Host-postern_session=[A-Za-z0-9_-]{22}; /);
    expect(setCookie).toMatch(/; Path=\/(;|$)/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).not.toMatch(/Domain=/i);
    const cookie = cookieOf(setCookie);
    expect((await call("https://postern.test", "GET", "/api/status", { cookie })).status).toBe(200);
    // The plain name (which a sibling host or an http page could plant) is not a session over TLS.
    const plain = cookie.replace("__Host-", "");
    expect((await call("https://postern.test", "GET", "/api/status", { cookie: plain })).status).toBe(401);
    const out = await call("https://postern.test", "POST", "/api/logout", { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-postern_session=; .*Path=\/.*Secure/);
  });

  it("are __Host- prefixed for admins too, and whenever the PublicURL is https", async () => {
    await h.services.adminSessions.createLocalAdmin({ userName: "boss", name: "Boss", password: "boss-password" });
    const a = await call("https://postern.test", "POST", "/api/admin/login", {
      body: { UserName: "boss", Password: "boss-password" },
    });
    expect(a.headers.get("set-cookie")).toMatch(/^__Host-postern_admin_session=[^;]+;.*Path=\/.*Secure/);
    await setSetting(h.services.db, "PublicURL", "https://postern.example");
    const r = await signIn("http://postern.test");
    expect(r.headers.get("set-cookie")).toMatch(/^__Host-postern_session=[^;]+;.*Secure/);
  });

  it("on plain http count only under the name PublicURL's scheme gives, read with the session", async () => {
    const token = cookieOf((await signIn("http://postern.test")).headers.get("set-cookie") ?? "").split("=")[1];
    const status = async (cookie: string) =>
      (await call("http://postern.test", "GET", "/api/status", { cookie })).status;
    expect(await status(`postern_session=${token}`)).toBe(200);
    expect(await status(`__Host-postern_session=${token}`)).toBe(401);
    // The PublicURL turns https: from the next request on only the __Host- name counts.
    await setSetting(h.services.db, "PublicURL", "HTTPS://postern.example");
    expect(await status(`postern_session=${token}`)).toBe(401);
    expect(await status(`__Host-postern_session=${token}`)).toBe(200);
    expect(await status(`postern_session=x; __Host-postern_session=${token}`)).toBe(200);
    expect(await status(`postern_session=${token}; __Host-postern_session=x`)).toBe(401);
    await setSetting(h.services.db, "PublicURL", "http://postern.example");
    expect(await status(`__Host-postern_session=${token}`)).toBe(401);
    expect(await status(`postern_session=${token}`)).toBe(200);
  });

  it("keep their plain names on plain http (scripts/start.sh on loopback)", async () => {
    const r = await signIn("http://postern.test");
    const setCookie = r.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^postern_session=/);
    expect(setCookie).not.toMatch(/Secure/);
    expect((await call("http://postern.test", "GET", "/api/status", { cookie: cookieOf(setCookie) })).status).toBe(200);
  });
});

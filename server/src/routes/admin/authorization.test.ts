/**
 * The authorisation matrix (issue #3 item 9): every /api/admin/* route — taken from the app itself,
 * so a new route is covered the day it is added — refuses no session, a user session, an expired
 * admin session and an API key (as Bearer and as Basic), with 401 err.invalidSession, and changes
 * nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";

const { adminSessions, auditLog } = testTables;

const h: Harness = await createHarness();
let userCookie = "";
let expiredAdmin = "";
let adminCookie = "";
let apiKey = "";

const someId = "11111111-2222-4333-8444-555555555555";
/** Admin routes used before there is a session: the password sign-in and SAML sign-in (metadata, redirect, ACS). */
const signInRoutes = new Set([
  "/api/admin/login",
  "/api/admin/saml/metadata",
  "/api/admin/login/saml",
  "/api/admin/saml/acs",
]);
const adminRoutes = [
  ...new Set(
    h.app.routes
      .filter((r) => r.method !== "ALL" && r.path.startsWith("/api/admin/") && !signInRoutes.has(r.path))
      .map((r) => `${r.method} ${r.path}`),
  ),
].map((s) => {
  const [method = "", path = ""] = s.split(" ");
  return { method, path: path.replace(/:\w+/g, someId) };
});

beforeAll(async () => {
  await seedLoop(h);
  const admin = await signInAdmin(h);
  adminCookie = admin;
  const created = await apiRequest(
    h,
    "POST",
    "/api/admin/api-keys",
    { Name: "automation", Scopes: ["user.sessions"], ExpiredAfter: null },
    { cookie: admin },
  );
  expect(created.status).toBe(201);
  apiKey = (created.body as { PlaintextKey: string }).PlaintextKey;
  userCookie =
    (await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" })).setCookie.split(
      ";",
    )[0] ?? "";
  // An admin session whose time is up (the user session above stays live).
  expiredAdmin = await signInAdmin(h, "expiring");
  await h.services.db
    .update(adminSessions)
    .set({ endsAt: h.clock.now() - 1 })
    .where(eq(adminSessions.adminId, (await h.services.admins.list()).find((a) => a.UserName === "expiring")!.ID));
  expect((await apiRequest(h, "GET", "/api/status", undefined, { cookie: userCookie })).status).toBe(200);
});
afterAll(async () => {
  await h.close();
});

const auditCount = async () => (await h.services.db.select({ n: count() }).from(auditLog).limit(1))[0]?.n ?? 0;

describe("every admin route refuses callers without an admin session", () => {
  it("covers the admin API", () => {
    expect(adminRoutes.length).toBeGreaterThan(50);
  });

  const callers: [string, () => { cookie?: string; headers?: Record<string, string> }][] = [
    ["no session", () => ({})],
    ["a user session", () => ({ cookie: userCookie })],
    [
      "a user session cookie presented as the admin cookie",
      () => ({ cookie: userCookie.replace("postern_session", "postern_admin_session") }),
    ],
    ["an expired admin session", () => ({ cookie: expiredAdmin })],
    ["an API key as Bearer", () => ({ headers: { authorization: `Bearer ${apiKey}` } })],
    [
      "an API key as Basic",
      () => ({ headers: { authorization: `Basic ${Buffer.from(`x:${apiKey}`).toString("base64")}` } }),
    ],
  ];
  for (const [who, opts] of callers) {
    it(`refuses ${who}`, async () => {
      const before = await auditCount();
      for (const { method, path } of adminRoutes) {
        const body = method === "POST" || method === "PUT" ? {} : undefined;
        const r = await apiRequest(h, method, path, body, opts());
        expect({ route: `${method} ${path}`, status: r.status, body: r.body }).toEqual({
          route: `${method} ${path}`,
          status: 401,
          body: { Err: "err.invalidSession" },
        });
      }
      expect(await auditCount()).toBe(before);
    });
  }
});

describe("the agent registration route refuses callers without an agent.register key (issue #8 item 6)", () => {
  const agentRows = async () => (await h.services.agents.list()).length;
  const body = {
    Name: "sneaky",
    SigningPublicKey: "c2lnbmluZw==",
    BoxPublicKey: "Ym94",
    Version: "1.9.0",
    Capabilities: {},
  };
  const callers: [string, () => { cookie?: string; headers?: Record<string, string> }, number][] = [
    ["no credentials", () => ({}), 401],
    ["an admin session", () => ({ cookie: adminCookie }), 401],
    ["a user session", () => ({ cookie: userCookie }), 401],
    ["an API key of another scope as Bearer", () => ({ headers: { authorization: `Bearer ${apiKey}` } }), 403],
    [
      "an API key of another scope as Basic",
      () => ({ headers: { authorization: `Basic ${Buffer.from(`x:${apiKey}`).toString("base64")}` } }),
      403,
    ],
  ];
  for (const [who, opts, status] of callers) {
    it(`refuses ${who} (${status} Unauthorised) and creates no agent`, async () => {
      const before = await agentRows();
      const r = await apiRequest(h, "POST", "/api/agent/register", body, opts());
      expect({ status: r.status, body: r.body }).toEqual({ status, body: { Err: "Unauthorised" } });
      expect(await agentRows()).toBe(before);
    });
  }
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { apiRequest, createHarness, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { testTables } from "../../testing/database.ts";

const { auditLog } = testTables;

let h: Harness;
let root = "";

const TOO_MANY = "Too many requests. Please try again in...";
const cookieOf = (setCookie: string) => setCookie.split(";")[0] ?? "";
const adminLogin = (UserName: string, Password: string, from?: string) =>
  apiRequest(h, "POST", "/api/admin/login", { UserName, Password }, from ? { from } : {});
const audit = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const adminStatus = async (cookie: string) =>
  (await apiRequest(h, "GET", "/api/admin/admins", undefined, { cookie })).status;

beforeEach(async () => {
  h = await createHarness();
  root = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

describe("POST /admin/login", () => {
  it("signs in with 204 and an HttpOnly, SameSite=Lax cookie, a new id each time; audits sign-ins and failures", async () => {
    const a = await adminLogin("root", "root-password", "198.51.100.8");
    expect(a.status).toBe(204);
    expect(a.setCookie).toMatch(/^postern_admin_session=[A-Za-z0-9_-]{22};.*; HttpOnly/);
    expect(a.setCookie).toMatch(/; SameSite=Lax/);
    expect(cookieOf(a.setCookie)).not.toBe(root);
    expect(await adminStatus(root)).toBe(200); // the earlier session stays until it ends
    expect(await adminStatus(cookieOf(a.setCookie))).toBe(200);
    expect(await adminLogin("root", "wrong-password")).toMatchObject({
      status: 401,
      body: { Err: "Invalid credentials" },
    });
    expect(await adminLogin("nobody", "wrong-password")).toMatchObject({
      status: 401,
      body: { Err: "Invalid credentials" },
    });
    expect((await audit("adminLoggedIn")).map((e) => [e.adminName, e.ipAddress])).toEqual([
      ["root", "203.0.113.5"],
      ["root", "198.51.100.8"],
    ]);
    expect((await audit("adminLoginFailed")).map((e) => [e.adminName, e.errorMessage])).toEqual([
      ["root", "wrong password"],
      ["nobody", "unknown admin"],
    ]);
  });

  it("refuses an admin whose login is off with 403 Login not permitted, audited", async () => {
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/admin/admins",
          {
            Name: "Eve",
            UserName: "eve",
            PlainPassword: "eve-password",
            ConfirmPassword: "eve-password",
            LoginEnabled: false,
          },
          { cookie: root },
        )
      ).status,
    ).toBe(201);
    const r = await adminLogin("eve", "eve-password");
    expect(r).toMatchObject({ status: 403, body: { Err: "Login not permitted" } });
    expect(r.setCookie).toBe("");
    expect((await audit("adminLoginFailed")).map((e) => [e.adminName, e.errorMessage])).toEqual([
      ["eve", "login not permitted"],
    ]);
  });

  it("throttles per account (5) and per address (20), before any hashing", async () => {
    for (let i = 0; i < 5; i++) expect((await adminLogin("root", "wrong", `198.51.100.${i + 1}`)).status).toBe(401);
    const r = await adminLogin("root", "root-password", "192.0.2.1");
    expect(r).toMatchObject({ status: 429, body: { Err: TOO_MANY, Extra: "60" } });
    expect(r.headers.get("retry-after")).toBe("60");
    expect(r.setCookie).toBe("");
    expect((await audit("adminLoginFailed")).at(-1)?.errorMessage).toBe("too many attempts");
    // The user login shares the account key: the same name is blocked there too.
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/login",
          { UserName: "root", Password: "root-password" },
          { from: "192.0.2.2" },
        )
      ).status,
    ).toBe(429);
    h.clock.advance(60_000);
    expect((await adminLogin("root", "root-password")).status).toBe(204);

    for (let i = 0; i < 20; i++) expect((await adminLogin(`ghost${i}`, "x", "203.0.113.200")).status).toBe(401);
    expect((await adminLogin("root", "root-password", "203.0.113.200")).status).toBe(429);
    expect((await adminLogin("root", "root-password", "203.0.113.201")).status).toBe(204);
  });

  it("ends every admin session on DELETE /admin/adminsessions", async () => {
    const other = cookieOf((await adminLogin("root", "root-password")).setCookie);
    expect((await apiRequest(h, "DELETE", "/api/admin/adminsessions", undefined, { cookie: root })).status).toBe(204);
    expect(await adminStatus(root)).toBe(401);
    expect(await adminStatus(other)).toBe(401);
  });
});

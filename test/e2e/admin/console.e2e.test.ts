/**
 * The admin console's shape in a real Chromium against the real server (issue #9 items 6, 19,
 * 21; docs/reference.md admin-console §2, §6, §7, §8): every route renders for a signed-in admin and guards for a
 * signed-out one; unknown /admin paths; admin login with the shared schema's field errors and the
 * server's refusal; admin 2FA enrolment and verification; a 401 err.invalidSession back to admin
 * login; the portal's admin outcome landing here; the bundle-hash reload; German and dark mode;
 * an axe-core scan of every page.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { generateSync } from "otplib";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import type { Stack } from "../../support/stack.ts";
import { adminSignIn, expectAccessible, pathOf, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin console e2e: SKIPPED: /usr/bin/chromium is not installed");

/** Every admin route behind admin login, with the h1 it shows. */
const ROUTES: readonly [string, string][] = [
  ["/admin/home", "Home"],
  ["/admin/agents", "Agents"],
  ["/admin/knocs", "Knocs"],
  ["/admin/knocs/new", "New Knoc"],
  ["/admin/knocs/new/linux", "New Linux Knoc"],
  ["/admin/knocs/new/application", "New application Knoc"],
  ["/admin/knocs/new/proxy", "New proxy Knoc"],
  ["/admin/knocs/new/script", "New script Knoc"],
  ["/admin/knocs/00000000-0000-0000-0000-000000000001/update", "Update Knoc"],
  ["/admin/backends", "Backends"],
  ["/admin/acls", "ACLs"],
  ["/admin/approvals", "Approvals"],
  ["/admin/groups", "Groups"],
  ["/admin/users", "Users"],
  ["/admin/admins", "Admins"],
  ["/admin/logs", "Logs"],
  ["/admin/api-keys", "API keys"],
  ["/admin/settings", "Settings"],
];

const SIDEBAR = ["Home", "Agents", "Knocs", "Approvals", "Groups", "Users", "Admins", "Logs", "API keys", "Settings"];

describe.skipIf(!chromiumAvailable)("admin console shape in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let base: string;
  beforeAll(() => {
    stack = suite.stack();
    base = suite.url();
  });
  const favicon = (page: Page) => page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute("href"));

  it("guards every admin route and unknown /admin paths: a signed-out admin lands on admin login", async () => {
    const page = await suite.fresh();
    for (const [path] of [...ROUTES, ["/admin/nowhere/at/all", ""] as const]) {
      await page.goto(base + path);
      await expectVisible(page.getByRole("heading", { name: "Admin login" }));
      expect(pathOf(page), path).toBe("/admin");
    }
    expect(await page.title()).toBe("Admin login · Postern");
    expect(await favicon(page)).toBe("/favicon-admin.svg");
    await expectAccessible(page, "admin login");
    // The two-factor pages need no admin login, but without a pending sign-in they say so.
    await page.goto(base + "/admin/otp/onboard");
    await expectVisible(page.getByRole("heading", { name: "Admin login" }));
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid session" }));
  });

  it("checks the form with the shared schema and shows the server's refusal", async () => {
    const page = await suite.fresh();
    await page.goto(base + "/admin");
    await page.getByRole("button", { name: "Log in" }).click();
    await expectVisible(page.getByText("Required").first());
    expect(await page.getByText("Required").count()).toBe(2);
    expect(await page.getByLabel("Username").getAttribute("aria-invalid")).toBe("true");
    await adminSignIn(page, base, "admin", "not-the-password");
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid credentials" }));
    expect(pathOf(page)).toBe("/admin");
  });

  it("renders every route for a signed-in admin, with the sidebar, the admin favicon and no serious axe violation", async () => {
    const page = await suite.signedIn();
    const nav = page.getByRole("navigation", { name: "Admin" });
    for (const name of SIDEBAR) await expectVisible(nav.getByRole("link", { name, exact: true }));
    await expectVisible(page.getByRole("button", { name: "Logout" }));
    for (const [path, heading] of ROUTES) {
      await page.goto(base + path);
      await expectVisible(page.getByRole("heading", { level: 1, name: heading }));
      expect(pathOf(page), path).toBe(path);
      expect(await page.title(), path).toBe(`${heading} · Postern`);
      expect(await favicon(page), path).toBe("/favicon-admin.svg");
      await expectAccessible(page, path);
    }
    // Sidebar navigation marks the current page.
    await nav.getByRole("link", { name: "Agents" }).click();
    await page.waitForURL(/\/admin\/agents$/);
    expect(await nav.getByRole("link", { name: "Agents" }).getAttribute("aria-current")).toBe("page");
    // Signed in: admin login and unknown paths go to admin home.
    for (const path of ["/admin", "/admin/no-such-page"]) {
      await page.goto(base + path);
      await page.waitForURL(/\/admin\/home$/);
      await expectVisible(page.getByRole("heading", { level: 1, name: "Home" }));
    }
    // Logout ends the session: admin routes guard again.
    await page.getByRole("button", { name: "Logout" }).click();
    await page.waitForURL(/\/admin$/);
    await page.goto(base + "/admin/agents");
    await expectVisible(page.getByRole("heading", { name: "Admin login" }));
  });

  it("enrols an admin's 2FA (QR code, copyable secret, code) and asks for a code at the next sign-in", async () => {
    await stack.admin.ok("POST", "/api/admin/admins", {
      Name: "Olga",
      UserName: "olga",
      PlainPassword: "olga-password",
      ConfirmPassword: "olga-password",
      TOTPEnabled: true,
    });
    const page = await suite.fresh({ clipboardOrigin: base });
    await adminSignIn(page, base, "olga", "olga-password");
    await page.waitForURL(/\/admin\/otp\/onboard$/);
    await expectVisible(page.getByRole("img", { name: "QR code for your authenticator app" }));
    expect(await page.title()).toBe("Set up two-factor authentication · Postern");
    expect(await favicon(page)).toBe("/favicon-admin.svg");
    const secret = await page.getByTestId("otp-secret").getAttribute("data-secret");
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await expectVisible(page.getByRole("button", { name: "Copied" }));
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await expectAccessible(page, "admin 2FA onboarding");
    await page.getByLabel("Code").fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid code" }));
    const now = Math.floor(Date.now() / 1000);
    await page.getByLabel("Code").fill(generateSync({ secret: secret!, epoch: now }));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(/\/admin\/home$/);
    await expectVisible(page.getByRole("heading", { level: 1, name: "Home" }));

    await page.getByRole("button", { name: "Logout" }).click();
    await page.waitForURL(/\/admin$/);
    await adminSignIn(page, base, "olga", "olga-password");
    await page.waitForURL(/\/admin\/otp\/verify$/);
    await expectAccessible(page, "admin 2FA verification");
    // A fresh time step: the enrolment code's step cannot be used twice.
    const next = generateSync({ secret: secret!, epoch: now + 30 });
    await page.getByLabel("Code").fill(next);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/admin\/home$/);
  });

  it("sends an admin whose session ends to admin login (401 err.invalidSession)", async () => {
    const page = await suite.signedIn();
    await page.goto(base + "/admin/agents");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Agents" }));
    await page.context().clearCookies();
    // The agents page asks every 5 s; its 401 sends the admin to login.
    await page.waitForURL(/\/admin$/, { timeout: 12_000 });
    await expectVisible(page.getByRole("heading", { name: "Admin login" }));
  });

  it("lands admin credentials typed on the user login in the admin console", async () => {
    const page = await suite.fresh();
    await page.goto(base + "/");
    await page.getByRole("link", { name: "Administrator login" }).click();
    await expectVisible(page.getByRole("heading", { name: "Admin login" }));
    await page.goto(base + "/");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("admin-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/admin\/home$/);
    await expectVisible(page.getByRole("heading", { level: 1, name: "Home" }));
  });

  it("reloads once after a navigation when the server's JsBundleHash changes", async () => {
    const page = await suite.signedIn();
    await page.route("**/api/system_status", async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), JsBundleHash: "0123456789abcdef" } });
    });
    let loads = 0;
    page.on("load", () => loads++);
    await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Agents" }).click();
    await expect.poll(() => loads, { timeout: 10_000 }).toBe(1);
    await page.waitForTimeout(1_000);
    expect(loads).toBe(1);
    expect(await page.evaluate(() => localStorage.getItem("jsBundleHash"))).toBe('"0123456789abcdef"');
  });

  it("speaks German in a German browser and passes axe in dark mode", async () => {
    const page = await suite.fresh({ locale: "de-DE", colorScheme: "dark" });
    await page.goto(base + "/admin");
    await expectVisible(page.getByRole("heading", { name: "Administrator-Anmeldung" }));
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("de");
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
    await expectAccessible(page, "admin login, German, dark");
    await page.getByLabel("Benutzername").fill("admin");
    await page.getByLabel("Passwort").fill("admin-password");
    await page.getByRole("button", { name: "Anmelden" }).click();
    await page.waitForURL(/\/admin\/home$/);
    await expectVisible(page.getByRole("heading", { level: 1, name: "Startseite" }));
    const nav = page.getByRole("navigation", { name: "Verwaltung" });
    for (const name of [
      "Agenten",
      "Gruppen",
      "Benutzer",
      "Administratoren",
      "Protokolle",
      "API-Schlüssel",
      "Einstellungen",
    ])
      await expectVisible(nav.getByRole("link", { name, exact: true }));
    await expectAccessible(page, "admin home, German, dark");
  });
});

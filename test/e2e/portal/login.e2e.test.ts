/**
 * The portal's sign-in side in a real Chromium against the real server (issue #5, docs/reference.md user-portal §2,
 * §4, §8): routes and guards, page titles and favicon, every login outcome (wrong password,
 * disabled account, throttled, admin credentials, 2FA enrolment with the QR code and the copyable
 * secret, 2FA verification, success to /home/new or /home, kiosk), errors from the query string,
 * SSO through a fake SAML IdP (the SSO button, the "or" divider, Enter starting SSO), the reload on
 * a new JsBundleHash, and an axe-core scan of every page.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { generateSync } from "otplib";
import { setSetting } from "../../../server/src/services/settings.ts";
import { spUrls } from "../../../server/src/services/saml/setup.ts";
import { FakeIdp, makeKeyPair, requestIdOf } from "../../../server/src/testing/saml.ts";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import { usePortalSuite } from "./portal-stack.ts";
import type { PortalStack } from "./portal-stack.ts";

if (!chromiumAvailable) console.warn("portal login e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("portal sign-in in Chromium", () => {
  const suite = usePortalSuite();
  let p: PortalStack;
  beforeAll(() => {
    p = suite.stack();
  });
  const fresh = suite.fresh;

  async function signIn(page: Page, userName: string, password = `${userName}-password`, kiosk = false): Promise<void> {
    await page.goto(p.url + "/");
    await page.getByLabel("Username").fill(userName);
    await page.getByLabel("Password").fill(password);
    if (kiosk) await page.getByLabel("This is a public computer").check();
    await page.getByRole("button", { name: "Log in" }).click();
  }

  const path = (page: Page) => new URL(page.url()).pathname;
  const favicon = (page: Page) => page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute("href"));

  async function expectNoSerious(page: Page, what: string): Promise<void> {
    expect(await seriousViolations(page), what).toEqual([]);
  }

  it("sends unknown paths and user routes without a session to Login, with its title and favicon", async () => {
    const page = await fresh();
    for (const target of ["/nowhere/at/all", "/home/new", "/home"]) {
      await page.goto(p.url + target);
      await expectVisible(page.getByLabel("Username"));
      expect(path(page), target).toBe("/");
    }
    expect(await page.title()).toBe("Log in · Postern");
    expect(await favicon(page)).toBe("/favicon.svg");
    await expectVisible(page.getByRole("link", { name: "Administrator login" }));
    expect(await page.getByRole("link", { name: "Administrator login" }).getAttribute("href")).toBe("/admin");
    // No SAML configured: no SSO button, the local form is open.
    expect(await page.getByRole("button", { name: "Sign in with SSO" }).count()).toBe(0);
    await expectNoSerious(page, "login");
  });

  it("shows an error from the query string: known keys translated, anything else as Authentication failed", async () => {
    const page = await fresh();
    await page.goto(p.url + "/?error=accountDisabled");
    await expectVisible(
      page.getByRole("alert").filter({ hasText: "Error: Your account is disabled contact an admin" }),
    );
    await page.goto(p.url + "/?error=%3Cb%3Ehello%3C%2Fb%3E");
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Authentication failed" }));
    expect(await page.locator("b").count()).toBe(0);
    await expectNoSerious(page, "login with an error");
  });

  it("refuses an empty form, a wrong password and a disabled account with the spec's messages", async () => {
    const page = await fresh();
    await page.goto(p.url + "/");
    await page.getByRole("button", { name: "Log in" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Username and password are required" }));
    await signIn(page, "frank", "not-franks-password");
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid credentials" }));
    await signIn(page, "erin");
    await expectVisible(
      page.getByRole("alert").filter({ hasText: "Error: Your account is disabled contact an admin" }),
    );
    expect(path(page)).toBe("/");
  });

  it("throttles repeated failures of one account with the spec's message and the seconds to wait", async () => {
    const page = await fresh();
    for (let i = 0; i < 5; i++) {
      await signIn(page, "ivan", `wrong-${i}`);
      await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid credentials" }));
    }
    await signIn(page, "ivan");
    await expectVisible(
      page.getByRole("alert").filter({ hasText: /^Error: Too many requests\. Please try again in\.\.\.: \d+$/ }),
    );
  });

  it("signs in to /home/new, sends a signed-in user from Login (and the 2FA pages) home, and logs out", async () => {
    const page = await fresh();
    await signIn(page, "frank");
    await page.waitForURL(/\/home\/new$/);
    await expectVisible(page.getByRole("heading", { name: "Hello, Frank" }));
    expect(await page.title()).toBe("Your access · Postern");
    expect(await favicon(page)).toBe("/favicon.svg");
    for (const target of ["/", "/otp/verify", "/otp/onboard"]) {
      await page.goto(p.url + target);
      await page.waitForURL(/\/home\/new$/);
    }
    await page.getByRole("button", { name: "Logout" }).click();
    await expectVisible(page.getByLabel("Username"));
    await page.goto(p.url + "/home/new");
    await expectVisible(page.getByLabel("Username"));
    expect(path(page)).toBe("/");
  });

  it("lands on the older Home when NewUserDashboard is off, and /home/new otherwise", async () => {
    await p.stack.admin.ok("POST", "/api/admin/settings/customize", { NewUserDashboard: false });
    try {
      const page = await fresh();
      await signIn(page, "frank");
      await page.waitForURL(/\/home$/);
      await expectVisible(page.getByRole("table"));
      expect(await page.title()).toBe("Home · Postern");
      await page.goto(p.url + "/");
      await page.waitForURL(/\/home$/);
    } finally {
      await p.stack.admin.ok("POST", "/api/admin/settings/customize", { NewUserDashboard: true });
    }
  });

  it("gives a public computer (kiosk) the kiosk session length", async () => {
    const page = await fresh();
    await signIn(page, "frank", undefined, true);
    await page.waitForURL(/\/home\/new$/);
    // KioskSessionDuration defaults to 30 minutes (user sessions: 480).
    await expectVisible(page.getByTestId("session-countdown").filter({ hasText: /^00:(29|30):\d\d$/ }));
  });

  it("sends admin credentials on the user login to the admin console", async () => {
    const page = await fresh();
    const adminPage = page.waitForRequest((request) => new URL(request.url()).pathname === "/admin/home", {
      timeout: 10_000,
    });
    await signIn(page, "admin", "admin-password");
    expect(new URL((await adminPage).url()).pathname).toBe("/admin/home");
    const cookies = await page.context().cookies(p.url);
    expect(cookies.map((c) => c.name)).toContain("postern_admin_session");
  });

  it("enrols 2FA: QR code, secret copied with a 750 ms confirmation, code verified; the next sign-in asks for a code", async () => {
    const page = await fresh({ clipboardOrigin: p.url });
    await signIn(page, "dave");
    await page.waitForURL(/\/otp\/onboard$/);
    const qr = page.getByRole("img", { name: "QR code for your authenticator app" });
    await expectVisible(qr);
    expect(await page.title()).toBe("Set up two-factor authentication · Postern");
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    const secret = (await page.getByTestId("otp-secret").getAttribute("data-secret")) ?? "";
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expectNoSerious(page, "2FA onboarding");

    const copy = page.getByRole("button", { name: "Copy" });
    await copy.click();
    const copiedAt = Date.now();
    await expectVisible(page.getByRole("button", { name: "Copied" }));
    await expectVisible(page.getByRole("button", { name: "Copy" }), 3000);
    const shown = Date.now() - copiedAt;
    expect(shown).toBeGreaterThanOrEqual(600);
    expect(shown).toBeLessThan(2000);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    await page.getByRole("button", { name: "Verify" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Code is required" }));
    const now = Math.floor(Date.now() / 1000);
    const wrong = generateSync({ secret, epoch: now + 600 });
    await page.getByLabel("Code").fill(wrong);
    await page.getByRole("button", { name: "Verify" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid code" }));
    await page.getByLabel("Code").fill(generateSync({ secret, epoch: now }));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(/\/home\/new$/);
    await expectVisible(page.getByRole("heading", { name: "Hello, Dave" }));
    await page.getByRole("button", { name: "Logout" }).click();
    await expectVisible(page.getByLabel("Username"));

    await signIn(page, "dave");
    await page.waitForURL(/\/otp\/verify$/);
    await expectVisible(page.getByRole("link", { name: "Back to login" }));
    expect(await page.title()).toBe("Two-factor verification · Postern");
    await expectNoSerious(page, "2FA verification");
    // The step used at enrolment is never accepted again; the next one is (±1 step).
    await page.getByLabel("Code").fill(generateSync({ secret, epoch: now + 30 }));
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/home\/new$/);
  });

  it("takes a 2FA page without a pending sign-in back to Login with the error, and Back to login goes there too", async () => {
    const page = await fresh();
    await page.goto(p.url + "/otp/verify");
    await page.getByLabel("Code").fill("123456");
    await page.getByRole("button", { name: "Log in" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid session" }));
    expect(path(page)).toBe("/");
    await page.goto(p.url + "/otp/onboard");
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid session" }));
    await page.goto(p.url + "/otp/verify");
    await page.getByRole("link", { name: "Back to login" }).click();
    await expectVisible(page.getByLabel("Username"));
  });

  it("reloads once when the server's JsBundleHash changes, and keeps it as jsBundleHash", async () => {
    const services = p.stack.server.services as { jsBundleHash: string };
    const original = services.jsBundleHash;
    const page = await fresh();
    await signIn(page, "frank");
    await page.waitForURL(/\/home\/new$/);
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem("jsBundleHash") ?? "null") as unknown)).toBe(
      original,
    );
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    services.jsBundleHash = "0123456789abcdef";
    try {
      const reloaded = page.waitForEvent("load", { timeout: 10_000 });
      await page.getByRole("button", { name: "Logout" }).click();
      await reloaded;
      await expectVisible(page.getByLabel("Username"));
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBeUndefined();
      expect(await page.evaluate(() => JSON.parse(localStorage.getItem("jsBundleHash") ?? "null") as unknown)).toBe(
        "0123456789abcdef",
      );
    } finally {
      services.jsBundleHash = original;
    }
  });

  it("offers SSO when SAML is configured: the button, the or divider, Enter with no field focused, kiosk mode", async () => {
    const idp = new FakeIdp(await makeKeyPair("idp.example.test"));
    const db = p.stack.server.services.db;
    await setSetting(db, "PublicURL", p.url);
    await setSetting(db, "SAMLMetadataFile", idp.metadata());
    try {
      const page = await fresh();
      const sp = spUrls(p.url, "user");
      let kioskParam: string | null = null;
      // The IdP, played at the redirect (Playwright routes only the first URL of a redirect chain):
      // the server's answer is taken (its binding cookie lands in the browser), and the page that
      // follows signs "sam.sso" in at once by posting a signed answer to the ACS.
      await page.route(`${p.url}/api/login/saml*`, async (route) => {
        kioskParam = new URL(route.request().url()).searchParams.get("kioskMode");
        const redirect = await route.fetch({ maxRedirects: 0 });
        const location = redirect.headers()["location"] ?? "";
        expect(location.startsWith(idp.ssoUrl)).toBe(true);
        const answer = idp.signed(
          idp.fields(requestIdOf(location), { acsUrl: sp.acsUrl, audience: sp.entityId }, "sam.sso"),
        );
        await route.fulfill({
          status: 200,
          headers: {
            "content-type": "text/html; charset=utf-8",
            ...(redirect.headers()["set-cookie"] ? { "set-cookie": redirect.headers()["set-cookie"]! } : {}),
          },
          body: `<!doctype html><title>IdP</title><form method="post" action="${sp.acsUrl}"><input type="hidden" name="SAMLResponse" value="${answer}"></form><script>document.forms[0].submit()</script>`,
        });
      });
      await page.goto(p.url + "/");
      const sso = page.getByRole("button", { name: "Sign in with SSO" });
      await expectVisible(sso);
      await expectVisible(page.getByRole("separator", { name: "or" }));
      // The local form is there but collapsed until asked for.
      expect(await page.getByLabel("Username").isVisible()).toBe(false);
      await page.getByText("Sign in with username and password").click();
      await expectVisible(page.getByLabel("Username"));
      await expectNoSerious(page, "login with SSO");

      await page.getByLabel("This is a public computer").check();
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/home\/new$/, { timeout: 15_000 });
      expect(kioskParam).toBe("true");
      await expectVisible(page.getByRole("heading", { name: /^Hello, / }));
      await expectVisible(page.getByText("No resources have been assigned to you yet."));
      // A SAML account's password is not Postern's: no Change password.
      expect(await page.getByRole("button", { name: "Change password" }).count()).toBe(0);
      await expectVisible(page.getByTestId("session-countdown").filter({ hasText: /^00:(29|30):\d\d$/ }));
    } finally {
      await setSetting(db, "SAMLMetadataFile", "");
      await setSetting(db, "PublicURL", "");
    }
  });
});

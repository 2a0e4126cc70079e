/**
 * "Back to the protected page" in a real Chromium against the real server, agent and HAProxy (issue
 * #14 items 3 and 7, docs/decisions.md "Back to the protected page"): the portal opened as
 * `/?referrer=<url>` sends the browser to that URL (path and query included) once the grant of the
 * user's Knoc at the same origin is Granted, through the login form and 2FA enrolment, after a
 * click-to-grant Knoc's Grant click, and from the HAProxy deny page of docs/admin-guide.md; it ignores
 * (with a note, English and German) a referrer at another origin, scheme or port, a javascript: one,
 * and one whose grant fails. The protected sites are loopback HTTP servers (test/support/recording-site.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { generateSync } from "otplib";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import { startDenyPageHaproxy } from "../../support/deny-page.ts";
import { startRecordingSite } from "../../support/recording-site.ts";
import type { RecordingSite } from "../../support/recording-site.ts";
import type { DenyPageHaproxy } from "../../support/deny-page.ts";
import { usePortalSuite } from "./portal-stack.ts";
import type { PortalStack } from "./portal-stack.ts";

if (!chromiumAvailable) console.warn("portal referrer e2e: SKIPPED: /usr/bin/chromium is not installed");

const IGNORED = "The return address in your link was not followed: it does not belong to any of your resources.";

describe.skipIf(!chromiumAvailable)("back to the protected page (?referrer=) in Chromium", () => {
  const suite = usePortalSuite();
  let p: PortalStack;
  let site: RecordingSite;
  let other: RecordingSite;
  let denySite: DenyPageHaproxy;
  const ids: Record<string, string> = {};
  const fresh = suite.fresh;

  beforeAll(async () => {
    p = suite.stack();
    [site, other] = await Promise.all([startRecordingSite(), startRecordingSite()]);
    denySite = await startDenyPageHaproxy(p.url);
    const admin = p.stack.admin;
    const backends = await admin.ok<{ ID: string; Name: string; AgentID: string }[]>("GET", "/api/admin/backends");
    const proxy = backends.find((b) => b.Name === "proxy")!;
    const unreachable = backends.find((b) => b.Name === "unreachable")!;
    const denyBackend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "deny-page",
      AgentID: proxy.AgentID,
      Config: { haproxy: { Protocol: "unix", Address: denySite.socketPath } },
    });
    const knoc = (body: Record<string, unknown>) =>
      admin.ok<string>("POST", "/api/admin/acls", {
        BackendID: proxy.ID,
        ClickToGrant: false,
        Config: { haproxy: { ID: p.haproxy.aclId } },
        ...body,
      });
    ids.reports = await knoc({ Description: "Reports app", URL: site.url });
    ids.click = await knoc({
      Description: "Click app",
      URL: `http://localhost:${site.port}/start`,
      ClickToGrant: true,
    });
    ids.failing = await knoc({ Description: "Failing app", URL: other.url, BackendID: unreachable.ID });
    ids.deny = await knoc({
      Description: "Deny-page site",
      URL: `http://127.0.0.1:${denySite.frontendPort}`,
      BackendID: denyBackend.ID,
      Config: { haproxy: { ID: denySite.aclId } },
    });
    const user = (userName: string, aclIds: string[], extra: Record<string, unknown> = {}) =>
      admin.ok<string>("POST", "/api/admin/users", {
        Name: userName[0]!.toUpperCase() + userName.slice(1),
        UserName: userName,
        PlainPassword: `${userName}-password`,
        ConfirmPassword: `${userName}-password`,
        AclIds: aclIds,
        ...extra,
      });
    await user("rita", [ids.reports!]);
    await user("rob", [ids.click!]);
    await user("fay", [ids.failing!]);
    await user("dora", [ids.deny!]);
    await user("tess", [ids.reports!], { TOTPEnabled: true });
  });
  afterAll(async () => {
    await Promise.all([site?.close(), other?.close(), denySite?.stop()]);
  });

  /** Opens the portal with `referrer` and checks the address bar no longer carries it. */
  async function openWithReferrer(page: Page, referrer: string): Promise<void> {
    await page.goto(`${p.url}/?referrer=${encodeURIComponent(referrer)}`);
    await page.waitForURL((url) => !url.search.includes("referrer"));
  }

  /** Fills the login form (the Login page must be open). */
  async function logIn(page: Page, userName: string, german = false): Promise<void> {
    await page.getByLabel(german ? "Benutzername" : "Username").fill(userName);
    await page.getByLabel(german ? "Passwort" : "Password").fill(`${userName}-password`);
    await page.getByRole("button", { name: german ? "Anmelden" : "Log in" }).click();
  }

  it("follows a referrer at the Knoc's origin once the grant is Granted: full URL, nothing leaked to the site", async () => {
    const page = await fresh();
    const target = `${site.url}/reports/7?tab=2&from=mail#chart`;
    await openWithReferrer(page, target);
    expect(new URL(page.url()).pathname).toBe("/");
    await logIn(page, "rita");
    await page.waitForURL(target, { timeout: 20_000 });
    await expectVisible(page.getByRole("heading", { name: "Protected app" }));
    const arrival = site.requests.find((r) => r.path === "/reports/7?tab=2&from=mail");
    expect(arrival).toBeDefined();
    // The browser tells the site at most the portal's origin, never the referrer it was given.
    expect(arrival!.headers.referer ?? "").not.toContain("referrer");
    // Followed once: back at the portal the dashboard stays.
    await page.goto(p.url + "/");
    await page.waitForURL(/\/home\/new$/);
    await expectVisible(page.getByRole("heading", { name: "Hello, Rita" }));
    expect(page.url()).toMatch(/\/home\/new$/);
    await expectVisible(page.locator('article[data-acl-id="' + ids.reports + '"] [data-status="0"]'));
    expect(await page.locator("[data-referrer]").count()).toBe(0);
  });

  it("ignores a referrer at another origin, at the Knoc's host with another scheme or port, and javascript:", async () => {
    const page = await fresh();
    await openWithReferrer(page, `${other.url}/somewhere`);
    await logIn(page, "rita");
    await page.waitForURL(/\/home\/new$/);
    const note = page.locator('[data-referrer="ignored"]');
    await expectVisible(note.filter({ hasText: IGNORED }));
    // The Knoc becomes Granted (asked with the page's own session), yet the browser stays.
    const knocStatus = () =>
      page.evaluate(async (aclId) => {
        const res = await fetch("/api/status", { credentials: "include" });
        const body = (await res.json()) as { ACLs: { ACLID: string; Status: number }[] };
        return body.ACLs.find((acl) => acl.ACLID === aclId)?.Status;
      }, ids.reports!);
    await expect.poll(knocStatus, { timeout: 20_000 }).toBe(0);
    expect(page.url()).toMatch(/\/home\/new$/);
    await expectVisible(page.locator('[data-referrer="ignored"]'));
    expect(await seriousViolations(page)).toEqual([]);

    // Signed in already: the Login route stores the referrer and sends the user home, where it is judged.
    for (const referrer of [
      `https://127.0.0.1:${site.port}/reports`,
      `http://127.0.0.1:${other.port}/reports`,
      `http://localhost:${site.port}/reports`,
      `http://127.0.0.1.evil.test:${site.port}/reports`,
      "javascript:alert(document.domain)",
      "data:text/html,<h1>hi</h1>",
      "reports/7",
    ]) {
      await openWithReferrer(page, referrer);
      await page.waitForURL(/\/home\/new$/);
      await expectVisible(page.locator('[data-referrer="ignored"]').filter({ hasText: IGNORED }));
      expect(page.url(), referrer).toMatch(/\/home\/new$/);
    }
    expect(other.requests.map((r) => r.path)).not.toContain("/somewhere");
    expect(other.requests.map((r) => r.path)).not.toContain("/reports");
  });

  it("says so in German", async () => {
    const page = await fresh({ locale: "de-DE" });
    await openWithReferrer(page, `${other.url}/x`);
    await logIn(page, "rita", true);
    await expectVisible(
      page
        .locator('[data-referrer="ignored"]')
        .filter({ hasText: "Der Rücksprungadresse in Ihrem Link wurde nicht gefolgt" }),
    );
  });

  it("waits for the Grant click of a click-to-grant Knoc, then follows", async () => {
    const page = await fresh();
    const target = `http://localhost:${site.port}/click/here?id=3`;
    await openWithReferrer(page, target);
    await logIn(page, "rob");
    await page.waitForURL(/\/home\/new$/);
    await expectVisible(
      page
        .locator('[data-referrer="waiting"]')
        .filter({ hasText: "Grant access to Click app to go back to the page you came from." }),
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator(`article[data-acl-id="${ids.click}"]`).getByRole("button", { name: "Grant Access" }).click();
    await page.waitForURL(target, { timeout: 20_000 });
    await expectVisible(page.getByRole("heading", { name: "Protected app" }));
  });

  it("ignores the referrer when the grant fails, naming the Knoc", async () => {
    const page = await fresh();
    await openWithReferrer(page, `${other.url}/fails`);
    await logIn(page, "fay");
    await page.waitForURL(/\/home\/new$/);
    await expectVisible(
      page.locator('[data-referrer="ignored"]').filter({
        hasText: "Access to Failing app could not be granted, so you were not taken back to the page you came from.",
      }),
      30_000,
    );
    expect(page.url()).toMatch(/\/home\/new$/);
    expect(other.requests.map((r) => r.path)).not.toContain("/fails");
  });

  it("keeps the referrer through 2FA enrolment", async () => {
    const page = await fresh();
    const target = `${site.url}/after/2fa`;
    await openWithReferrer(page, target);
    await logIn(page, "tess");
    await page.waitForURL(/\/otp\/onboard$/);
    const secret = (await page.getByTestId("otp-secret").getAttribute("data-secret")) ?? "";
    await page.getByLabel("Code").fill(generateSync({ secret, epoch: Math.floor(Date.now() / 1000) }));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(target, { timeout: 20_000 });
    await expectVisible(page.getByRole("heading", { name: "Protected app" }));
  });

  it("brings the user from the HAProxy deny page of the admin guide through sign-in back to the page", async () => {
    const page = await fresh();
    const protectedUrl = `http://127.0.0.1:${denySite.frontendPort}/wiki/page?x=1`;
    const denied = await page.goto(protectedUrl);
    expect(denied?.status()).toBe(403);
    await expectVisible(page.getByRole("heading", { name: "Sign in for access" }));
    await page.getByRole("link", { name: "Sign in to Postern" }).click();
    await page.waitForURL(`${p.url}/`);
    await logIn(page, "dora");
    await page.waitForURL(protectedUrl, { timeout: 20_000 });
    expect(await page.locator("body").textContent()).toBe("ok");
  });
});

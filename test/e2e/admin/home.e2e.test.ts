/**
 * Admin home and the global alert banner in Chromium against the real server (issue #9 items 7,
 * 8, 21; docs/reference.md admin-console §2 "Global alert banner", "Admin home", §4, §8, §9): the alerts in priority
 * order and dismissible (unlicensed, err, agentIncompatible with a real agent enrolled at 1.8.0,
 * userLimitExceeded with a real licence and SAML users, serverUpdate), the counts, the recent
 * activity with relative dates, the license-expires-soon message within 60 days, the 30 s
 * refresh, and an axe-core scan.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { enrol } from "../../../agent/src/enrol.ts";
import { issueTestLicence } from "../../../server/src/testing/licences.ts";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import { testTables } from "../../../server/src/testing/database.ts";
import { ApiClient, createUser } from "../../support/stack.ts";
import type { Stack } from "../../support/stack.ts";
import { expectAccessible, useAdminSuite } from "./admin-suite.ts";

const { licenses } = testTables;

if (!chromiumAvailable) console.warn("admin home e2e: SKIPPED: /usr/bin/chromium is not installed");

const DAY_MS = 86_400_000;

describe.skipIf(!chromiumAvailable)("admin home and alert banner in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  beforeAll(async () => {
    stack = suite.stack();
    // The stack installs a roomy licence; this suite starts unlicensed (the first alert) and installs its own.
    await stack.server.services.db.delete(licenses);
  });
  const banner = (page: Page) => page.getByRole("alert").and(page.locator("[data-banner]"));
  const dismiss = (page: Page) => page.getByRole("button", { name: "Dismiss alert" }).click();
  const installLicence = (over: Parameters<typeof issueTestLicence>[0]) =>
    stack.admin.ok("POST", "/api/admin/settings/license", { License: issueTestLicence(over) });

  it("shows the alerts in priority order, each dismissible: unlicensed, then an incompatible agent", async () => {
    const created = await stack.admin.ok<{ Token: string }>("POST", "/api/admin/agents", { Name: "old-edge" });
    await enrol({
      server: suite.url(),
      token: created.Token,
      configPath: join(stack.dir, "old-edge.json"),
      capabilities: { haproxy: { socket_location: "/run/haproxy.sock" } },
      version: "1.8.0",
      settings: { useSudo: false },
    });
    const page = await suite.signedIn();
    await expectVisible(banner(page));
    expect(await banner(page).getAttribute("data-banner")).toBe("unlicensed");
    await expectVisible(banner(page).getByText("This installation has no license."));
    expect(await banner(page).getByRole("link", { name: "Install a license" }).getAttribute("href")).toBe(
      "/admin/settings",
    );
    await expectAccessible(page, "home with the unlicensed alert");
    await dismiss(page);
    await expect.poll(() => banner(page).getAttribute("data-banner")).toBe("agentIncompatible");
    expect(await banner(page).textContent()).toContain(
      "Incompatible agent version: old-edge must be updated to version 1.9.0 or later.",
    );
    await dismiss(page);
    expect(await banner(page).count()).toBe(0);
    // Dismissed for the life of the page, back after a reload.
    await page.reload();
    await expectVisible(banner(page));
    expect(await banner(page).getAttribute("data-banner")).toBe("unlicensed");
  });

  it("warns when SAML users push the user count over the licence, with Upgrade License and Manage Users", async () => {
    await installLicence({ UserLimit: 4, UserLimitOverage: 50 });
    for (const name of ["sam1", "sam2", "sam3", "sam4", "sam5"])
      await stack.admin.ok("POST", "/api/admin/users", { Name: name, UserName: name, AuthType: "SAML" });
    const page = await suite.signedIn();
    await expect.poll(() => banner(page).getAttribute("data-banner")).toBe("agentIncompatible");
    await dismiss(page);
    await expect.poll(() => banner(page).getAttribute("data-banner")).toBe("userLimitExceeded");
    const text = await banner(page).textContent();
    expect(text).toContain("User License Limit Exceeded");
    expect(text).toContain("5 users for a license of 4.");
    expect(text).toContain("1 more users may be created within the grace allowance of 50%.");
    await expectAccessible(page, "home with the user-limit alert");
    // At limit plus overage (4 + 2): creation is blocked and access denied until upgraded.
    await stack.admin.ok("POST", "/api/admin/users", { Name: "sam6", UserName: "sam6", AuthType: "SAML" });
    await page.reload();
    await dismiss(page);
    await expect.poll(() => banner(page).textContent()).toContain("Creating new users is blocked.");
    await banner(page).getByRole("link", { name: "Manage Users" }).click();
    await page.waitForURL(/\/admin\/users$/);
    // Dismissals last across navigations.
    expect(await banner(page).getAttribute("data-banner")).toBe("userLimitExceeded");
  });

  it("names a failed status read (err) and an available server update by its urgency", async () => {
    const page = await suite.signedIn();
    let fail = false;
    await page.route("**/api/admin/status", async (route) => {
      if (fail) return route.fulfill({ status: 500, json: { Err: "Internal server error" } });
      const response = await route.fetch();
      const body = (await response.json()) as Record<string, unknown>;
      return route.fulfill({
        response,
        json: {
          ...body,
          AvailableServerVersions: [
            { version: "99.0.0", urgency: "critical", changelog_link: "https://example.com/changelog" },
            { version: "98.0.0", urgency: "low" },
          ],
        },
      });
    });
    await page.reload();
    await expect.poll(() => banner(page).getAttribute("data-banner")).toBe("agentIncompatible");
    await dismiss(page);
    await dismiss(page);
    await expect.poll(() => banner(page).getAttribute("data-banner")).toBe("serverUpdate");
    expect(await banner(page).textContent()).toContain("A critical server update (99.0.0) is available. Update now.");
    expect(await banner(page).getByRole("link", { name: "What's new" }).getAttribute("href")).toBe(
      "https://example.com/changelog",
    );
    // The home page reads the status every 30 s; a failure there shows the err alert (first after unlicensed).
    fail = true;
    await expect.poll(() => banner(page).getAttribute("data-banner"), { timeout: 40_000 }).toBe("err");
    expect(await banner(page).textContent()).toContain("Internal server error");
  });

  it("shows the counts and the recent activity, refreshes every 30 s, and warns of a licence ending within 60 days", async () => {
    await installLicence({ UserLimit: 100, Expires: new Date(Date.now() + 90 * DAY_MS).toISOString() });
    const users = await stack.admin.ok<unknown[]>("GET", "/api/admin/users");
    await createUser(stack, "walter", "walter-password", []);
    const walter = new ApiClient(suite.url());
    await walter.ok("POST", "/api/login", { UserName: "walter", Password: "walter-password" });

    const page = await suite.signedIn();
    await expectVisible(page.getByRole("heading", { level: 1, name: "Home" }));
    await expect.poll(() => page.getByTestId("count-users").textContent()).toBe(String(users.length + 1));
    expect(await page.getByTestId("count-sessions").textContent()).toBe("1");
    expect(await page.getByTestId("count-acls").textContent()).toBe("0");
    const activity = page.getByRole("table", { name: "Recent activity" });
    const login = activity.getByRole("row").filter({ hasText: "User logged in" }).first();
    await expectVisible(login);
    expect(await login.textContent()).toContain("walter");
    expect(await login.locator("time").textContent()).toMatch(/now|seconds? ago|minutes? ago/);
    expect(await page.getByTestId("license-expires-soon").count()).toBe(0);
    await expectAccessible(page, "home");

    // Refreshes by itself within 30 s.
    await createUser(stack, "xena", "xena-password", []);
    await expect
      .poll(() => page.getByTestId("count-users").textContent(), { timeout: 40_000, interval: 1000 })
      .toBe(String(users.length + 2));

    await installLicence({ UserLimit: 100, Expires: new Date(Date.now() + 20 * DAY_MS + 3_600_000).toISOString() });
    await page.reload();
    await expectVisible(page.getByTestId("license-expires-soon"));
    expect(await page.getByTestId("license-expires-soon").textContent()).toContain("Your license expires in 21 days.");
  });

  it("speaks German on the home page", async () => {
    const page = await suite.signedIn({ locale: "de-DE" });
    await expectVisible(page.getByRole("heading", { level: 1, name: "Startseite" }));
    await expectVisible(page.getByText("Aktive Sitzungen"));
    await expectVisible(page.getByRole("table", { name: "Letzte Aktivität" }));
    await expectAccessible(page, "home, German");
  });
});

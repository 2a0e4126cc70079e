/**
 * The portal's home pages in a real Chromium against the real server, agent and HAProxy (issue #5,
 * docs/reference.md user-portal §2, §4, §7, §9): the session header, categories with Default as "Other" and last,
 * hidden and disabled ACLs, search, grant and revoke (HAProxy really lets the address through),
 * polling after a grant, favourites, the Top section, the list view, IP discovery every 30 s,
 * the orange badge below 900 s and the countdown's end, change password, German, dark mode, high
 * accessibility with accent and logos, the older Home, auto-browse, the unlicensed dialog, and
 * axe-core scans of each of these pages.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { httpGetFrom } from "../../support/haproxy.ts";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import { waitFor } from "../../support/stack.ts";
import { usePortalSuite } from "./portal-stack.ts";
import type { PortalStack } from "./portal-stack.ts";

if (!chromiumAvailable) console.warn("portal dashboard e2e: SKIPPED: /usr/bin/chromium is not installed");

/** An 8×8 PNG (opaque teal), base64: the uploaded logos. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGPgL8vDihiGlgQApWE8wfekj3cAAAAASUVORK5CYII=";

describe.skipIf(!chromiumAvailable)("portal home pages in Chromium", () => {
  const suite = usePortalSuite();
  let p: PortalStack;
  beforeAll(() => {
    p = suite.stack();
  });
  const fresh = suite.fresh;

  /** Signs in on the Login page (labels in `de` when German) and waits for a home page. */
  async function signIn(
    page: Page,
    userName: string,
    password = `${userName}-password`,
    german = false,
  ): Promise<void> {
    await page.goto(p.url + "/");
    await page.getByLabel(german ? "Benutzername" : "Username").fill(userName);
    await page.getByLabel(german ? "Passwort" : "Password").fill(password);
    await page.getByRole("button", { name: german ? "Anmelden" : "Log in" }).click();
    await page.waitForURL(/\/home(\/new)?$/);
  }

  /** The card of an ACL inside a card-view section (`category` of a category section, or favourites / top). */
  function card(page: Page, aclId: string, section: { category?: string; kind?: "favourites" | "top" }): Locator {
    const scope = section.kind
      ? `section[data-section="${section.kind}"]`
      : `section[data-category="${section.category}"]`;
    return page.locator(`${scope} article[data-acl-id="${aclId}"]`);
  }

  async function expectNoSerious(page: Page, what: string): Promise<void> {
    expect(await seriousViolations(page), what).toEqual([]);
  }

  const storage = (page: Page, key: string) =>
    page.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? "null") as unknown, key);

  it("shows the session: greeting, countdown hh:mm:ss, address, account expiry in days and the keep-open note", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    await expectVisible(page.getByRole("heading", { name: "Hello, Carol" }));
    await expectVisible(
      page.getByRole("timer", { name: "Session time remaining" }).filter({ hasText: /^0[78]:\d\d:\d\d$/ }),
    );
    expect(await page.getByTestId("current-address").textContent()).toBe("127.0.0.1");
    expect(await page.getByTestId("account-expiry").textContent()).toBe("expires in 10 days");
    await expectVisible(page.getByText("Keep this page open: your access lasts only while your session is running."));
    await expectNoSerious(page, "dashboard, cards");
  });

  it("groups by category with Default shown as Other and last, leaves hidden ACLs out and shows disabled ones disabled", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    await expectVisible(page.locator("section[data-category]").first());
    const headings = await page.locator("section[data-section='category'] h2").allTextContents();
    expect(headings.map((h) => h.replace(/\d+$/, ""))).toEqual([
      "Databases",
      "Monitoring",
      "Remote desktop",
      "Web",
      "Other",
    ]);
    expect(await page.locator("article").count()).toBe(22);
    expect(await page.getByText("Hidden helper").count()).toBe(0);
    const staff = card(page, p.acls.disabled, { category: "Web" });
    expect(await staff.getAttribute("data-disabled")).toBe("true");
    expect(await staff.getByRole("button", { name: "Grant Access" }).isDisabled()).toBe(true);
    await expectVisible(staff.getByText("Unavailable"));
  });

  it("searches above 10 ACLs (and offers no search box to a user with fewer)", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    const search = page.getByRole("searchbox", { name: "Search" });
    await search.fill("postgres");
    await expect.poll(() => page.locator("article").count()).toBe(2);
    await search.fill("MONITORING");
    await expect.poll(() => page.locator("article").count()).toBe(4);
    await search.fill("no such thing");
    await expectVisible(page.getByText("No resources match your search."));
    await search.fill("");
    await expect.poll(() => page.locator("article").count()).toBe(22);
    const few = await fresh();
    await signIn(few, "frank");
    await expectVisible(few.getByRole("heading", { name: "Hello, Frank" }));
    expect(await few.getByRole("searchbox").count()).toBe(0);
  });

  it("grants and revokes: polls first after 1 s, shows Granted with the time left, and HAProxy lets the address through", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    const wiki = card(page, p.acls.wiki, { category: "Default" });
    await expectVisible(wiki.getByRole("button", { name: "Grant Access" }));
    expect(await httpGetFrom("127.0.0.1", p.frontend)).toBe(403);

    const statusPolls: number[] = [];
    let granted = 0;
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path === "/api/status" && granted > 0) statusPolls.push(Date.now() - granted);
    });
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/api/grant") granted = Date.now();
    });
    await wiki.getByRole("button", { name: "Grant Access" }).click();
    await expectVisible(wiki.locator('[data-status="0"]').filter({ hasText: "Granted" }));
    await expectVisible(wiki.getByRole("button", { name: "Revoke Access" }));
    expect(Number(await wiki.locator("[data-time-left]").getAttribute("data-time-left"))).toBeGreaterThan(7 * 3600);
    expect(await httpGetFrom("127.0.0.1", p.frontend)).toBe(200);
    expect(statusPolls[0]).toBeGreaterThanOrEqual(900);
    expect(statusPolls[0]).toBeLessThan(2500);
    // Granted is the goal: polling stops.
    const polled = statusPolls.length;
    await page.waitForTimeout(2500);
    expect(statusPolls.length).toBe(polled);
    // The grant counts as a use (localStorage topAclIds).
    expect(await storage(page, "topAclIds")).toEqual({ [p.acls.wiki]: 1 });

    await wiki.getByRole("button", { name: "Revoke Access" }).click();
    await expectVisible(wiki.getByRole("button", { name: "Grant Access" }));
    await expectVisible(wiki.locator('[data-status="9"]').filter({ hasText: "Ready" }));
    expect(await waitFor(async () => (await httpGetFrom("127.0.0.1", p.frontend)) === 403, 5_000)).toBe(true);
  });

  it("shows a failed grant as a plain sentence naming whom to ask, never the agent's error (English and German)", async () => {
    const page = await fresh();
    await signIn(page, "jill");
    const broken = card(page, p.acls.broken, { category: "Default" });
    await broken.getByRole("button", { name: "Grant Access" }).click();
    await expectVisible(broken.locator('[data-status="1"]'), 15_000);
    const shown = broken.locator("[data-acl-error]");
    await expectVisible(shown);
    expect(await shown.textContent()).toBe("Access could not be granted. Please contact your administrator.");
    const text = (await broken.textContent()) ?? "";
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|HAProxy/);
    // The admins have the agent's full message in the audit log.
    const logs = await p.stack.admin.ok<{ ErrorMessage?: string; Action?: string }[]>(
      "GET",
      "/api/admin/logs?search=ECONNREFUSED",
    );
    expect(logs.length).toBeGreaterThan(0);

    const german = await fresh({ locale: "de-DE" });
    await signIn(german, "jill", "jill-password", true);
    const brokenDe = card(german, p.acls.broken, { category: "Default" });
    await brokenDe.getByRole("button", { name: "Zugriff erteilen" }).click();
    await expectVisible(brokenDe.locator("[data-acl-error]"), 15_000);
    expect(await brokenDe.locator("[data-acl-error]").textContent()).toBe(
      "Der Zugriff konnte nicht gewährt werden. Bitte wenden Sie sich an Ihre Administration.",
    );
  });

  it("keeps favourites in a Favourites section first, stored as favouriteAclIds", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    const star = card(page, p.acls.grafana, { category: "Monitoring" }).getByRole("button", {
      name: "Favourite: Grafana",
    });
    expect(await star.getAttribute("aria-pressed")).toBe("false");
    await star.click();
    await expectVisible(card(page, p.acls.grafana, { kind: "favourites" }));
    expect(await page.locator("section[data-section]").first().getAttribute("data-section")).toBe("favourites");
    expect(await storage(page, "favouriteAclIds")).toEqual([p.acls.grafana]);
    await page.reload();
    await expectVisible(card(page, p.acls.grafana, { kind: "favourites" }));
    expect(
      await card(page, p.acls.grafana, { kind: "favourites" })
        .getByRole("button", { name: "Favourite: Grafana" })
        .getAttribute("aria-pressed"),
    ).toBe("true");
    await expectNoSerious(page, "dashboard with favourites");
    await card(page, p.acls.grafana, { kind: "favourites" })
      .getByRole("button", { name: "Favourite: Grafana" })
      .click();
    await expect.poll(() => page.locator('section[data-section="favourites"]').count()).toBe(0);
    expect(await storage(page, "favouriteAclIds")).toEqual([]);
  });

  it("shows Top above 20 ACLs: the 5 most used, most used first", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    const used = p.acls.others.slice(0, 6);
    await page.evaluate(
      (ids) => localStorage.setItem("topAclIds", JSON.stringify(Object.fromEntries(ids.map((id, i) => [id, 10 - i])))),
      used,
    );
    await page.reload();
    const top = page.locator('section[data-section="top"] article');
    await expect.poll(() => top.count()).toBe(5);
    expect(await top.evaluateAll((cards) => cards.map((c) => c.getAttribute("data-acl-id")))).toEqual(used.slice(0, 5));
    expect(await page.locator('section[data-section="top"] h2').textContent()).toMatch(/^Top/);
    // A user with 2 ACLs never gets a Top section.
    const few = await fresh();
    await signIn(few, "frank");
    await few.evaluate((id) => localStorage.setItem("topAclIds", JSON.stringify({ [id]: 3 })), p.acls.wiki);
    await few.reload();
    await expectVisible(few.getByRole("heading", { name: "Hello, Frank" }));
    expect(await few.locator('section[data-section="top"]').count()).toBe(0);
  });

  it("switches to the list view: columns Favourite, Category, System, Access, Other last; stored as view", async () => {
    const page = await fresh();
    await signIn(page, "carol");
    await page.getByRole("radio", { name: "List" }).check();
    const table = page.getByTestId("acl-list");
    await expectVisible(table);
    expect(await table.locator("thead th").allTextContents()).toEqual(["Favourite", "Category", "System", "Access"]);
    const rows = table.locator("tbody tr");
    expect(await rows.count()).toBe(22);
    expect(await rows.last().locator("td").nth(1).textContent()).toBe("Other");
    expect(await rows.first().locator("td").nth(1).textContent()).toBe("Databases");
    expect(await storage(page, "view")).toBe("list");
    await expectNoSerious(page, "dashboard, list view");
    await page.reload();
    await expectVisible(page.getByTestId("acl-list"));
    const wiki = table.locator(`tr[data-acl-id="${p.acls.wiki}"]`);
    await wiki.getByRole("button", { name: "Grant Access" }).click();
    await expectVisible(wiki.locator('[data-status="0"]'));
    await wiki.getByRole("button", { name: "Revoke Access" }).click();
    await expectVisible(wiki.getByRole("button", { name: "Grant Access" }));
    await page.getByRole("radio", { name: "Cards" }).check();
    await expectVisible(page.locator("article").first());
    expect(await storage(page, "view")).toBe("card");
  });

  it("asks each discovery port with the session cookie and sends the answers to /log_ips, again every 30 s", async () => {
    const page = await fresh();
    await page.clock.install();
    const ports = [...p.discovery.ports].sort((a, b) => a - b);
    const asked: number[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/api/ip") asked.push(Number(url.port));
    });
    const firstReport = page.waitForRequest((r) => new URL(r.url()).pathname === "/api/log_ips");
    await signIn(page, "frank");
    const report = await firstReport;
    expect(report.postDataJSON()).toEqual({
      IPs: expect.arrayContaining(ports.map((Port) => ({ Port, IP: "127.0.0.1" }))) as unknown,
    });
    expect(((await (await report.response())?.json()) as { Confirmed: string[] }).Confirmed).toContain("127.0.0.1");
    expect([...new Set(asked)].sort((a, b) => a - b)).toEqual(ports);
    const secondReport = page.waitForRequest((r) => new URL(r.url()).pathname === "/api/log_ips");
    await page.clock.fastForward(31_000);
    await secondReport;
    expect(asked.length).toBeGreaterThanOrEqual(2 * ports.length);
  });

  it("turns the badge and the countdown orange below 900 s, and sends the user to Login when the countdown ends", async () => {
    const page = await fresh();
    await page.clock.install();
    await signIn(page, "hank");
    const countdown = page.getByTestId("session-countdown");
    await expectVisible(countdown.filter({ hasText: /^00:0[01]:\d\d$/ }));
    expect(await countdown.getAttribute("data-expiring")).toBe("true");
    const wiki = card(page, p.acls.wiki, { category: "Default" });
    await wiki.getByRole("button", { name: "Grant Access" }).click();
    await expectVisible(wiki.locator('[data-status="0"][data-expiring="true"]'));
    await page.clock.fastForward(70_000);
    await expectVisible(
      page.getByRole("alert").filter({ hasText: "Error: Your session has expired. Log in again for renewed access." }),
    );
    expect(new URL(page.url()).pathname).toBe("/");
  });

  it("changes the password: required fields, 8–64, confirmation, the 0–4 strength meter, the server's refusals, success", async () => {
    const page = await fresh();
    await signIn(page, "ivan");
    await page.getByRole("button", { name: "Change password" }).click();
    const dialog = page.getByRole("dialog", { name: "Change password" });
    await expectVisible(dialog);
    const current = dialog.getByLabel("Current password");
    const next = dialog.getByLabel(/^New password/);
    const confirm = dialog.getByLabel("Confirm new password");
    const submit = dialog.getByRole("button", { name: "Change password" });
    await submit.click();
    await expectVisible(dialog.getByText("Current password is required"));
    await expectVisible(dialog.getByText("New password is required"));
    await current.fill("ivan-password");
    await next.fill("short");
    await confirm.fill("short");
    await submit.click();
    await expectVisible(dialog.getByText("Must be between 8 and 64 characters"));
    await next.fill("x".repeat(65));
    await submit.click();
    await expectVisible(dialog.getByText("Must be between 8 and 64 characters"));
    await next.fill("Tangerine-Rocket-Harbour-91");
    await confirm.fill("Tangerine-Rocket-Harbour-19");
    await submit.click();
    await expectVisible(dialog.getByText("Passwords don't match"));

    const meter = dialog.getByTestId("strength");
    await next.fill("password");
    await expect.poll(() => meter.getAttribute("data-score"), { timeout: 15_000 }).toBe("0");
    await expectVisible(meter.getByText("Very weak"));
    await next.fill("Tangerine-Rocket-Harbour-91");
    await expect.poll(() => meter.getAttribute("data-score")).toBe("4");
    await expectVisible(meter.getByText("Very strong"));
    await expectNoSerious(page, "change-password dialog");

    await next.fill("password1");
    await confirm.fill("password1");
    await submit.click();
    await expectVisible(dialog.getByRole("alert").filter({ hasText: /^Error: Password is too weak/ }));
    await current.fill("not-ivans-password");
    await next.fill("Tangerine-Rocket-Harbour-91");
    await confirm.fill("Tangerine-Rocket-Harbour-91");
    await submit.click();
    await expectVisible(dialog.getByRole("alert").filter({ hasText: "Error: Invalid credentials" }));
    await current.fill("ivan-password");
    await submit.click();
    await expectVisible(page.getByRole("status").filter({ hasText: "Your password has been changed." }));
    expect(await dialog.count()).toBe(0);
    await page.getByRole("button", { name: "Logout" }).click();
    await signIn(page, "ivan", "Tangerine-Rocket-Harbour-91");
    await expectVisible(page.getByRole("heading", { name: "Hello, Ivan" }));
  });

  it("speaks German in a German browser", async () => {
    const page = await fresh({ locale: "de-DE" });
    await page.goto(p.url + "/");
    await expectVisible(page.getByLabel("Benutzername"));
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("de");
    await page.getByLabel("Benutzername").fill("frank");
    await page.getByLabel("Passwort").fill("falsch-falsch");
    await page.getByRole("button", { name: "Anmelden" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Fehler: Ungültige Anmeldedaten" }));
    await signIn(page, "frank", undefined, true);
    await expectVisible(page.getByRole("heading", { name: "Hallo, Frank" }));
    expect(await page.title()).toBe("Ihr Zugriff · Postern");
    const wiki = card(page, p.acls.wiki, { category: "Default" });
    await expectVisible(page.getByRole("heading", { name: "Sonstige" }));
    await wiki.getByRole("button", { name: "Zugriff erteilen" }).click();
    await expectVisible(wiki.locator('[data-status="0"]').filter({ hasText: "Erteilt" }));
    await wiki.getByRole("button", { name: "Zugriff entziehen" }).click();
    await expectVisible(wiki.getByRole("button", { name: "Zugriff erteilen" }));
    await expectNoSerious(page, "dashboard in German");
  });

  it("follows the system's dark mode and the colour-mode choice (light, dark, system), stored as colorMode", async () => {
    const page = await fresh({ colorScheme: "dark" });
    await signIn(page, "frank");
    const isDark = () => page.evaluate(() => document.documentElement.classList.contains("dark"));
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await isDark()).toBe(true);
    const darkBackground = await background();
    await expectNoSerious(page, "dashboard, dark");
    await page.getByRole("radio", { name: "Light" }).check();
    expect(await isDark()).toBe(false);
    expect(await background()).not.toBe(darkBackground);
    expect(await storage(page, "colorMode")).toBe("light");
    await page.reload();
    await expectVisible(page.getByRole("heading", { name: "Hello, Frank" }));
    expect(await isDark()).toBe(false);
    await page.getByRole("radio", { name: "System" }).check();
    expect(await isDark()).toBe(true);
    expect(await storage(page, "colorMode")).toBe("auto");
    const light = await fresh({ colorScheme: "light" });
    await signIn(light, "frank");
    await light.getByRole("radio", { name: "Dark" }).check();
    expect(await light.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
  });

  it("applies the theme: accent, high-accessibility mode with a hideable timer, and the dark and light logos", async () => {
    await p.stack.admin.ok("POST", "/api/admin/settings/customize", {
      Accent: "rose",
      HighAccessibility: true,
      Logo: PNG,
      LightModeLogo: PNG,
    });
    try {
      const page = await fresh();
      await signIn(page, "frank");
      await expectVisible(page.getByRole("heading", { name: "Hello, Frank" }));
      await expect.poll(() => page.evaluate(() => document.documentElement.dataset.accent)).toBe("rose");
      expect(await page.evaluate(() => document.documentElement.dataset.highAccessibility)).toBe("true");
      const logo = page.getByTestId("custom-logo");
      await expectVisible(logo);
      expect(await logo.getAttribute("src")).toBe("/api/logo?mode=light");
      await expectNoSerious(page, "dashboard, high accessibility");
      const hide = page.getByRole("button", { name: "Hide timer" });
      await hide.click();
      expect(await page.getByTestId("session-countdown").count()).toBe(0);
      expect(await hide.getAttribute("aria-pressed")).toBe("true");
      await hide.click();
      await expectVisible(page.getByTestId("session-countdown"));
      await page.getByRole("radio", { name: "Dark" }).check();
      await expect.poll(() => logo.getAttribute("src")).toBe("/api/logo?mode=dark");
      await expectNoSerious(page, "dashboard, high accessibility, dark");
      // Without high accessibility there is no timer toggle.
      await p.stack.admin.ok("POST", "/api/admin/settings/customize", { HighAccessibility: false });
      const plain = await fresh();
      await signIn(plain, "frank");
      await expectVisible(plain.getByTestId("session-countdown"));
      expect(await plain.getByRole("button", { name: "Hide timer" }).count()).toBe(0);
    } finally {
      await p.stack.admin.ok("POST", "/api/admin/settings/customize", {
        Accent: "teal",
        HighAccessibility: false,
        Logo: "",
        LightModeLogo: "",
      });
    }
  });

  it("shows the older Home as a table with Grant and Revoke when NewUserDashboard is off", async () => {
    await p.stack.admin.ok("POST", "/api/admin/settings/customize", { NewUserDashboard: false });
    try {
      const page = await fresh();
      await signIn(page, "frank");
      await page.waitForURL(/\/home$/);
      const table = page.getByTestId("acl-table");
      await expectVisible(table);
      expect(await table.locator("thead th").allTextContents()).toEqual(["System", "Status", "Access"]);
      await expectVisible(page.getByRole("timer", { name: "Session time remaining" }));
      expect(await page.getByTestId("current-address").textContent()).toBe("127.0.0.1");
      await expectNoSerious(page, "older Home");
      const wiki = table.locator(`tr[data-acl-id="${p.acls.wiki}"]`);
      await wiki.getByRole("button", { name: "Grant Access" }).click();
      await expectVisible(wiki.locator('[data-status="0"]').filter({ hasText: "Granted" }));
      expect(await httpGetFrom("127.0.0.1", p.frontend)).toBe(200);
      await wiki.getByRole("button", { name: "Revoke Access" }).click();
      await expectVisible(wiki.getByRole("button", { name: "Grant Access" }));
      expect(await waitFor(async () => (await httpGetFrom("127.0.0.1", p.frontend)) === 403, 5_000)).toBe(true);
    } finally {
      await p.stack.admin.ok("POST", "/api/admin/settings/customize", { NewUserDashboard: true });
    }
  });

  it("browses to the one AutoBrowseUsers URL by itself", async () => {
    const page = await fresh();
    await page.route(`${p.url}/launchpad-target`, (route) =>
      route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Launchpad</title><h1>Launched</h1>" }),
    );
    await page.goto(p.url + "/");
    await page.getByLabel("Username").fill("gina");
    await page.getByLabel("Password").fill("gina-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(`${p.url}/launchpad-target`);
    await expectVisible(page.getByRole("heading", { name: "Launched" }));
  });

  it("shows unlicensed users the User Not Licensed dialog with only Logout", async () => {
    // The free single-user licence: carol (created first) stays licensed, the others are not.
    await p.stack.server.services.licensing.install("free", { adminName: "admin", ip: "127.0.0.1" });
    const page = await fresh();
    await signIn(page, "frank");
    const dialog = page.getByRole("alertdialog", { name: "User Not Licensed" });
    await expectVisible(dialog);
    await expectVisible(dialog.getByText("A valid license is required. Contact your administrator."));
    expect(await page.getByRole("button", { name: "Grant Access" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Change password" }).count()).toBe(0);
    expect(await page.getByRole("radio", { name: "List" }).count()).toBe(0);
    await expectNoSerious(page, "unlicensed dialog");
    await page.keyboard.press("Escape");
    await expectVisible(dialog);
    await dialog.getByRole("button", { name: "Logout" }).click();
    await expectVisible(page.getByLabel("Username"));
    const licensed = await fresh();
    await signIn(licensed, "carol");
    await expectVisible(licensed.getByRole("radio", { name: "List" }));
    expect(await licensed.getByRole("alertdialog").count()).toBe(0);
  });
});

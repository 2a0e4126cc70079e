/**
 * Approval requests in the user portal (issue #14 item 1; docs/decisions.md "Approval requests"), in Chromium
 * against the real server, a real HAProxy and a real agent: a member of a Knoc's approver group sees the requests
 * of that Knoc on their dashboard (users who approve nothing see no such section) and approves one, shortened —
 * the requester's address then reaches HAProxy — or denies it with a reason; a request decided meanwhile (409) or
 * no longer theirs to decide (404) is refused in the dialog. A requester withdraws a waiting request from the
 * entry; it is ready to ask again and the admin console lists the request withdrawn.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Locator, Page } from "playwright-core";
import { execa } from "execa";
import type { Approval } from "@postern/shared";
import { DEFAULT_WEB_DIR } from "../../server/src/index.ts";
import { chromiumAvailable, expectVisible, launchBrowser, newPage, seriousViolations } from "../support/browser.ts";
import type { PageOptions } from "../support/browser.ts";
import { httpGetFrom, startHaproxy } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";
import { ApiClient, startStack } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";
import { startHaproxyEdge } from "../support/haproxy-edge.ts";

const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;
if (!chromiumAvailable) console.warn("approvals portal e2e: SKIPPED: /usr/bin/chromium is not installed");
if (!hasHaproxy) console.warn("approvals portal e2e: SKIPPED: haproxy is not installed");

describe.skipIf(!chromiumAvailable || !hasHaproxy)("approval requests in the portal (Chromium, real HAProxy)", () => {
  let haproxy: HaproxyInstance;
  let stack: Stack;
  let browser: Browser;
  let agent: { stop(): Promise<void> } | undefined;
  let wiki = "";
  let payroll = "";
  let leads = "";
  const ids: Record<string, string> = {};
  let frontend = "";
  const contexts: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_DIR, "index.html"))) throw new Error("web app not built: run npm run build");
    [haproxy, stack, browser] = await Promise.all([startHaproxy(), startStack(), launchBrowser()]);
    frontend = `http://127.0.0.1:${haproxy.frontendPort}/`;
    const edge = await startHaproxyEdge(stack, haproxy);
    agent = edge.agent;
    const backend = { ID: edge.backendId };
    for (const name of ["rita", "lena", "olaf"])
      ids[name] = await stack.admin.ok<string>("POST", "/api/admin/users", {
        Name: name[0]!.toUpperCase() + name.slice(1),
        UserName: name,
        PlainPassword: `${name}-password`,
        ConfirmPassword: `${name}-password`,
        AclIds: [],
      });
    leads = await stack.admin.ok<string>("POST", "/api/admin/groups", {
      Name: "leads",
      Type: "local",
      UserIDs: [ids.lena],
    });
    const acl = (Description: string, ApproverGroupIDs: string[]) =>
      stack.admin.ok<string>("POST", "/api/admin/acls", {
        Description,
        BackendID: backend.ID,
        ClickToGrant: true,
        RequiresApproval: true,
        ApproverGroupIDs,
        Config: { haproxy: { ID: haproxy.aclId } },
      });
    wiki = await acl("Team wiki", [leads]);
    payroll = await acl("Payroll", []);
    for (const name of ["rita", "lena", "olaf"]) {
      const user = await stack.admin.ok<Record<string, unknown>>("GET", `/api/admin/users/${ids[name]}`);
      await stack.admin.ok("PUT", `/api/admin/users/${ids[name]}`, { ...user, AclIds: [wiki, payroll] });
    }
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await agent?.stop();
    await stack?.close();
    await haproxy?.stop();
  });

  async function fresh(opts: PageOptions = {}): Promise<Page> {
    const { context, page } = await newPage(browser, opts);
    contexts.push(context);
    return page;
  }

  /** A user signed in on the portal, on their home page once its first GET /api/approvals has answered. */
  async function userPage(userName: string, opts: PageOptions = {}): Promise<Page> {
    const german = opts.locale === "de-DE";
    const page = await fresh(opts);
    await page.goto(stack.server.url + "/");
    await page.getByLabel(german ? "Benutzername" : "Username").fill(userName);
    await page.getByLabel(german ? "Passwort" : "Password").fill(`${userName}-password`);
    const listed = page.waitForResponse((r) => r.url().endsWith("/api/approvals") && r.request().method() === "GET");
    await page.getByRole("button", { name: german ? "Anmelden" : "Log in" }).click();
    await page.waitForURL(/\/home(\/new)?$/);
    expect((await listed).status()).toBe(200);
    return page;
  }

  /** The admin console on /admin/approvals, signed in (own admin session by the API). */
  async function adminApprovals(): Promise<Page> {
    const page = await fresh();
    const api = new ApiClient(stack.server.url);
    await api.ok("POST", "/api/admin/login", { UserName: "admin", Password: "admin-password" });
    const [name, value] = api.cookie.split("=", 2) as [string, string];
    await page.context().addCookies([{ name, value, url: stack.server.url }]);
    await page.goto(stack.server.url + "/admin/approvals");
    await expectVisible(page.getByRole("heading", { level: 1 }));
    return page;
  }

  const entry = (page: Page, aclId: string): Locator => page.locator(`[data-acl-id="${aclId}"]`).first();
  const section = (page: Page): Locator => page.getByTestId("approvals-section");

  /** Asks for `aclId` with `reason` through the request dialog; the entry then waits. */
  async function ask(page: Page, aclId: string, description: string, reason: string): Promise<void> {
    await entry(page, aclId).getByRole("button", { name: "Grant Access" }).click();
    const dialog = page.getByRole("dialog", { name: `Ask for access to ${description}` });
    await dialog.getByLabel("Reason (optional)").fill(reason);
    await dialog.getByRole("button", { name: "Ask for access" }).click();
    await expectVisible(entry(page, aclId).locator('[data-approval-state="pending"]'));
  }

  const adminList = async (): Promise<Approval[]> => await stack.admin.ok<Approval[]>("GET", "/api/admin/approvals");
  /** The pending request of `userName` for `aclId`. */
  const pendingOf = async (aclId: string, userName = "rita"): Promise<Approval> => {
    const found = (await adminList()).find(
      (a) => a.ACLID === aclId && a.UserName === userName && a.State === "pending",
    );
    if (!found) throw new Error(`no pending request of ${userName} for ${aclId}`);
    return found;
  };
  const inHaproxy = async (ip: string): Promise<boolean> =>
    (await haproxy.command(`show acl #${haproxy.aclId}`)).split("\n").some((l) => l.trim().endsWith(` ${ip}`));

  it("a group approver approves on the dashboard, shortened; the requester's address then reaches HAProxy", async () => {
    const rita = await userPage("rita");
    await ask(rita, wiki, "Team wiki", "deploy the fix");

    // Olaf approves nothing: his dashboard has no approvals section (its list has answered, empty).
    const olaf = await userPage("olaf");
    await ask(olaf, payroll, "Payroll", "month end");
    expect(await section(olaf).count()).toBe(0);
    expect(await olaf.getByText("Waiting for your decision").count()).toBe(0);

    // Lena (group leads) sees the wiki request — not Payroll, which only admins approve.
    const lena = await userPage("lena");
    const table = lena.getByRole("table", { name: "Waiting for your decision" });
    await expectVisible(table);
    const row = table.getByRole("row").filter({ has: lena.getByRole("cell", { name: "rita", exact: true }) });
    await expectVisible(row.getByRole("cell", { name: "Team wiki" }));
    await expectVisible(row.getByRole("cell", { name: "127.0.0.1" }));
    await expectVisible(row.getByRole("cell", { name: "deploy the fix" }));
    expect(await table.getByRole("cell", { name: "Payroll" }).count()).toBe(0);
    expect(await table.getByRole("row").count()).toBe(2); // header + one request
    const expires = new Date((await pendingOf(wiki)).Expires);
    const shownExpiry = (await row.getByRole("cell").nth(5).textContent()) ?? "";
    expect(shownExpiry).toContain(String(expires.getMinutes()).padStart(2, "0"));
    expect(await seriousViolations(lena), "the approver's section").toEqual([]);

    await lena.getByRole("button", { name: "Approve rita – Team wiki" }).click();
    const dialog = lena.getByRole("dialog", { name: "Approve request" });
    await expectVisible(dialog.getByText("rita asks for Team wiki from 127.0.0.1. Reason: deploy the fix"));
    expect(await seriousViolations(lena), "the approve dialog").toEqual([]);
    await dialog.getByLabel("Grant length in minutes (optional)").fill("0");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await expectVisible(dialog.getByText("The grant length must be a whole number of minutes from 1 to 40320"));
    await dialog.getByLabel("Grant length in minutes (optional)").fill("30");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await expectVisible(section(lena).getByRole("status").filter({ hasText: "Request approved" }));
    await expectVisible(section(lena).getByText("No requests are waiting for you."));

    expect((await adminList()).find((a) => a.ACLID === wiki)).toMatchObject({
      State: "approved",
      DecidedBy: "lena",
      GrantMinutes: 30,
    });
    await expect.poll(() => inHaproxy("127.0.0.1"), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => httpGetFrom("127.0.0.1", frontend), { timeout: 10_000 }).toBe(200);
    await expectVisible(entry(rita, wiki).locator('[data-status="0"]'), 20_000);
    const left = Number(await entry(rita, wiki).locator("[data-time-left]").getAttribute("data-time-left"));
    expect(left).toBeGreaterThan(25 * 60);
    expect(left).toBeLessThanOrEqual(30 * 60);
    await entry(rita, wiki).getByRole("button", { name: "Revoke Access" }).click();
    await expect.poll(() => httpGetFrom("127.0.0.1", frontend), { timeout: 10_000 }).toBe(403);
  });

  it("a denial needs a reason and reaches the requester; requests decided meanwhile (409) or no longer theirs (404) are refused in the dialog", async () => {
    const rita = await userPage("rita");
    await ask(rita, wiki, "Team wiki", "second try");
    const lena = await userPage("lena");
    await lena.getByRole("button", { name: "Deny rita – Team wiki" }).click();
    let dialog = lena.getByRole("dialog", { name: "Deny request" });
    await dialog.getByRole("button", { name: "Deny" }).click();
    await expectVisible(dialog.getByText("Give a reason for the denial"));
    await dialog.getByLabel("Reason shown to the user").fill("Not during the audit");
    await dialog.getByRole("button", { name: "Deny" }).click();
    await expectVisible(section(lena).getByRole("status").filter({ hasText: "Request denied" }));
    const note = entry(rita, wiki).locator('[data-approval-state="denied"]');
    await expectVisible(note, 20_000);
    expect(await note.textContent()).toContain("Your request was denied: Not during the audit");
    expect(await inHaproxy("127.0.0.1")).toBe(false);

    // An admin decides first while Lena's dialog is open: 409, shown in the dialog; the row leaves the list.
    await ask(rita, wiki, "Team wiki", "third try");
    await lena.reload();
    await lena.getByRole("button", { name: "Approve rita – Team wiki" }).click();
    dialog = lena.getByRole("dialog", { name: "Approve request" });
    await expectVisible(dialog);
    await stack.admin.ok("POST", `/api/admin/approvals/${(await pendingOf(wiki)).ID}/deny`, {
      Reason: "admin said no",
    });
    await dialog.getByRole("button", { name: "Approve" }).click();
    await expectVisible(
      dialog.getByRole("alert").filter({ hasText: "This request is no longer waiting for a decision" }),
    );
    await expectVisible(section(lena).getByText("No requests are waiting for you."));
    await dialog.getByRole("button", { name: "Cancel" }).click();

    // Lena leaves the approver group while her dialog is open: 404, shown in the dialog.
    await ask(rita, wiki, "Team wiki", "fourth try");
    await lena.reload();
    await lena.getByRole("button", { name: "Deny rita – Team wiki" }).click();
    dialog = lena.getByRole("dialog", { name: "Deny request" });
    await expectVisible(dialog);
    await stack.admin.ok("PUT", `/api/admin/groups/${leads}`, { Name: "leads", Type: "local", UserIDs: [] });
    await dialog.getByLabel("Reason shown to the user").fill("too late");
    await dialog.getByRole("button", { name: "Deny" }).click();
    await expectVisible(dialog.getByRole("alert").filter({ hasText: /Not found/ }));
    expect((await pendingOf(wiki)).State).toBe("pending");
    await stack.admin.ok("PUT", `/api/admin/groups/${leads}`, { Name: "leads", Type: "local", UserIDs: [ids.lena] });
    // Closed for the tests below (one pending request of Rita's at a time).
    await stack.admin.ok("POST", `/api/admin/approvals/${(await pendingOf(wiki)).ID}/deny`, { Reason: "cleanup" });
  });

  it("the requester withdraws a waiting request from the entry (card and list view); the console lists it withdrawn", async () => {
    const rita = await userPage("rita");
    await ask(rita, payroll, "Payroll", "");
    await ask(rita, wiki, "Team wiki", "");
    const button = entry(rita, payroll).getByRole("button", { name: "Withdraw request" });
    await expectVisible(button);
    expect(await seriousViolations(rita), "a waiting entry with its withdraw button").toEqual([]);
    const payrollRequest = await pendingOf(payroll);
    await button.click();
    await expectVisible(entry(rita, payroll).getByRole("button", { name: "Grant Access" }));
    expect(await entry(rita, payroll).locator("[data-approval-state]").count()).toBe(0);
    expect((await adminList()).find((a) => a.ID === payrollRequest.ID)).toMatchObject({ State: "withdrawn" });
    expect(await inHaproxy("127.0.0.1")).toBe(false);

    // The same in the list view, for the wiki request.
    await rita.getByRole("radio", { name: "List" }).click();
    const row = rita.getByTestId("acl-list").locator(`[data-acl-id="${wiki}"]`);
    const wikiRequest = await pendingOf(wiki);
    await row.getByRole("button", { name: "Withdraw request" }).click();
    await expectVisible(row.getByRole("button", { name: "Grant Access" }));
    expect((await adminList()).find((a) => a.ID === wikiRequest.ID)).toMatchObject({ State: "withdrawn" });

    // Ready to ask again: a new request waits.
    await ask(rita, wiki, "Team wiki", "once more");
    expect((await pendingOf(wiki)).ID).not.toBe(wikiRequest.ID);

    const admin = await adminApprovals();
    const decided = admin.getByRole("table", { name: "Recent decisions" });
    await expectVisible(decided.getByRole("row").filter({ hasText: "Payroll" }).filter({ hasText: "Withdrawn" }));
  });

  it("speaks German and passes axe in dark mode (approver's section, the requester's withdraw button)", async () => {
    const lena = await userPage("lena", { locale: "de-DE", colorScheme: "dark" });
    await expectVisible(lena.getByRole("heading", { name: "Warten auf Ihre Entscheidung" }));
    await lena.getByRole("button", { name: "rita – Team wiki genehmigen" }).click();
    await expectVisible(lena.getByRole("dialog", { name: "Anfrage genehmigen" }));
    expect(await seriousViolations(lena), "German approve dialog, dark").toEqual([]);
    const rita = await userPage("rita", { locale: "de-DE", colorScheme: "dark" });
    await entry(rita, payroll).getByRole("button", { name: "Zugriff erteilen" }).click();
    await rita
      .getByRole("dialog", { name: "Zugriff auf Payroll anfragen" })
      .getByRole("button", { name: "Zugriff anfragen" })
      .click();
    await expectVisible(entry(rita, payroll).getByRole("button", { name: "Anfrage zurückziehen" }));
    expect(await seriousViolations(rita), "German waiting entry, dark").toEqual([]);
  });
});

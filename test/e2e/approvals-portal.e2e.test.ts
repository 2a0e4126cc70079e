/**
 * Approval requests in the user portal (issue #14 item 1; docs/decisions.md "Approval requests"), in Chromium
 * against the real server, a real HAProxy and a real agent: a member of a Knoc's approver group sees the requests
 * of that Knoc on their dashboard (users who approve nothing see no such section) and approves one, shortened —
 * the requester's address then reaches HAProxy — or denies it with a reason; a request decided meanwhile (409) or
 * no longer theirs to decide (404) is refused in the dialog. A requester withdraws a waiting request from the
 * entry; it is ready to ask again and the admin console lists the request withdrawn.
 */
import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import type { Approval } from "@postern/shared";
import { expectVisible, seriousViolations } from "../support/browser.ts";
import type { PageOptions } from "../support/browser.ts";
import { httpGetFrom } from "../support/haproxy.ts";
import { haproxyEdgeSuiteSkipped, useHaproxyEdgeSuite } from "../support/haproxy-edge-suite.ts";

const skipped = haproxyEdgeSuiteSkipped("approvals portal e2e");

describe.skipIf(skipped)("approval requests in the portal (Chromium, real HAProxy)", () => {
  let wiki = "";
  let payroll = "";
  let leads = "";
  const ids: Record<string, string> = {};
  const suite = useHaproxyEdgeSuite(async ({ stack, haproxy, backendId }) => {
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
        BackendID: backendId,
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

  /** A user signed in on the portal, on their home page once its first GET /api/approvals has answered. */
  async function userPage(userName: string, opts: PageOptions = {}): Promise<Page> {
    const german = opts.locale === "de-DE";
    const page = await suite.fresh(opts);
    await page.goto(suite.stack.server.url + "/");
    await page.getByLabel(german ? "Benutzername" : "Username").fill(userName);
    await page.getByLabel(german ? "Passwort" : "Password").fill(`${userName}-password`);
    const listed = page.waitForResponse((r) => r.url().endsWith("/api/approvals") && r.request().method() === "GET");
    await page.getByRole("button", { name: german ? "Anmelden" : "Log in" }).click();
    await page.waitForURL(/\/home(\/new)?$/);
    expect((await listed).status()).toBe(200);
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

  const adminList = async (): Promise<Approval[]> =>
    await suite.stack.admin.ok<Approval[]>("GET", "/api/admin/approvals");
  /** The pending request of `userName` for `aclId`. */
  const pendingOf = async (aclId: string, userName = "rita"): Promise<Approval> => {
    const found = (await adminList()).find(
      (a) => a.ACLID === aclId && a.UserName === userName && a.State === "pending",
    );
    if (!found) throw new Error(`no pending request of ${userName} for ${aclId}`);
    return found;
  };

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
    await expect.poll(() => suite.inHaproxy("127.0.0.1"), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => httpGetFrom("127.0.0.1", suite.frontend), { timeout: 10_000 }).toBe(200);
    await expectVisible(entry(rita, wiki).locator('[data-status="0"]'), 20_000);
    const left = Number(await entry(rita, wiki).locator("[data-time-left]").getAttribute("data-time-left"));
    expect(left).toBeGreaterThan(25 * 60);
    expect(left).toBeLessThanOrEqual(30 * 60);
    await entry(rita, wiki).getByRole("button", { name: "Revoke Access" }).click();
    await expect.poll(() => httpGetFrom("127.0.0.1", suite.frontend), { timeout: 10_000 }).toBe(403);
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
    expect(await suite.inHaproxy("127.0.0.1")).toBe(false);

    // An admin decides first while Lena's dialog is open: 409, shown in the dialog; the row leaves the list.
    await ask(rita, wiki, "Team wiki", "third try");
    await lena.reload();
    await lena.getByRole("button", { name: "Approve rita – Team wiki" }).click();
    dialog = lena.getByRole("dialog", { name: "Approve request" });
    await expectVisible(dialog);
    await suite.stack.admin.ok("POST", `/api/admin/approvals/${(await pendingOf(wiki)).ID}/deny`, {
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
    await suite.stack.admin.ok("PUT", `/api/admin/groups/${leads}`, { Name: "leads", Type: "local", UserIDs: [] });
    await dialog.getByLabel("Reason shown to the user").fill("too late");
    await dialog.getByRole("button", { name: "Deny" }).click();
    await expectVisible(dialog.getByRole("alert").filter({ hasText: /Not found/ }));
    expect((await pendingOf(wiki)).State).toBe("pending");
    await suite.stack.admin.ok("PUT", `/api/admin/groups/${leads}`, {
      Name: "leads",
      Type: "local",
      UserIDs: [ids.lena],
    });
    // Closed for the tests below (one pending request of Rita's at a time).
    await suite.stack.admin.ok("POST", `/api/admin/approvals/${(await pendingOf(wiki)).ID}/deny`, {
      Reason: "cleanup",
    });
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
    expect(await suite.inHaproxy("127.0.0.1")).toBe(false);

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

    const admin = await suite.adminPage("/admin/approvals");
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

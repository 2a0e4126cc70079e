/**
 * Approval requests end to end (issue #14 items 1 and 5; docs/decisions.md "Approval requests") in Chromium
 * against the real server, a real HAProxy and a real agent driving it: a user asks for a Knoc that requires
 * approval and waits (nothing reaches HAProxy); an admin approves in the console (/admin/approvals) with a
 * shorter grant; HAProxy's ACL then holds the user's address and lets it through; a denial's reason is
 * shown in the portal; an unanswered request expires (a Knoc with a 5-second ApprovalTimeout).
 */
import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import type { Approval } from "@postern/shared";
import { expectVisible, seriousViolations } from "../support/browser.ts";
import type { PageOptions } from "../support/browser.ts";
import { httpGetFrom } from "../support/haproxy.ts";
import { haproxyEdgeSuiteSkipped, useHaproxyEdgeSuite } from "../support/haproxy-edge-suite.ts";

const skipped = haproxyEdgeSuiteSkipped("approvals e2e");

describe.skipIf(skipped)("approval requests in Chromium on a real HAProxy", () => {
  let wiki = "";
  let quick = "";
  const suite = useHaproxyEdgeSuite(async ({ stack, haproxy, backendId }) => {
    const acl = (Description: string, ApprovalTimeout: number) =>
      stack.admin.ok<string>("POST", "/api/admin/acls", {
        Description,
        BackendID: backendId,
        ClickToGrant: true,
        RequiresApproval: true,
        ApprovalTimeout,
        Config: { haproxy: { ID: haproxy.aclId } },
      });
    wiki = await acl("Team wiki", 3600);
    quick = await acl("Quick answer", 5);
    for (const [name, acls] of [
      ["uma", [wiki]],
      ["vic", [wiki]],
      ["walt", [quick]],
    ] as const)
      await stack.admin.ok("POST", "/api/admin/users", {
        Name: name[0]!.toUpperCase() + name.slice(1),
        UserName: name,
        PlainPassword: `${name}-password`,
        ConfirmPassword: `${name}-password`,
        AclIds: acls,
      });
  });

  /** A user signed in on the portal, on their home page. */
  async function userPage(userName: string): Promise<Page> {
    const page = await suite.fresh();
    await page.goto(suite.stack.server.url + "/");
    await page.getByLabel("Username").fill(userName);
    await page.getByLabel("Password").fill(`${userName}-password`);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/home(\/new)?$/);
    return page;
  }

  /** The admin console on /admin/approvals, signed in (own admin session by the API). */
  const approvalsPage = (opts: PageOptions = {}): Promise<Page> => suite.adminPage("/admin/approvals", opts);

  /** The entry of `aclId` on the user's page (card or table row). */
  const entry = (page: Page, aclId: string): Locator => page.locator(`[data-acl-id="${aclId}"]`).first();

  /** Asks for `aclId` with `reason` through the dialog; the entry then waits. */
  async function ask(page: Page, aclId: string, description: string, reason: string): Promise<void> {
    await entry(page, aclId).getByRole("button", { name: "Grant Access" }).click();
    const dialog = page.getByRole("dialog", { name: `Ask for access to ${description}` });
    await expectVisible(dialog);
    expect(await seriousViolations(page), "the request dialog").toEqual([]);
    await dialog.getByLabel("Reason (optional)").fill(reason);
    await dialog.getByRole("button", { name: "Ask for access" }).click();
    await expectVisible(entry(page, aclId).locator('[data-approval-state="pending"]'));
    await expectVisible(entry(page, aclId).locator('[data-status="2"]'));
  }

  it("a user asks and waits; an admin approves in the console; the real HAProxy then lets the address through", async () => {
    const user = await userPage("uma");
    await ask(user, wiki, "Team wiki", "fix the outage");
    await expectVisible(entry(user, wiki).getByText(/Waiting for an approver/));
    // Waiting: nothing reached HAProxy.
    expect(await suite.inHaproxy("127.0.0.1")).toBe(false);
    expect(await httpGetFrom("127.0.0.1", suite.frontend)).toBe(403);

    const admin = await approvalsPage();
    const waiting = admin.getByRole("table", { name: "Waiting for a decision" });
    const row = waiting.getByRole("row").filter({ has: admin.getByRole("cell", { name: "uma", exact: true }) });
    await expectVisible(row);
    await expectVisible(row.getByRole("cell", { name: "fix the outage" }));
    await expectVisible(row.getByRole("cell", { name: "127.0.0.1" }));
    expect(await seriousViolations(admin), "the approvals page").toEqual([]);
    await admin.getByRole("button", { name: "Actions for uma – Team wiki" }).click();
    await admin.getByRole("menuitem", { name: "Approve" }).click();
    const dialog = admin.getByRole("dialog", { name: "Approve request" });
    await expectVisible(dialog);
    expect(await seriousViolations(admin), "the approve dialog").toEqual([]);
    await dialog.getByLabel("Grant length in minutes (optional)").fill("0");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await expectVisible(dialog.getByText("The grant length must be a whole number of minutes from 1 to 40320"));
    await dialog.getByLabel("Grant length in minutes (optional)").fill("30");
    await dialog.getByRole("button", { name: "Approve" }).click();
    await expectVisible(admin.getByTestId("toast").filter({ hasText: "Request approved" }));
    await expectVisible(admin.getByText("No requests are waiting."));
    const decided = admin.getByRole("table", { name: "Recent decisions" });
    await expectVisible(decided.getByRole("row").filter({ hasText: "Approved" }).filter({ hasText: "admin" }));

    // The agent put the address into the real HAProxy: the runtime API shows it, and the site answers.
    await expect.poll(() => suite.inHaproxy("127.0.0.1"), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => httpGetFrom("127.0.0.1", suite.frontend), { timeout: 10_000 }).toBe(200);
    // The portal shows the grant (shortened to 30 minutes) and the decision.
    await expectVisible(entry(user, wiki).locator('[data-status="0"]'), 20_000);
    await expectVisible(entry(user, wiki).locator('[data-approval-state="approved"]'));
    const left = Number(await entry(user, wiki).locator("[data-time-left]").getAttribute("data-time-left"));
    expect(left).toBeGreaterThan(25 * 60);
    expect(left).toBeLessThanOrEqual(30 * 60);

    // Revoked again, the address leaves HAProxy (for the tests below).
    await entry(user, wiki).getByRole("button", { name: "Revoke Access" }).click();
    await expect.poll(() => httpGetFrom("127.0.0.1", suite.frontend), { timeout: 10_000 }).toBe(403);
  });

  it("a denial shows its reason in the portal; nothing is granted", async () => {
    const user = await userPage("vic");
    await ask(user, wiki, "Team wiki", "routine check");
    const admin = await approvalsPage();
    await admin.getByRole("button", { name: "Actions for vic – Team wiki" }).click();
    await admin.getByRole("menuitem", { name: "Deny" }).click();
    const dialog = admin.getByRole("dialog", { name: "Deny request" });
    await expectVisible(dialog);
    await dialog.getByRole("button", { name: "Deny" }).click();
    await expectVisible(dialog.getByText("Give a reason for the denial"));
    await dialog.getByLabel("Reason shown to the user").fill("Change freeze until Monday");
    await dialog.getByRole("button", { name: "Deny" }).click();
    await expectVisible(admin.getByTestId("toast").filter({ hasText: "Request denied" }));

    const note = entry(user, wiki).locator('[data-approval-state="denied"]');
    await expectVisible(note, 20_000);
    expect(await note.textContent()).toContain("Your request was denied: Change freeze until Monday");
    await expectVisible(entry(user, wiki).getByRole("button", { name: "Grant Access" }));
    expect(await suite.inHaproxy("127.0.0.1")).toBe(false);
    expect(await httpGetFrom("127.0.0.1", suite.frontend)).toBe(403);
  });

  it("an unanswered request expires after the Knoc's time; the portal says so and the console lists it", async () => {
    const user = await userPage("walt");
    const asked = Date.now();
    await ask(user, quick, "Quick answer", "");
    const note = entry(user, quick).locator('[data-approval-state="expired"]');
    await expect.poll(() => note.count(), { timeout: 20_000, interval: 500 }).toBe(1);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(5_000);
    expect(await note.textContent()).toContain("not answered in time");
    const list = (await suite.stack.admin.ok<Approval[]>("GET", "/api/admin/approvals")).filter(
      (a) => a.UserName === "walt",
    );
    expect(list).toEqual([expect.objectContaining({ State: "expired", DecidedBy: "" })]);
    const admin = await approvalsPage();
    const decided = admin.getByRole("table", { name: "Recent decisions" });
    await expectVisible(decided.getByRole("row").filter({ hasText: "walt" }).filter({ hasText: "Expired" }));
  });

  it("the ACL form edits the option: Requires approval, time to answer (validated), approver groups", async () => {
    const group = await suite.stack.admin.ok<string>("POST", "/api/admin/groups", { Name: "leads", Type: "local" });
    const page = await approvalsPage();
    await page.goto(suite.stack.server.url + "/admin/acls");
    await page.getByRole("button", { name: "Actions for Quick answer" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const form = page.getByRole("dialog", { name: "Edit ACL" });
    await expectVisible(form);
    expect(await form.getByLabel("Requires approval").isChecked()).toBe(true);
    expect(await form.getByLabel("Time to answer (seconds)").inputValue()).toBe("5");
    await form.getByLabel("Time to answer (seconds)").fill("2");
    await form.getByRole("button", { name: "Save" }).click();
    await expectVisible(form.getByText("The approval time must be between 5 seconds and 7 days"));
    await form.getByLabel("Time to answer (seconds)").fill("120");
    await form.getByLabel("leads").check();
    expect(await seriousViolations(page), "the ACL form with its approval fields").toEqual([]);
    await form.getByRole("button", { name: "Save" }).click();
    await expectVisible(page.getByTestId("toast").filter({ hasText: "ACL updated" }));
    const acl = await suite.stack.admin.ok<{
      ApprovalTimeout: number;
      ApproverGroupIDs: string[];
      RequiresApproval: boolean;
    }>("GET", `/api/admin/acls/${quick}`);
    expect(acl).toMatchObject({ RequiresApproval: true, ApprovalTimeout: 120, ApproverGroupIDs: [group] });
  });

  it("speaks German in the console", async () => {
    const admin = await approvalsPage({ locale: "de-DE", colorScheme: "dark" });
    await expectVisible(admin.getByRole("heading", { name: "Genehmigungen", level: 1 }));
    await expectVisible(admin.getByRole("table", { name: "Letzte Entscheidungen" }));
    expect(await seriousViolations(admin), "the approvals page in German, dark").toEqual([]);
  });
});

/**
 * The users page in Chromium against the real server (issue #9 items 13, 15, 21; docs/reference.md admin-console §2
 * "Users", §4, §5 "User", §8): create with the shared schema's rules (required fields, 8–64
 * characters, the confirmation) and the username following the name until focused; the server's
 * refusal in the Error dialog; view (sessions of a real sign-in, ended from the dialog), edit,
 * reset 2FA (offered only with TOTP on), delete, invalidate all sessions; the users beyond a real
 * licence greyed with the spec's tooltip and the over-limit notice; search and sort; German; axe.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { issueTestLicence } from "../../../server/src/testing/licences.ts";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import { ApiClient, createUser } from "../../support/stack.ts";
import type { Stack } from "../../support/stack.ts";
import { expectAccessible, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin users e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin users page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = suite.stack();
    await stack.admin.ok("POST", "/api/admin/settings/license", {
      License: issueTestLicence({ UserLimit: 100, SessionLimit: 5 }),
    });
    page = await suite.signedIn();
    await page.goto(suite.url() + "/admin/users");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Users" }));
  });

  const table = () => page.getByRole("table", { name: "Users" });
  const row = (userName: string) =>
    table()
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name: userName, exact: true }) });
  const dialog = (name: string) => page.getByRole("dialog", { name });
  const toast = (text: string) => page.getByTestId("toast").filter({ hasText: text });
  const menu = async (userName: string, item: string) => {
    await page.getByRole("button", { name: `Actions for ${userName}` }).click();
    await page.getByRole("menuitem", { name: item }).click();
  };

  it("creates a user: the shared schema's messages, the username following the name until focused", async () => {
    await expectVisible(table().getByText("No users yet."));
    await expectAccessible(page, "users, empty");
    await page.getByRole("button", { name: "Create user" }).click();
    const form = dialog("Create user");
    await expectVisible(form);
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Required"));
    await expectVisible(form.getByText("You must specify a username"));
    await form.getByLabel(/^Name/).fill("Ada Lovelace");
    expect(await form.getByLabel("Username").inputValue()).toBe("ada.lovelace");
    await form.getByLabel(/^Password/).fill("short");
    await form.getByLabel("Confirm password").fill("different");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Must be between 8 and 64 characters"));
    await form.getByLabel(/^Password/).fill("ada-password");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Passwords don't match"));
    await form.getByLabel("Confirm password").fill("ada-password");
    // Once the username field had the focus, the name no longer changes it.
    await form.getByLabel("Username").focus();
    await form.getByLabel("Username").fill("ada");
    await form.getByLabel(/^Name/).fill("Ada King");
    expect(await form.getByLabel("Username").inputValue()).toBe("ada");
    expect(await seriousViolations(page), "create dialog").toEqual([]);
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("User created"));
    await expectVisible(row("ada"));
    expect(await row("ada").textContent()).toContain("Ada King");
    expect(await row("ada").textContent()).toContain("480 min");

    // The server's refusal: a username taken.
    await page.getByRole("button", { name: "Create user" }).click();
    await dialog("Create user").getByLabel(/^Name/).fill("ada");
    await dialog("Create user")
      .getByLabel(/^Password/)
      .fill("other-password");
    await dialog("Create user").getByLabel("Confirm password").fill("other-password");
    await dialog("Create user").getByRole("button", { name: "Create" }).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toContain("A user with that username already exists");
    await error.getByRole("button", { name: "Close" }).click();
    await dialog("Create user").getByRole("button", { name: "Cancel" }).click();
  });

  it("views a user's live sessions and ends one; edits; resets 2FA only where TOTP is on", async () => {
    const ada = new ApiClient(suite.url());
    await ada.ok("POST", "/api/login", { UserName: "ada", Password: "ada-password" });
    await page.reload();
    await expect.poll(() => row("ada").textContent()).toContain("yes");
    await menu("ada", "View");
    const view = dialog("User Ada King");
    await expectVisible(view.getByRole("table", { name: "Sessions" }).getByRole("button", { name: "End session" }));
    await expect.poll(() => view.getByTestId("user-groups").textContent(), { timeout: 10_000 }).toBe("none");
    expect(await seriousViolations(page), "view dialog").toEqual([]);
    await view.getByRole("button", { name: "End session" }).click();
    await expectVisible(toast("Session deleted"));
    await expectVisible(view.getByText("No active session."));
    expect((await ada.call("GET", "/api/status")).status).toBe(401);
    await view.getByRole("button", { name: "Close" }).click();

    await page.getByRole("button", { name: "Actions for ada" }).click();
    expect(await page.getByRole("menuitem", { name: "Reset 2FA" }).count()).toBe(0);
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const edit = dialog("Edit user");
    expect(await edit.getByLabel("Username").isDisabled()).toBe(true);
    await edit.getByLabel("Company").fill("Analytical Engines");
    await edit.getByLabel("Two-factor authentication").check();
    await edit.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("User updated"));
    await expect.poll(() => row("ada").textContent()).toContain("Analytical Engines");
    await menu("ada", "Reset 2FA");
    await page.getByRole("alertdialog", { name: "Reset 2FA" }).getByRole("button", { name: "Reset 2FA" }).click();
    await expectVisible(toast("Two-factor authentication reset"));
  });

  it("greys the users beyond the licence with the spec's tooltip and shows the over-limit notice", async () => {
    for (const name of ["bob", "cy", "dee"]) await createUser(stack, name, `${name}-password`, []);
    await stack.admin.ok("POST", "/api/admin/settings/license", {
      License: issueTestLicence({ UserLimit: 1, UserLimitOverage: 100, SessionLimit: 5 }),
    });
    await page.reload();
    await expectVisible(page.getByTestId("user-limit-notice"));
    // 4 users, limit 1 + 1 overage: creation is blocked, the 2 beyond are disabled.
    expect(await page.getByTestId("user-limit-notice").textContent()).toBe(
      "The licensed user limit has been reached: no more users can be created",
    );
    const unlicensed = table().locator('tr[data-licensed="false"]');
    await expect.poll(() => unlicensed.count()).toBe(2);
    expect(await unlicensed.first().textContent()).toContain("This user is disabled due to license restrictions");
    expect(await unlicensed.first().locator("[data-tooltip]").getAttribute("data-tooltip")).toBe(
      "This user is disabled due to license restrictions",
    );
    await expectAccessible(page, "users over the licence");
  });

  it("searches and sorts, invalidates all sessions and deletes a user", async () => {
    const names = async () =>
      (await table().locator("tbody tr td:nth-child(5)").allTextContents()).map((s) => s.trim());
    expect(await names()).toEqual(["ada", "bob", "cy", "dee"]);
    await table().getByRole("button", { name: "Username" }).click();
    await table().getByRole("button", { name: "Username" }).click();
    await expect.poll(names).toEqual(["dee", "cy", "bob", "ada"]);
    await page.getByRole("searchbox", { name: "Search" }).fill("analytical");
    await expect.poll(names, { timeout: 10_000 }).toEqual(["ada"]);
    await page.getByRole("searchbox", { name: "Search" }).fill("");

    const bob = new ApiClient(suite.url());
    await bob.ok("POST", "/api/login", { UserName: "bob", Password: "bob-password" });
    await page.getByRole("button", { name: "Invalidate all sessions" }).click();
    await page
      .getByRole("alertdialog", { name: "Invalidate all sessions" })
      .getByRole("button", { name: "Invalidate all sessions" })
      .click();
    await expectVisible(toast("All user sessions invalidated"));
    expect((await bob.call("GET", "/api/status")).status).toBe(401);

    await menu("dee", "Delete");
    const confirm = page.getByRole("alertdialog", { name: "Delete user" });
    await expectVisible(confirm.getByText("Are you sure you want to delete dee?"));
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("User deleted"));
    await expect.poll(() => row("dee").count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE" });
    await german.goto(suite.url() + "/admin/users");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Benutzer" }));
    await expectVisible(german.getByRole("button", { name: "Benutzer anlegen" }));
    await expectAccessible(german, "users, German");
  });
});

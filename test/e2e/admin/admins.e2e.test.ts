/**
 * The admins page in Chromium against the real server (issue #9 items 13, 15, 21; docs/reference.md admin-console
 * §2 "Admins", §5 "Admin", §6, §8): create with the shared schema's rules and the username
 * following the name; the DISABLED marker when login is off; view an admin's sessions and end one;
 * reset 2FA offered only with TOTP on and refused for oneself; delete; invalidate all admin
 * sessions (back to admin login); German; axe.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import { ApiClient } from "../../support/stack.ts";
import type { Stack } from "../../support/stack.ts";
import { expectAccessible, pathOf, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin admins e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin admins page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = suite.stack();
    page = await suite.signedIn();
    await page.goto(suite.url() + "/admin/admins");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Admins" }));
  });

  const table = () => page.getByRole("table", { name: "Admins" });
  const row = (userName: string) =>
    table()
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name: new RegExp(`^${userName.replace(".", "\\.")}( ?DISABLED)?$`) }) });
  const dialog = (name: string) => page.getByRole("dialog", { name });
  const toast = (text: string) => page.getByTestId("toast").filter({ hasText: text });
  const menu = async (userName: string, item: string) => {
    await page.getByRole("button", { name: `Actions for ${userName}` }).click();
    await page.getByRole("menuitem", { name: item }).click();
  };

  it("creates an admin with login off: the schema's messages, the username from the name, DISABLED", async () => {
    await expectVisible(row("admin"));
    await expectAccessible(page, "admins");
    await page.getByRole("button", { name: "Create admin" }).click();
    const form = dialog("Create admin");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Required"));
    await form.getByLabel(/^Name/).fill("Grace Hopper");
    expect(await form.getByLabel("Username").inputValue()).toBe("grace.hopper");
    await form.getByLabel(/^Password/).fill("short");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Must be between 8 and 64 characters"));
    await form.getByLabel(/^Password/).fill("grace-password");
    await form.getByLabel("Confirm password").fill("grace-password");
    await form.getByLabel("Two-factor authentication").check();
    await form.getByLabel("Login enabled").uncheck();
    expect(await seriousViolations(page), "create admin dialog").toEqual([]);
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("Admin created"));
    await expectVisible(row("grace.hopper").getByTestId("login-disabled"));
    expect(await row("admin").getByTestId("login-disabled").count()).toBe(0);
  });

  it("resets another admin's 2FA and ends an admin session from the view", async () => {
    await menu("grace.hopper", "Reset 2FA");
    await page.getByRole("alertdialog", { name: "Reset 2FA" }).getByRole("button", { name: "Reset 2FA" }).click();
    await expectVisible(toast("Two-factor authentication reset"));

    const other = new ApiClient(suite.url());
    await other.ok("POST", "/api/admin/login", { UserName: "admin", Password: "admin-password" });
    await menu("admin", "View");
    const view = dialog("Admin Admin");
    const sessions = view.getByRole("table", { name: "Sessions" }).getByRole("button", { name: "End session" });
    await expect.poll(() => sessions.count()).toBeGreaterThanOrEqual(3);
    const before = await sessions.count();
    expect(await seriousViolations(page), "view admin").toEqual([]);
    await sessions.last().click();
    await expectVisible(toast("Session deleted"));
    await expect.poll(() => sessions.count()).toBe(before - 1);
    await view.getByRole("button", { name: "Close" }).click();
  });

  it("deletes an admin, then invalidates all admin sessions and lands on admin login", async () => {
    await menu("grace.hopper", "Delete");
    await page.getByRole("alertdialog", { name: "Delete admin" }).getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("Admin deleted"));
    await expect.poll(() => row("grace.hopper").count()).toBe(0);

    await page.getByRole("button", { name: "Invalidate all admin sessions" }).click();
    await page
      .getByRole("alertdialog", { name: "Invalidate all admin sessions" })
      .getByRole("button", { name: "Invalidate all admin sessions" })
      .click();
    await page.waitForURL(/\/admin$/);
    expect(pathOf(page)).toBe("/admin");
    expect((await stack.admin.call("GET", "/api/admin/status")).status).toBe(401);
    await stack.admin.ok("POST", "/api/admin/login", { UserName: "admin", Password: "admin-password" });
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE" });
    await german.goto(suite.url() + "/admin/admins");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Administratoren" }));
    await expectVisible(german.getByRole("button", { name: "Administrator anlegen" }));
    await expectAccessible(german, "admins, German");
  });

  it("refuses to reset one's own 2FA (last: the admin then owes a code at sign-in)", async () => {
    const mine = await suite.signedIn();
    await mine.goto(suite.url() + "/admin/admins");
    const admins = await stack.admin.ok<{ ID: string; UserName: string }[]>("GET", "/api/admin/admins");
    const me = admins.find((a) => a.UserName === "admin")!;
    await stack.admin.ok("PUT", `/api/admin/admins/${me.ID}`, { Name: "Admin", UserName: "admin", TOTPEnabled: true });
    await mine.reload();
    await mine.getByRole("button", { name: "Actions for admin" }).click();
    await mine.getByRole("menuitem", { name: "Reset 2FA" }).click();
    await mine.getByRole("alertdialog", { name: "Reset 2FA" }).getByRole("button", { name: "Reset 2FA" }).click();
    const error = mine.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toBe(
      "You cannot reset your own two-factor authentication",
    );
  });
});

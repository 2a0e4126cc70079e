/**
 * The groups page in Chromium against the real server (issue #9 items 13, 21; docs/reference.md admin-console §2
 * "Groups", §4, §5 "Group"): create with the shared schema's Required, members from the checklist
 * (SAML users left out), a SAML group without a member list, the type locked when editing, the
 * server's duplicate-name refusal in the Error dialog, delete, German, axe.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import { createUser } from "../../support/stack.ts";
import type { Stack } from "../../support/stack.ts";
import { consoleParts, expectAccessible, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin groups e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin groups page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = suite.stack();
    await createUser(stack, "carl", "carl-password", []);
    await stack.admin.ok("POST", "/api/admin/users", { Name: "Sue", UserName: "sue", AuthType: "SAML" });
    page = await suite.signedIn();
    await page.goto(suite.url() + "/admin/groups");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Groups" }));
  });

  const parts = () => consoleParts(page, "Groups");
  const table = () => parts().table();
  const row = (name: string) => parts().row(name);
  const dialog = (name: string) => parts().dialog(name);
  const toast = (text: string) => parts().toast(text);

  it("creates a local group with a member; SAML users are not offered", async () => {
    await expectVisible(table().getByText("No groups yet."));
    await expectAccessible(page, "groups, empty");
    await page.getByRole("button", { name: "Create group" }).click();
    const form = dialog("Create group");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Required"));
    await form.getByLabel(/^Name/).fill("Ops");
    await form.getByLabel("Description").fill("Operations");
    await expectVisible(form.getByText("No Knocs yet."));
    await form.getByLabel("carl (carl)").check();
    expect(await form.getByLabel("Sue (sue)").count()).toBe(0);
    expect(await seriousViolations(page), "group dialog").toEqual([]);
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("Group created"));
    await expect.poll(() => row("Ops").textContent()).toContain("Operations");
    const cells = await row("Ops").getByRole("cell").allTextContents();
    expect(cells.slice(0, 5)).toEqual(["Ops", "Local", "Operations", "0", "1"]);
  });

  it("locks the type when editing, refuses a duplicate name, and has no member list for SAML groups", async () => {
    await page.getByRole("button", { name: "Actions for Ops" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const edit = dialog("Edit group");
    expect(await edit.getByLabel("Type").isDisabled()).toBe(true);
    expect(await edit.getByLabel("carl (carl)").isChecked()).toBe(true);
    await edit.getByLabel("Description").fill("Operations team");
    await edit.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("Group updated"));
    await expect.poll(() => row("Ops").textContent()).toContain("Operations team");

    await page.getByRole("button", { name: "Create group" }).click();
    const form = dialog("Create group");
    await form.getByLabel("Type").selectOption("saml");
    await expectVisible(form.getByText("The members of a SAML group come from the identity provider."));
    expect(await form.getByLabel("carl (carl)").count()).toBe(0);
    await form.getByLabel(/^Name/).fill("Ops");
    await form.getByRole("button", { name: "Create" }).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toBe("A group with that name already exists");
    await error.getByRole("button", { name: "Close" }).click();
    await form.getByLabel(/^Name/).fill("Staff");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("Group created"));
    await expect.poll(async () => (await row("Staff").getByRole("cell").allTextContents())[1]).toBe("SAML");
  });

  it("deletes a group", async () => {
    await page.getByRole("button", { name: "Actions for Staff" }).click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete group" });
    await expectVisible(confirm.getByText("Are you sure you want to delete Staff?"));
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("Group deleted"));
    await expect.poll(() => row("Staff").count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE", colorScheme: "dark" });
    await german.goto(suite.url() + "/admin/groups");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Gruppen" }));
    await expectVisible(german.getByRole("button", { name: "Gruppe anlegen" }));
    await expectAccessible(german, "groups, German, dark");
  });
});

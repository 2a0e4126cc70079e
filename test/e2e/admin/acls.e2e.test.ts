/**
 * The ACLs page in Chromium against the real server (issue #9; docs/reference.md admin-console §2 "ACLs", §3 "Knoc
 * (ACL)" and its ACL fields per backend type, §5 "ACL", §7 /admin/acls, §1 the licence): the
 * columns and the empty state, the notice without any backend, create/edit/delete, the fields of the
 * chosen backend's type with the shared rules' messages on them, script variables (sealed ones
 * RECORDED), the allowlist URL, the Details per type (variables with the experimental feature),
 * search and sort, the server's refusal without a licence, German, dark mode, axe.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import { createAndEnrolAgent } from "../../support/stack.ts";
import type { Stack } from "../../support/stack.ts";
import { issueTestLicence } from "../../../server/src/testing/licences.ts";
import { testTables } from "../../../server/src/testing/database.ts";
import { consoleParts, expectAccessible, useAdminSuite } from "./admin-suite.ts";

const { licenses } = testTables;

if (!chromiumAvailable) console.warn("admin ACLs e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin ACLs page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  let agentId: string;
  beforeAll(async () => {
    stack = suite.stack();
    ({ agentId } = await createAndEnrolAgent(stack, "edge", {
      haproxy: { socket_location: "/run/haproxy/admin.sock" },
      script: { enabled: true },
      ipset: { ipsets: [], command_available: true, sudo_enabled: true },
    }));
    page = await suite.signedIn();
    await page.goto(suite.url() + "/admin/acls");
    await expectVisible(page.getByRole("heading", { level: 1, name: "ACLs" }));
  });

  const parts = () => consoleParts(page, "ACLs");
  const table = () => parts().table();
  const row = (description: string) =>
    table()
      .getByRole("row")
      .filter({ has: page.getByText(description, { exact: true }) });
  const dialog = (name: string) => parts().dialog(name);
  const toast = (text: string) => parts().toast(text);
  const details = async (description: string) =>
    (await row(description).getByTestId("acl-details").locator("div").allTextContents()).map((s) => s.trim());
  const menu = async (description: string, item: string) => {
    await page.getByRole("button", { name: `Actions for ${description}` }).click();
    await page.getByRole("menuitem", { name: item }).click();
  };
  const backend = (Name: string, Config: object, withAgent = true) =>
    stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name,
      ...(withAgent ? { AgentID: agentId } : {}),
      Config,
    });

  it("shows the empty state, and says to create a backend first when there is none", async () => {
    await expectVisible(table().getByText("No ACLs yet."));
    const headers = (await table().getByRole("columnheader").allTextContents()).map((s) =>
      s.replace(/[▲▼↕]/g, "").trim(),
    );
    expect(headers).toEqual(["Description", "Details", "Last modified", "Actions"]);
    // Sorted by description at first; details are not sortable.
    expect(await table().getByRole("columnheader").first().getAttribute("aria-sort")).toBe("ascending");
    expect(await table().getByRole("columnheader", { name: "Details" }).getByRole("button").count()).toBe(0);
    await expectAccessible(page, "ACLs, empty");
    await page.getByRole("button", { name: "Create ACL" }).click();
    const form = dialog("Create ACL");
    await expectVisible(form.getByText("Create a backend before creating an ACL."));
    expect(await form.getByRole("link", { name: "Go to backends" }).getAttribute("href")).toBe("/admin/backends");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("No backend selected"));
    await expectVisible(form.getByText("Required"));
    await form.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => form.count()).toBe(0);
  });

  it("creates an HAProxy ACL: the ID's rules and the duration's range on their fields first", async () => {
    await backend("Web proxy", { haproxy: { Protocol: "unix", Address: "/run/haproxy/admin.sock" } });
    await backend("Named proxy", { knocproxy: { Protocol: "tcp", Address: "127.0.0.1:9999" } });
    await backend("Linux firewall", { ipset: {} });
    await page.reload();
    await page.getByRole("button", { name: "Create ACL" }).click();
    const form = dialog("Create ACL");
    await form.getByLabel(/^Description/).fill("Intranet");
    await form.getByLabel("Backend").selectOption({ label: "Web proxy (HAProxy)" });
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("ACL ID is required"));
    await form.getByLabel("HAProxy ACL ID").fill("three");
    await form.getByLabel("Maximum grant duration (minutes)").fill("3");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("ACL ID must be a number"));
    await expectVisible(form.getByText("The maximum grant duration for the ACL is invalid"));
    await form.getByLabel("HAProxy ACL ID").fill("3");
    await form.getByLabel("Maximum grant duration (minutes)").fill("60");
    await form.getByLabel("URL", { exact: true }).fill("https://intranet.example.com");
    await expectAccessible(page, "ACL dialog, HAProxy");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("ACL created"));
    await expect.poll(() => details("Intranet")).toEqual(["HAProxy ACL ID: 3", "Web proxy · HAProxy"]);
    expect(await row("Intranet").getByRole("link", { name: "https://intranet.example.com" }).getAttribute("href")).toBe(
      "https://intranet.example.com",
    );
    expect(await row("Intranet").getByRole("cell").nth(2).textContent()).toMatch(/by admin$/);
    const [stored] = await stack.admin.ok<{ MaximumGrantDuration: number; Config: object }[]>("GET", "/api/admin/acls");
    expect(stored).toMatchObject({ MaximumGrantDuration: 3600, Config: { haproxy: { ID: 3 } } });
  });

  it("shows the fields of the chosen backend's type: knocproxy's name rule, ipset's set names", async () => {
    await page.getByRole("button", { name: "Create ACL" }).click();
    const form = dialog("Create ACL");
    await form.getByLabel(/^Description/).fill("Wiki");
    await form.getByLabel("Backend").selectOption({ label: "Named proxy (knocproxy)" });
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("ACL name is required"));
    await form.getByLabel("Named ACL").fill("wiki-acl");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Only letters, numbers, and underscores are allowed."));
    // Another type starts its own fields afresh.
    await form.getByLabel("Backend").selectOption({ label: "Linux firewall (Linux ipset)" });
    expect(await form.getByLabel("Named ACL").count()).toBe(0);
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("At least one ipset name is required"));
    await form.getByLabel("IPv4 set name").fill("wiki4");
    await form.getByLabel("IPv6 set name").fill("wiki6");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("ACL created"));
    await expect
      .poll(() => details("Wiki"))
      .toEqual(["IPv4 set name: wiki4", "IPv6 set name: wiki6", "Linux firewall · Linux ipset"]);
  });

  it("edits an ACL, keeping what the dialog does not show", async () => {
    const before = (await stack.admin.ok<{ ID: string; Description: string }[]>("GET", "/api/admin/acls")).find(
      (a) => a.Description === "Intranet",
    )!;
    await stack.admin.ok("PUT", `/api/admin/acls/${before.ID}`, {
      ...before,
      IpExclusions: { RestrictionType: "denyList", RfcType: "allow", Ranges: [{ Start: "10.0.0.1", End: "10.0.0.9" }] },
    });
    await page.reload();
    await menu("Intranet", "Edit");
    const form = dialog("Edit ACL");
    expect(await form.getByLabel("HAProxy ACL ID").inputValue()).toBe("3");
    expect(await form.getByLabel("Maximum grant duration (minutes)").inputValue()).toBe("60");
    await form.getByLabel(/^Description/).fill("Intranet portal");
    await form.getByLabel("Maximum grant duration (minutes)").fill("");
    await form.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("ACL updated"));
    await expectVisible(row("Intranet portal"));
    const after = await stack.admin.ok<{ MaximumGrantDuration: number | null; IpExclusions: object }>(
      "GET",
      `/api/admin/acls/${before.ID}`,
    );
    expect(after.MaximumGrantDuration).toBeNull();
    expect(after.IpExclusions).toMatchObject({ RestrictionType: "denyList" });
  });

  it("sets a script ACL's variables: a value required, a sensitive one RECORDED once stored, shown with the experimental feature", async () => {
    await backend("Jump host", {
      script: {
        Command: "/usr/local/bin/knoc.sh",
        EnvVars: [
          { Name: "POLICY", Sensitive: false },
          { Name: "API_TOKEN", Sensitive: true },
        ],
      },
    });
    await page.reload();
    await page.getByRole("button", { name: "Create ACL" }).click();
    const form = dialog("Create ACL");
    await form.getByLabel(/^Description/).fill("Bastion");
    await form.getByLabel("Backend").selectOption({ label: "Jump host (Script or webhook)" });
    await form.getByLabel("ACL name").fill("bastion ssh");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Invalid ACL name"));
    expect(await form.getByText("Required").count()).toBe(2); // both variable values
    await form.getByLabel("ACL name").fill("bastion-ssh");
    await form.getByLabel("POLICY").fill("strict");
    expect(await form.getByLabel("API_TOKEN").getAttribute("type")).toBe("password");
    await form.getByLabel("API_TOKEN").fill("t0ken");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("ACL created"));
    await expect
      .poll(() => details("Bastion"))
      .toEqual(["/usr/local/bin/knoc.sh", "ACL name: bastion-ssh", "Jump host · Script or webhook"]);

    await menu("Bastion", "Edit");
    const edit = dialog("Edit ACL");
    expect(await edit.getByLabel("API_TOKEN").inputValue()).toBe("");
    expect(await edit.getByLabel("API_TOKEN").getAttribute("placeholder")).toBe("RECORDED");
    expect(await edit.getByLabel("POLICY").inputValue()).toBe("strict");
    await edit.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("ACL updated"));

    await stack.admin.ok("POST", "/api/admin/settings/config", { ExperimentalFeatures: ["enhanced-custom-script"] });
    await page.reload();
    await expect
      .poll(() => details("Bastion"))
      .toEqual([
        "/usr/local/bin/knoc.sh",
        "ACL name: bastion-ssh",
        "POLICY=strict",
        "API_TOKEN=••••••",
        "Jump host · Script or webhook",
      ]);
    await stack.admin.ok("POST", "/api/admin/settings/config", { ExperimentalFeatures: [] });
  });

  it("creates an allowlist ACL and shows its public URL when editing", async () => {
    await backend("Partner list", { allowlist: {} }, false);
    await page.reload();
    await page.getByRole("button", { name: "Create ACL" }).click();
    const form = dialog("Create ACL");
    await form.getByLabel(/^Description/).fill("Partner firewall");
    await form.getByLabel("Backend").selectOption({ label: "Partner list (Allowlist)" });
    await form.getByLabel("Allow reading the list by source address").check();
    await form.getByRole("button", { name: "Add address" }).click();
    await form.getByLabel("Prefix 1").fill("203.0.113.0/24");
    await form.getByLabel("Note 1").fill("partner office");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("ACL created"));
    await expect.poll(() => details("Partner firewall")).toEqual(["Allowlist", "Partner list · Allowlist"]);

    const acl = (
      await stack.admin.ok<{ ID: string; Description: string; Config: { allowlist: { Token: string } } }[]>(
        "GET",
        "/api/admin/acls",
      )
    ).find((a) => a.Description === "Partner firewall")!;
    expect(acl.Config.allowlist).toMatchObject({
      AllowAccessByIp: true,
      AllowedIpAddresses: [{ Prefix: "203.0.113.0/24", Note: "partner office" }],
    });
    await menu("Partner firewall", "Edit");
    const edit = dialog("Edit ACL");
    await expectVisible(edit.getByTestId("acl-allowlist-url"));
    expect(await edit.getByTestId("acl-allowlist-url").textContent()).toBe(
      `${suite.url()}/api/v1/allowlists/${acl.ID}/${acl.Config.allowlist.Token}.txt`,
    );
    await expectVisible(edit.getByRole("button", { name: "Copy allowlist URL" }));
    await expectAccessible(page, "ACL dialog, allowlist");
    await edit.getByRole("button", { name: "Cancel" }).click();
  });

  it("searches and sorts by description", async () => {
    const descriptions = async () =>
      (await table().locator("tbody tr td:nth-child(1) > div > div:first-child").allTextContents()).map((s) =>
        s.trim(),
      );
    await expect.poll(descriptions).toEqual(["Bastion", "Intranet portal", "Partner firewall", "Wiki"]);
    await table().getByRole("button", { name: "Description" }).click();
    await expect.poll(descriptions).toEqual(["Wiki", "Partner firewall", "Intranet portal", "Bastion"]);
    await table().getByRole("button", { name: "Description" }).click();
    await page.getByRole("searchbox", { name: "Search" }).fill("wiki4");
    await expect.poll(descriptions).toEqual(["Wiki"]);
    await page.getByRole("searchbox", { name: "Search" }).fill("");
    await expect.poll(descriptions).toHaveLength(4);
  });

  it("shows the server's refusal without a licence, and deletes with confirmation", async () => {
    await stack.server.services.db.delete(licenses);
    try {
      await menu("Wiki", "Edit");
      const edit = dialog("Edit ACL");
      await edit.getByLabel(/^Description/).fill("Wiki 2");
      await edit.getByRole("button", { name: "Save" }).click();
      const error = page.getByRole("alertdialog", { name: "Error" });
      await expectVisible(error);
      expect(await error.getByTestId("error-text").textContent()).toBe("You do not have a license");
      await error.getByRole("button", { name: "Close" }).click();
      await expectVisible(edit); // the form stays open to try again
      await edit.getByRole("button", { name: "Cancel" }).click();
    } finally {
      await stack.admin.ok("POST", "/api/admin/settings/license", { License: issueTestLicence({ UserLimit: 10_000 }) });
    }

    await menu("Wiki", "Delete");
    const confirm = page.getByRole("alertdialog", { name: "Delete ACL" });
    await expectVisible(confirm.getByText("Are you sure you want to delete Wiki?"));
    await expectAccessible(page, "delete ACL confirmation");
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("ACL deleted"));
    await expect.poll(() => row("Wiki").count()).toBe(0);
    const left = await stack.admin.ok<{ Description: string }[]>("GET", "/api/admin/acls");
    expect(left.map((a) => a.Description)).not.toContain("Wiki");
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE", colorScheme: "dark" });
    await german.goto(suite.url() + "/admin/acls");
    await expectVisible(german.getByRole("heading", { level: 1, name: "ACLs" }));
    await expectVisible(german.getByRole("columnheader", { name: "Beschreibung" }));
    await german.getByRole("button", { name: "ACL anlegen" }).click();
    const form = german.getByRole("dialog", { name: "ACL anlegen" });
    await form.getByLabel("Backend").selectOption({ label: "Web proxy (HAProxy)" });
    await expectVisible(form.getByLabel("HAProxy-ACL-ID"));
    await expectVisible(form.getByLabel("Maximale Freigabedauer (Minuten)"));
    await expectAccessible(german, "ACLs, German, dark");
  });
});

/**
 * The API keys page in Chromium against the real server (issue #9 items 13, 21; docs/reference.md admin-console §2
 * "API keys", §5 "API key", §9): create a key reading a real allowlist ACL, the shared schema's
 * rules (Name required, err.invalidCidr for a bad prefix), the one-time plaintext key (copyable)
 * that reads the allowlist for real, edit changing only the allowed-from list, delete, German, axe.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { NONE_ID } from "@postern/shared";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import type { Stack } from "../../support/stack.ts";
import { expectAccessible, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin API keys e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin API keys page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  let aclId: string;
  beforeAll(async () => {
    stack = suite.stack();
    const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "partner-list",
      AgentID: NONE_ID,
      Config: { allowlist: {} },
    });
    aclId = await stack.admin.ok<string>("POST", "/api/admin/acls", {
      Description: "Partner allowlist",
      BackendID: backend.ID,
      Config: {
        allowlist: { Token: "", ApiKeyId: NONE_ID, AllowAccessByIp: false, AllowedIpAddresses: [] },
      },
    });
    page = await suite.signedIn({ clipboardOrigin: suite.url() });
    await page.goto(suite.url() + "/admin/api-keys");
    await expectVisible(page.getByRole("heading", { level: 1, name: "API keys" }));
  });

  const table = () => page.getByRole("table", { name: "API keys" });
  const row = (name: string) =>
    table()
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name, exact: true }) });
  const dialog = (name: string) => page.getByRole("dialog", { name });
  const toast = (text: string) => page.getByTestId("toast").filter({ hasText: text });

  it("creates a key for an allowlist and shows the plaintext key once, which reads the allowlist", async () => {
    await expectVisible(table().getByText("No API keys yet."));
    await expectAccessible(page, "api keys, empty");
    await page.getByRole("button", { name: "Create API key" }).click();
    const form = dialog("Create API key");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Name is required"));
    await form.getByLabel(/^Name/).fill("partner");
    await form.getByLabel("Partner allowlist").check();
    expect(await form.getByLabel("Prefix 1").inputValue()).toBe("0.0.0.0/0");
    expect(await form.getByLabel("Prefix 2").inputValue()).toBe("::/0");
    await form.getByRole("button", { name: "Add prefix" }).click();
    await form.getByLabel("Prefix 3").fill("10.0.0.0/33");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Invalid CIDR"));
    await form.getByRole("button", { name: "Remove 3" }).click();
    expect(await seriousViolations(page), "create key dialog").toEqual([]);
    await form.getByRole("button", { name: "Create" }).click();

    const created = dialog("Your new API key");
    await expectVisible(created);
    await expectVisible(toast("API key created"));
    const key = (await created.getByTestId("plaintext-key").textContent()) ?? "";
    expect(key.length).toBeGreaterThan(20);
    await created.getByRole("button", { name: "Copy API key" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await created.getByRole("button", { name: "Done" }).click();
    await expectVisible(row("partner"));
    expect(await row("partner").textContent()).toContain("0.0.0.0/0, ::/0");

    // The allowlist's token is minted by the server (#8 item 10).
    const acl = await stack.admin.ok<{ Config: { allowlist?: { Token: string } } }>("GET", `/api/admin/acls/${aclId}`);
    const token = acl.Config.allowlist?.Token ?? "";
    expect(token.length).toBeGreaterThan(20);
    const allowlist = await fetch(`${suite.url()}/api/v1/allowlists/${aclId}/${token}.txt`, {
      headers: { Authorization: `Basic ${Buffer.from(`partner:${key}`).toString("base64")}` },
    });
    const anonymous = await fetch(`${suite.url()}/api/v1/allowlists/${aclId}/${token}.txt`);
    expect(anonymous.status).not.toBe(200);
    expect(allowlist.status).toBe(200);
  });

  it("edits only the allowed-from list, and deletes the key", async () => {
    await page.getByRole("button", { name: "Actions for partner" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const edit = dialog("Edit API key");
    expect(await edit.getByLabel(/^Name/).isDisabled()).toBe(true);
    await edit.getByRole("button", { name: "Remove 2" }).click();
    await edit.getByLabel("Prefix 1").fill("192.0.2.0/24");
    await edit.getByLabel("Note 1").fill("office");
    await edit.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("API Key updated"));
    await expect.poll(() => row("partner").textContent()).toContain("192.0.2.0/24");

    await page.getByRole("button", { name: "Actions for partner" }).click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    await page.getByRole("alertdialog", { name: "Delete API key" }).getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("API key deleted"));
    await expect.poll(() => row("partner").count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE" });
    await german.goto(suite.url() + "/admin/api-keys");
    await expectVisible(german.getByRole("heading", { level: 1, name: "API-Schlüssel" }));
    await expectVisible(german.getByRole("button", { name: "API-Schlüssel anlegen" }));
    await expectAccessible(german, "api keys, German");
  });
});

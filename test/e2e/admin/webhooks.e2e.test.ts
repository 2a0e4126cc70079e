/**
 * The Webhooks section of Settings in Chromium against the real server (issue #14 items 4, 8): the empty state,
 * the create dialog's validation (shared schema), the signing secret shown once with its Copy button, the event
 * picker, Send test to a real receiver on loopback that verifies the delivery with `standardwebhooks`, the
 * deliveries view, edit, the server's refusal, delete, German, axe.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Webhook } from "@postern/shared";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import type { Stack } from "../../support/stack.ts";
import { startWebhookReceiver } from "../../support/webhook-receiver.ts";
import type { WebhookReceiver } from "../../support/webhook-receiver.ts";
import { expectAccessible, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin webhooks e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin settings: webhooks in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  let receiver: WebhookReceiver;
  let secret = "";
  /** How many deliveries had arrived when the test learnt the secret (those before could not verify). */
  let knownFrom = 0;
  beforeAll(async () => {
    stack = suite.stack();
    receiver = await startWebhookReceiver(() => secret);
    page = await suite.signedIn({ clipboardOrigin: suite.url() });
    await page.goto(suite.url() + "/admin/settings");
    await expectVisible(page.getByRole("heading", { level: 2, name: "Webhooks" }));
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  const section = () => page.getByTestId("settings-webhooks");
  const table = () => page.getByRole("table", { name: "Webhooks" });
  const row = () => table().getByRole("row").filter({ hasText: receiver.url });
  const dialog = (name: string) => page.getByRole("dialog", { name });
  const toast = (text: string) => page.getByTestId("toast").filter({ hasText: text });
  const menu = async (item: string) => {
    await page.getByRole("button", { name: `Actions for ${receiver.url}` }).click();
    await page.getByRole("menuitem", { name: item }).click();
  };

  it("validates, creates and shows the signing secret once", async () => {
    await expectVisible(table().getByText("No webhooks yet."));
    await section().scrollIntoViewIfNeeded();
    await expectAccessible(page, "settings with webhooks, empty");
    await page.getByRole("button", { name: "Add webhook" }).click();
    const form = dialog("Add webhook");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Required"));
    await form.getByLabel(/^URL/).fill("ftp://example.com/hook");
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("URL must be http or https"));
    await form.getByLabel(/^URL/).fill(receiver.url);
    await form.getByLabel("Description").fill("SIEM");
    expect(await form.getByLabel("User signed in").isDisabled()).toBe(true);
    await form.getByLabel("All events (also those added later)").uncheck();
    await form.getByRole("button", { name: "Create" }).click();
    await expectVisible(form.getByText("Choose at least one event"));
    await form.getByLabel("User signed in").check();
    await form.getByLabel("Admin change").check();
    expect(await form.getByText("Choose at least one event").count()).toBe(0);
    expect(await seriousViolations(page), "add webhook dialog").toEqual([]);
    await form.getByRole("button", { name: "Create" }).click();

    const created = dialog("Your webhook's signing secret");
    await expectVisible(created);
    await expectVisible(toast("Webhook created"));
    secret = ((await created.getByTestId("webhook-secret").textContent()) ?? "").trim();
    knownFrom = receiver.deliveries.length;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await created.getByRole("button", { name: "Copy Signing secret" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await created.getByRole("button", { name: "Done" }).click();
    await expectVisible(row());
    expect(await row().textContent()).toContain("User signed in, Admin change");
    expect(await row().textContent()).toContain("SIEM");
    // The secret is not shown again.
    const [listed] = await stack.admin.ok<Webhook[]>("GET", "/api/admin/webhooks");
    expect(listed?.Secret).toBeUndefined();
  });

  it("sends a test the receiver verifies, and lists the deliveries", async () => {
    await menu("Send test");
    await expectVisible(toast("Test sent"));
    const deliveries = dialog(`Deliveries to ${receiver.url}`);
    await expectVisible(deliveries);
    const testRow = deliveries.getByRole("row").filter({ hasText: "Test delivery" });
    await expectVisible(testRow);
    expect(await testRow.textContent()).toContain("Delivered (HTTP 200)");
    const test = receiver.deliveries.find((d) => d.body.includes('"webhook.test"'));
    expect(test?.verified).toBe(true);
    expect(await testRow.textContent()).toContain(test?.headers["webhook-id"]);
    // Every delivery since the secret was known verified with standardwebhooks.
    expect(receiver.deliveries.slice(knownFrom).every((d) => d.verified)).toBe(true);
    await expectAccessible(page, "webhook deliveries");
    await deliveries.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => row().textContent()).toContain("Delivered (HTTP 200)");
  });

  it("edits the events, shows the server's refusal, and deletes", async () => {
    await menu("Edit");
    const edit = dialog("Edit webhook");
    await edit.getByLabel("All events (also those added later)").check();
    await edit.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("Webhook updated"));
    await expect.poll(() => row().textContent()).toContain("All events");

    // Deleted elsewhere while the dialog is open: the server refuses the save.
    await menu("Edit");
    const again = dialog("Edit webhook");
    const [hook] = await stack.admin.ok<Webhook[]>("GET", "/api/admin/webhooks");
    await stack.admin.ok("DELETE", `/api/admin/webhooks/${hook!.ID}`);
    await again.getByLabel("Description").fill("SIEM 2");
    await again.getByRole("button", { name: "Save" }).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toContain("Not found");
    await error.getByRole("button", { name: "Close" }).click();
    await again.getByRole("button", { name: "Cancel" }).click();

    await stack.admin.ok("POST", "/api/admin/webhooks", { URL: receiver.url, Events: ["grant.error"] });
    await page.reload();
    await expectVisible(row());
    await menu("Delete");
    await page.getByRole("alertdialog", { name: "Delete webhook" }).getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("Webhook deleted"));
    await expect.poll(() => row().count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE" });
    await german.goto(suite.url() + "/admin/settings");
    await expectVisible(german.getByRole("heading", { level: 2, name: "Webhooks" }));
    await german.getByRole("button", { name: "Webhook hinzufügen" }).click();
    await expectVisible(german.getByRole("dialog", { name: "Webhook hinzufügen" }));
    await expectVisible(german.getByLabel("Alle Ereignisse (auch später hinzukommende)"));
    await expectAccessible(german, "webhook dialog, German");
  });
});

/**
 * The audit log page in Chromium against the real server (issue #9 items 13, 21; docs/reference.md admin-console §2
 * "Audit logs", §9): 25 entries a page, the paginator abbreviated above 8 pages, the server's
 * search, the detail dialog, the CSV download named by date, clearing entries older than 30 days
 * (the server's clock moved on), German, axe.
 */
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import type { Stack } from "../../support/stack.ts";
import { expectAccessible, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin logs e2e: SKIPPED: /usr/bin/chromium is not installed");

const DAY_MS = 86_400_000;

describe.skipIf(!chromiumAvailable)("admin audit log page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = suite.stack();
    // 220 users created: 220 audit entries besides the sign-ins.
    for (let i = 0; i < 220; i++)
      await stack.admin.ok("POST", "/api/admin/users", { Name: `Sam ${i}`, UserName: `sam-${i}`, AuthType: "SAML" });
    page = await suite.signedIn();
    await page.goto(suite.url() + "/admin/logs");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Logs" }));
  });

  const table = () => page.getByRole("table", { name: "Audit log" });
  const rows = () => table().locator("tbody tr[data-entry-id]");
  const pages = () => page.getByRole("navigation", { name: "Pages" });

  it("shows 25 entries a page, newest first, with the paginator abbreviated above 8 pages", async () => {
    await expect.poll(() => rows().count()).toBe(25);
    const answer = await fetch(suite.url() + "/api/admin/logs", { headers: { cookie: stack.admin.cookie } });
    const total = answer.headers.get("x-total-count");
    const pageCount = Math.ceil(Number(total) / 25);
    expect(pageCount).toBeGreaterThan(8);
    const labels = await pages().getByRole("button").allTextContents();
    expect(labels).toEqual(["1", "2", String(pageCount)]);
    expect(await pages().getByText("…").count()).toBe(1);
    expect(await pages().getByRole("button", { name: "Page 1" }).getAttribute("aria-current")).toBe("page");
    await expectAccessible(page, "logs");

    const firstId = await rows().first().getAttribute("data-entry-id");
    await pages().getByRole("button", { name: "Page 2" }).click();
    await expect.poll(() => pages().getByRole("button", { name: "Page 2" }).getAttribute("aria-current")).toBe("page");
    await expect.poll(() => rows().first().getAttribute("data-entry-id")).toBe(String(Number(firstId) - 25));
    expect(await pages().getByRole("button").allTextContents()).toEqual(["1", "2", "3", String(pageCount)]);
  });

  it("searches on the server and opens an entry's details", async () => {
    await page.getByRole("searchbox", { name: "Search" }).fill("sam-17");
    await expect.poll(() => rows().count()).toBe(11);
    expect(await pages().count()).toBe(0);
    const row = rows().filter({ has: page.getByRole("cell", { name: "sam-17", exact: true }) });
    await row.getByRole("button", { name: /View entry/ }).click();
    const detail = page.getByRole("dialog", { name: "User created" });
    await expectVisible(detail.getByTestId("log-detail").getByText("sam-17", { exact: true }));
    expect(await seriousViolations(page), "log detail").toEqual([]);
    await detail.getByRole("button", { name: "Close" }).click();
  });

  it("downloads the matching entries as CSV named by the date", async () => {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${new Date().toISOString().slice(0, 10)}-postern-audit.csv`);
    const csv = await readFile((await download.path())!, "utf8");
    const lines = csv.trim().split(/\r?\n/);
    expect(lines[0]).toBe(
      "ID,Date,Action,UserName,AdminName,AgentName,IpAddress,AclDescription,Description,ErrorMessage",
    );
    expect(lines.length).toBe(12);
  });

  it("clears entries older than 30 days", async () => {
    stack.clock.advance(31 * DAY_MS);
    const later = await suite.signedIn();
    await later.goto(suite.url() + "/admin/logs");
    await later.getByRole("button", { name: "Clear logs (30 days)" }).click();
    const confirm = later.getByRole("alertdialog", { name: "Clear logs" });
    await expectVisible(confirm.getByText("Entries older than 30 days are removed for good."));
    await confirm.getByRole("button", { name: "Clear logs" }).click();
    await expectVisible(later.getByTestId("toast").filter({ hasText: /^\d+ log entries older than 30 days removed/ }));
    const left = later.getByRole("table", { name: "Audit log" }).locator("tbody tr[data-entry-id]");
    await expect.poll(() => left.count()).toBeLessThan(5);
    expect(await later.getByRole("navigation", { name: "Pages" }).count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE" });
    await german.goto(suite.url() + "/admin/logs");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Protokolle" }));
    await expectVisible(german.getByRole("link", { name: "CSV herunterladen" }));
    await expectAccessible(german, "logs, German");
  });
});

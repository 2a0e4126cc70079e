/**
 * The user portal in a real Chromium (playwright-core) against the real server, agent and HAProxy
 * (issue #2 item 9): sign in on the login page, press Grant, see Granted — and the address really is
 * let through by HAProxy — then Revoke and Logout.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { DEFAULT_WEB_DIR } from "../../server/src/index.ts";
import type { startAgent } from "../../agent/src/daemon.ts";
import { startHaproxy, httpGetFrom } from "../support/haproxy.ts";
import type { HaproxyInstance } from "../support/haproxy.ts";
import { createUser, startStack, waitFor } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";
import { startHaproxyEdge } from "../support/haproxy-edge.ts";

const CHROMIUM = "/usr/bin/chromium";
const skip = !existsSync(CHROMIUM);
if (skip) console.warn("browser.e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(skip)("user portal in Chromium", () => {
  let stack: Stack;
  let haproxy: HaproxyInstance;
  let agent: Awaited<ReturnType<typeof startAgent>>;
  let browser: Browser;
  let page: Page;
  let frontend = "";

  beforeAll(async () => {
    expect(existsSync(join(DEFAULT_WEB_DIR, "index.html")), "web app not built: run npm run build").toBe(true);
    haproxy = await startHaproxy();
    frontend = `http://127.0.0.1:${haproxy.frontendPort}/`;
    stack = await startStack();
    const edge = await startHaproxyEdge(stack, haproxy);
    agent = edge.agent;
    const backend = { ID: edge.backendId };
    const aclId = await stack.admin.ok<string>("POST", "/api/admin/acls", {
      Description: "Team wiki",
      BackendID: backend.ID,
      ClickToGrant: true,
      Config: { haproxy: { ID: haproxy.aclId } },
    });
    await createUser(stack, "carol", "carol-password", [aclId]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    page = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await stack?.close();
    await haproxy?.stop();
  });

  it("refuses a wrong password with the spec's message", async () => {
    await page.goto(stack.server.url + "/");
    await page.getByLabel("Username").fill("carol");
    await page.getByLabel("Password").fill("wrong-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Error: Invalid credentials" }));
  });

  it("signs in, grants, sees Granted, and HAProxy lets the address through", async () => {
    await page.getByLabel("Password").fill("carol-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/home/, { timeout: 10_000 });
    await expectVisible(page.getByText("Team wiki"));
    expect(await httpGetFrom("127.0.0.1", frontend)).toBe(403);
    await page.getByRole("button", { name: "Grant Access" }).click();
    await expectVisible(page.locator('[data-status="0"]').filter({ hasText: "Granted" }));
    expect(await httpGetFrom("127.0.0.1", frontend)).toBe(200);
    await expectVisible(page.getByRole("button", { name: "Revoke Access" }));
  });

  it("revokes and logs out", async () => {
    await page.getByRole("button", { name: "Revoke Access" }).click();
    await expectVisible(page.getByRole("button", { name: "Grant Access" }));
    expect(await waitFor(async () => (await httpGetFrom("127.0.0.1", frontend)) === 403, 3_000)).toBe(true);
    await page.getByRole("button", { name: "Logout" }).click();
    await expectVisible(page.getByLabel("Username"));
    await page.goto(stack.server.url + "/home/new");
    await expectVisible(page.getByLabel("Username"));
  });
});

/** Waits (bounded, 10 s) until the locator is visible; fails with its description otherwise. */
async function expectVisible(locator: ReturnType<Page["locator"]>): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout: 10_000 });
}

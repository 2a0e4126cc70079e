/**
 * Set-up of the admin console's Chromium suites: a real server (test/support/stack.ts, with its
 * admin "admin" / "admin-password", trusting the test licence key of server/src/testing/licences.ts,
 * no licence installed) and Chromium, started together before all tests; fresh
 * browser contexts closed at the end; and the browser-side helpers the suites share (admin
 * sign-in through the form, the path of a page, the axe-core scan).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { DEFAULT_WEB_DIR } from "../../../server/src/index.ts";
import { expectVisible, launchBrowser, newPage, seriousViolations } from "../../support/browser.ts";
import type { PageOptions } from "../../support/browser.ts";
import { testLicenceKey } from "../../../server/src/testing/licences.ts";
import { startStack } from "../../support/stack.ts";
import { openAdminConsole } from "../../support/admin-console.ts";
import type { Stack } from "../../support/stack.ts";

/** One admin suite's stack and Chromium. */
export interface AdminSuite {
  /** The stack (set once the suite's beforeAll ran). */
  stack(): Stack;
  /** The server's base URL. */
  url(): string;
  /** A fresh browser context (own cookies and storage) and its page. */
  fresh(opts?: PageOptions): Promise<Page>;
  /** A fresh page signed in as the stack's admin (its own admin session, by the API), on /admin/home. */
  signedIn(opts?: PageOptions): Promise<Page>;
}

/** Registers the suite's set-up and tear-down (call inside `describe`). */
export function useAdminSuite(): AdminSuite {
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  const opened: { close(): Promise<void> }[] = [];
  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_DIR, "admin.html"))) throw new Error("web app not built: run npm run build");
    [stack, browser] = await Promise.all([
      startStack({ licensePublicKeys: [testLicenceKey.publicKey] }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    for (const context of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.close();
  });
  const suite: AdminSuite = {
    stack: () => {
      if (!stack) throw new Error("the admin stack is not started yet");
      return stack;
    },
    url: () => suite.stack().server.url,
    fresh: async (opts: PageOptions = {}) => {
      if (!browser) throw new Error("the browser is not started yet");
      const { context, page } = await newPage(browser, opts);
      opened.push(context);
      return page;
    },
    signedIn: async (opts: PageOptions = {}) =>
      await openAdminConsole(await suite.fresh(opts), suite.url(), "/admin/home"),
  };
  return suite;
}

/** Fills and submits the admin login form at `${base}/admin`. */
export async function adminSignIn(page: Page, base: string, userName: string, password: string): Promise<void> {
  await page.goto(base + "/admin");
  await page.getByLabel("Username").fill(userName);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
}

/** The path of the page's URL. */
export const pathOf = (page: Page): string => new URL(page.url()).pathname;

/** Asserts the page has no serious or critical axe-core violation (waits for the h1 first). */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  await expectVisible(page.getByRole("heading", { level: 1 }));
  expect(await seriousViolations(page), what).toEqual([]);
}

/** Where the admin pages' tests look: the named table, a row by one cell's text, a dialog, a toast. */
export function consoleParts(page: Page, tableName: string) {
  const table = () => page.getByRole("table", { name: tableName });
  return {
    table,
    /** The row of `table` holding a cell whose text is exactly `name`. */
    row: (name: string) =>
      table()
        .getByRole("row")
        .filter({ has: page.getByRole("cell", { name, exact: true }) }),
    dialog: (name: string) => page.getByRole("dialog", { name }),
    toast: (text: string) => page.getByTestId("toast").filter({ hasText: text }),
  };
}

/**
 * The admin console in Chromium, signed in without its login form: a page given the session cookie of its own
 * admin session (the stack's admin "admin" / "admin-password", signed in through the API), so a test reaches a
 * console screen directly and its sign-in does not end another client's session.
 */
import type { Page } from "playwright-core";
import { expectVisible } from "./browser.ts";
import { ApiClient } from "./stack.ts";

/**
 * Signs `page`'s browser context in as the stack's admin on the server at `base` (http://127.0.0.1:PORT), opens
 * `path` (e.g. "/admin/approvals") and waits until its h1 shows. Throws when the sign-in is refused or the heading
 * does not show within expectVisible's time.
 */
export async function openAdminConsole(page: Page, base: string, path: string): Promise<Page> {
  const api = new ApiClient(base);
  await api.ok("POST", "/api/admin/login", { UserName: "admin", Password: "admin-password" });
  const [name, value] = api.cookie.split("=", 2) as [string, string];
  await page.context().addCookies([{ name, value, url: base }]);
  await page.goto(base + path);
  await expectVisible(page.getByRole("heading", { level: 1 }));
  return page;
}

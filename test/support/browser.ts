/**
 * Chromium for end-to-end tests of the portal (docs/reference.md design "Testing with real parts": Chromium driven
 * by playwright-core, `/usr/bin/chromium`, `--no-sandbox`, `--disable-background-networking`).
 * `launchBrowser()` starts it; `newPage()` opens a fresh context (its own cookies and storage) with
 * a locale, a colour scheme and a viewport; `seriousViolations()` runs axe-core in the page and
 * returns the serious and critical violations; `expectVisible()` waits (bounded) for a locator.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";

/** Where Debian's Chromium lives. */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether Chromium is installed (tests skip with a warning otherwise). */
export const chromiumAvailable = existsSync(CHROMIUM);

/** Chromium's arguments for a headless, quiet run inside a container. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Starts headless Chromium (bounded: 30 s). Close it with `browser.close()`. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 });
}

/** Options of a new page. */
export interface PageOptions {
  /** Browser language, e.g. "en-AU" or "de-DE" (default "en-AU"). */
  locale?: string;
  /** prefers-color-scheme (default "light"). */
  colorScheme?: "light" | "dark";
  /** Viewport size (default 1280×800; a phone is 390×844). */
  viewport?: { width: number; height: number };
  /** Origins whose pages may use the clipboard (the secret's Copy button). */
  clipboardOrigin?: string;
}

/** A fresh context and its page; close the context to drop both. Actions time out after 10 s. */
export async function newPage(
  browser: Browser,
  opts: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    locale: opts.locale ?? "en-AU",
    colorScheme: opts.colorScheme ?? "light",
    viewport: opts.viewport ?? { width: 1280, height: 800 },
  });
  if (opts.clipboardOrigin)
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: opts.clipboardOrigin });
  // axe-core for seriousViolations, injected into every document by the browser itself: the
  // portal's Content-Security-Policy refuses the inline script tag a later injection would add.
  await context.addInitScript({ path: axePath });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(15_000);
  const page = await context.newPage();
  return { context, page };
}

/** Waits (bounded, 10 s unless told) until the first match of the locator is visible. */
export async function expectVisible(locator: Locator, timeoutMs = 10_000): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout: timeoutMs });
}

/** One axe-core violation, reduced to what a test report needs. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * Runs axe-core (WCAG 2.0/2.1 A and AA rules and best practices) on the page once its transitions have ended
 * (waited for at most 2 s) and returns the violations of impact serious or critical. The script is in every document of a `newPage`
 * context (an init script); other pages get it injected once.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Colours sampled half-way through a transition (a button turning dark) are not the page's: wait, bounded at
  // 2 s, until every finite animation and transition has ended.
  await page
    .waitForFunction(
      () => document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).length === 0,
      undefined,
      { timeout: 2_000 },
    )
    .catch(() => undefined);
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== "undefined");
  if (!loaded) await page.addScriptTag({ path: axePath });
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      resultTypes: ["violations"],
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(" ")),
    }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

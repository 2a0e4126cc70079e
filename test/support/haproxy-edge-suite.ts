/**
 * Set-up of a Chromium suite on a real HAProxy (the approvals suites): HAProxy, the server (test/support/stack.ts)
 * and Chromium started together before all tests, the agent "edge" driving that HAProxy with its backend "proxy"
 * (haproxy-edge.ts), then the suite's own seed; fresh browser contexts; everything stopped after all tests, in
 * reverse order. Also what such a suite asks of HAProxy and the console.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { Browser, Page } from "playwright-core";
import { execa } from "execa";
import { DEFAULT_WEB_DIR } from "../../server/src/index.ts";
import { chromiumAvailable, launchBrowser, newPage } from "./browser.ts";
import type { PageOptions } from "./browser.ts";
import { openAdminConsole } from "./admin-console.ts";
import { startHaproxy } from "./haproxy.ts";
import type { HaproxyInstance } from "./haproxy.ts";
import { startHaproxyEdge } from "./haproxy-edge.ts";
import type { HaproxyEdge } from "./haproxy-edge.ts";
import { startStack } from "./stack.ts";
import type { Stack } from "./stack.ts";

/** Whether `haproxy -v` runs on this machine. */
export const haproxyAvailable: boolean = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;

/**
 * Whether a suite named `suite` (e.g. "approvals e2e") must be skipped: true, after a console.warn naming what is
 * missing, when Chromium or HAProxy is not installed.
 */
export function haproxyEdgeSuiteSkipped(suite: string): boolean {
  if (!chromiumAvailable) console.warn(`${suite}: SKIPPED: /usr/bin/chromium is not installed`);
  if (!haproxyAvailable) console.warn(`${suite}: SKIPPED: haproxy is not installed`);
  return !chromiumAvailable || !haproxyAvailable;
}

/** One suite's running parts; reading `stack`, `haproxy` or `backendId` before the suite's beforeAll throws. */
export interface HaproxyEdgeSuite {
  readonly stack: Stack;
  readonly haproxy: HaproxyInstance;
  /** The id of the backend "proxy" on HAProxy's runtime API socket, for the suite's ACLs. */
  readonly backendId: string;
  /** The HAProxy frontend guarded by `haproxy.aclId`: 403 unless the address is in that ACL. */
  readonly frontend: string;
  /** A fresh browser context (own cookies and storage) and its page. */
  fresh(opts?: PageOptions): Promise<Page>;
  /** A fresh page signed in to the admin console (its own admin session) on `path`, its h1 shown. */
  adminPage(path: string, opts?: PageOptions): Promise<Page>;
  /** Whether HAProxy's ACL `haproxy.aclId` holds `ip` (asked over the runtime API). */
  inHaproxy(ip: string): Promise<boolean>;
}

/**
 * Registers the suite's set-up and tear-down (call inside `describe`); `seed` runs at the end of the beforeAll,
 * once the agent is connected and the backend exists (it creates the suite's ACLs and users). Throws in the
 * beforeAll when the web app is not built.
 */
export function useHaproxyEdgeSuite(seed: (suite: HaproxyEdgeSuite) => Promise<void>): HaproxyEdgeSuite {
  let haproxy: HaproxyInstance | undefined;
  let stack: Stack | undefined;
  let browser: Browser | undefined;
  let edge: HaproxyEdge | undefined;
  const opened: { close(): Promise<void> }[] = [];
  const started = <T>(part: T | undefined, what: string): T => {
    if (part === undefined) throw new Error(`the ${what} is not started yet`);
    return part;
  };
  const suite: HaproxyEdgeSuite = {
    get stack() {
      return started(stack, "stack");
    },
    get haproxy() {
      return started(haproxy, "HAProxy");
    },
    get backendId() {
      return started(edge, "agent").backendId;
    },
    get frontend() {
      return `http://127.0.0.1:${suite.haproxy.frontendPort}/`;
    },
    fresh: async (opts: PageOptions = {}) => {
      const { context, page } = await newPage(started(browser, "browser"), opts);
      opened.push(context);
      return page;
    },
    adminPage: async (path: string, opts: PageOptions = {}) =>
      await openAdminConsole(await suite.fresh(opts), suite.stack.server.url, path),
    inHaproxy: async (ip: string) =>
      (await suite.haproxy.command(`show acl #${suite.haproxy.aclId}`))
        .split("\n")
        .some((l) => l.trim().endsWith(` ${ip}`)),
  };
  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_DIR, "index.html"))) throw new Error("web app not built: run npm run build");
    // Each part is kept as soon as it runs, so the afterAll stops it even when another failed to start.
    const starts = await Promise.allSettled([
      startHaproxy().then((h) => (haproxy = h)),
      startStack().then((s) => (stack = s)),
      launchBrowser().then((b) => (browser = b)),
    ]);
    for (const s of starts) if (s.status === "rejected") throw s.reason;
    edge = await startHaproxyEdge(suite.stack, suite.haproxy);
    await seed(suite);
  });
  afterAll(async () => {
    for (const context of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await edge?.agent.stop();
    await stack?.close();
    await haproxy?.stop();
  });
  return suite;
}

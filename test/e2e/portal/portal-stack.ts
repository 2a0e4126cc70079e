/**
 * The real stack the portal's Chromium tests run against: a real HAProxy on loopback, the server
 * (test/support/stack.ts) with two IP-discovery listeners on free ports, a real agent in-process
 * driving HAProxy, and a catalogue of ACLs and users for the portal's screens:
 *
 * - ACLs: "Team wiki" (the HAProxy ACL the frontend checks; category Default, shown as "Other"),
 *   20 more in the categories Databases, Monitoring, Remote desktop and Web, "Staff only" (disabled
 *   for the user: its IpExclusions deny 127.0.0.0/8), "Hidden helper" (HideFromUsers), and
 *   "Launchpad" (AutoBrowseUsers, with an http URL on this server), "Broken proxy" (a HAProxy backend
 *   at 127.0.0.1:1, where nothing listens: every grant fails on the agent).
 * - Users (password `<name>-password`): carol (22 visible ACLs and the hidden one, account valid 10
 *   more days), frank (Team wiki and Grafana), dave (TOTP on, not enrolled yet), erin (disabled:
 *   ValidUntil in the past), gina (only Launchpad), hank (Team wiki, sessions of 1 minute), ivan
 *   (Team wiki; for the sign-in throttle), jill (only Broken proxy).
 */
import { existsSync } from "node:fs";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, newPage } from "../../support/browser.ts";
import type { PageOptions } from "../../support/browser.ts";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { DEFAULT_WEB_DIR } from "../../../server/src/index.ts";
import { testTables } from "../../../server/src/testing/database.ts";
import { startDiscovery } from "../../../server/src/http/discovery.ts";
import type { DiscoveryListeners } from "../../../server/src/http/discovery.ts";
import { startHaproxy } from "../../support/haproxy.ts";
import type { HaproxyInstance } from "../../support/haproxy.ts";
import { startStack } from "../../support/stack.ts";
import { startHaproxyEdge } from "../../support/haproxy-edge.ts";
import type { Stack } from "../../support/stack.ts";

const { users } = testTables;

/** The ACLs of the catalogue by role; `others` are the 20 plain ones. */
export interface PortalAcls {
  wiki: string;
  grafana: string;
  others: string[];
  disabled: string;
  hidden: string;
  launchpad: string;
  broken: string;
}

/** A running portal stack. */
export interface PortalStack {
  stack: Stack;
  haproxy: HaproxyInstance;
  /** The HAProxy frontend guarded by the "Team wiki" ACL: 403 unless the address is granted. */
  frontend: string;
  discovery: DiscoveryListeners;
  acls: PortalAcls;
  /** The server's base URL (http://127.0.0.1:PORT). */
  url: string;
  /** Stops everything this started, in reverse order. */
  close(): Promise<void>;
}

/** The 20 plain ACLs: [Description, Category, URL]. */
const CATALOGUE: readonly (readonly [string, string, string])[] = [
  ["Grafana", "Monitoring", "https://grafana.example.com"],
  ["Prometheus", "Monitoring", "https://prometheus.example.com:9090"],
  ["Alertmanager", "Monitoring", ""],
  ["Uptime board", "Monitoring", "https://uptime.example.com"],
  ["Postgres primary", "Databases", ""],
  ["Postgres replica", "Databases", ""],
  ["Redis cache", "Databases", ""],
  ["ClickHouse", "Databases", "https://clickhouse.example.com:8443"],
  ["Jump host", "Remote desktop", "ssh://jump.example.com"],
  ["Finance desktop", "Remote desktop", "rdp://finance.example.com"],
  ["Build agent", "Remote desktop", ""],
  ["Design VM", "Remote desktop", ""],
  ["Intranet", "Web", "https://intranet.example.com"],
  ["Ticket desk", "Web", "https://tickets.example.com"],
  ["Git forge", "Web", "https://git.example.com"],
  ["Package mirror", "Web", "https://mirror.example.com"],
  ["Chat", "Web", "https://chat.example.com"],
  ["CI dashboard", "Web", "https://ci.example.com"],
  ["Staging app", "Web", "https://staging.example.com"],
  ["Status page", "Web", "https://status.example.com"],
];

/** Starts HAProxy, the server with two discovery listeners, the agent, and creates the catalogue. */
export async function startPortalStack(): Promise<PortalStack> {
  if (!existsSync(join(DEFAULT_WEB_DIR, "index.html"))) throw new Error("web app not built: run npm run build");
  const haproxy = await startHaproxy();
  const stack = await startStack();
  const discovery = await startDiscovery({ services: stack.server.services, host: "127.0.0.1", ports: [0, 0] });
  const { agent, agentId, backendId } = await startHaproxyEdge(stack, haproxy);
  const admin = stack.admin;
  const backend = { ID: backendId };
  const acl = (body: Record<string, unknown>) =>
    admin.ok<string>("POST", "/api/admin/acls", {
      BackendID: backend.ID,
      ClickToGrant: true,
      Config: { haproxy: { ID: haproxy.aclId } },
      ...body,
    });
  const wiki = await acl({ Description: "Team wiki", URL: "https://wiki.example.com" });
  const others: string[] = [];
  for (const [Description, Category, URL] of CATALOGUE) others.push(await acl({ Description, Category, URL }));
  const disabled = await acl({
    Description: "Staff only",
    Category: "Web",
    IpExclusions: {
      RestrictionType: "denyList",
      RfcType: "allow",
      Ranges: [{ Start: "127.0.0.0", End: "127.255.255.255" }],
    },
  });
  const hidden = await acl({ Description: "Hidden helper", HideFromUsers: true });
  const launchpad = await acl({
    Description: "Launchpad",
    AutoBrowseUsers: true,
    URL: `${stack.server.url}/launchpad-target`,
  });
  const grafana = others[0]!;
  const unreachable = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: "unreachable",
    AgentID: agentId,
    Config: { haproxy: { Protocol: "tcp", Address: "127.0.0.1:1" } },
  });
  const broken = await acl({ Description: "Broken proxy", BackendID: unreachable.ID });

  const user = (userName: string, aclIds: string[], extra: Record<string, unknown> = {}) =>
    admin.ok<string>("POST", "/api/admin/users", {
      Name: userName[0]!.toUpperCase() + userName.slice(1),
      UserName: userName,
      PlainPassword: `${userName}-password`,
      ConfirmPassword: `${userName}-password`,
      AclIds: aclIds,
      ...extra,
    });
  await user("carol", [wiki, ...others, disabled, hidden], {
    ValidUntil: new Date(Date.now() + 10 * 86_400_000 - 3_600_000).toISOString(),
  });
  await user("frank", [wiki, grafana]);
  await user("dave", [wiki], { TOTPEnabled: true });
  const erin = await user("erin", [wiki]);
  await stack.server.services.db
    .update(users)
    .set({ validUntil: Date.now() - 60_000 })
    .where(eq(users.id, erin));
  await user("gina", [launchpad]);
  await user("hank", [wiki], { Duration: 1 });
  await user("ivan", [wiki]);
  await user("jill", [broken]);

  return {
    stack,
    haproxy,
    frontend: `http://127.0.0.1:${haproxy.frontendPort}/`,
    discovery,
    acls: { wiki, grafana, others, disabled, hidden, launchpad, broken },
    url: stack.server.url,
    close: async () => {
      await agent.stop();
      await discovery.close();
      await stack.close();
      await haproxy.stop();
    },
  };
}

/** One portal suite's stack and Chromium, with fresh pages whose contexts are closed at the end. */
export interface PortalSuite {
  /** The stack (set once the suite's beforeAll ran). */
  stack(): PortalStack;
  /** A fresh browser context (own cookies and storage) and its page. */
  fresh(opts?: PageOptions): Promise<Page>;
}

/**
 * Registers the suite's set-up and tear-down (call inside `describe`): starts the portal stack and
 * Chromium together before all tests; closes every context, the browser and the stack after them.
 * A test during which a page reported a Content-Security-Policy violation fails (the portal must
 * work under its policy: no inline script or style, connections only where it allows).
 */
export function usePortalSuite(): PortalSuite {
  let stack: PortalStack | undefined;
  let browser: Browser | undefined;
  const opened: { close(): Promise<void> }[] = [];
  const cspViolations: string[] = [];
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startPortalStack(), launchBrowser()]);
  });
  afterEach(() => {
    expect(cspViolations.splice(0), "Content-Security-Policy violations").toEqual([]);
  });
  afterAll(async () => {
    for (const context of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.close();
  });
  return {
    stack: () => {
      if (!stack) throw new Error("the portal stack is not started yet");
      return stack;
    },
    fresh: async (opts: PageOptions = {}) => {
      if (!browser) throw new Error("the browser is not started yet");
      const { context, page } = await newPage(browser, opts);
      opened.push(context);
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) cspViolations.push(`${page.url()}: ${message.text()}`);
      });
      return page;
    },
  };
}

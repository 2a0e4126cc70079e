/**
 * Takes the screenshots of docs/admin-guide.md, docs/user-guide.md and README.md in Chromium
 * (issue #11 item 9, issue #9 item 18) and writes them as 1280×800 PNGs into docs/images/.
 *
 * It starts a real stack the way the end-to-end tests do (test/support/stack.ts): the server on
 * 127.0.0.1 with a fresh data directory and the roomy test licence, a real HAProxy on loopback, and
 * a real agent enrolled through the enrolment endpoint and connected (in-process, driving HAProxy).
 * It seeds agents, backends, Knocs, users, a group, an admin and an API key through the admin API,
 * lets a user grant a Knoc through the portal (HAProxy really lets the address in), and then visits
 * each screen. Everything it starts is stopped at the end, also when a step fails.
 *
 * usage: node scripts/screenshots.ts [--out DIR] [--only NAME[,NAME...]]
 * Needs /usr/bin/chromium, haproxy and a built web app (`npm run build`); exits 1 naming what failed.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import type { Browser, Page } from "playwright-core";
import { DEFAULT_WEB_DIR } from "../server/src/index.ts";
import { startAgent } from "../agent/src/daemon.ts";
import type { RunningAgent } from "../agent/src/daemon.ts";
import { loadConfig } from "../agent/src/config.ts";
import { KNOC_ICONS, knocIconUrl } from "../web/src/admin/lib/knoc-icons.ts";
import { chromiumAvailable, expectVisible, launchBrowser, newPage } from "../test/support/browser.ts";
import { startHaproxy } from "../test/support/haproxy.ts";
import type { HaproxyInstance } from "../test/support/haproxy.ts";
import { ApiClient, createAndEnrolAgent, startStack, waitFor } from "../test/support/stack.ts";
import type { Stack } from "../test/support/stack.ts";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const { values } = parseArgs({ options: { out: { type: "string" }, only: { type: "string" } } });
const outDir = resolve(values.out ?? join(repoRoot, "docs/images"));
const only = values.only ? new Set(values.only.split(",")) : undefined;

/** The viewport of every screenshot (pixels). */
const VIEWPORT = { width: 1280, height: 800 };

const icon = (id: string): string => knocIconUrl(KNOC_ICONS.find((i) => i.id === id) ?? KNOC_ICONS[0]!);

/** The Knocs on the HAProxy backend: [Description, Category, URL, icon]. */
const KNOCS: readonly (readonly [string, string, string, string])[] = [
  ["Team wiki", "Web", "https://wiki.example.com", "document"],
  ["Grafana", "Monitoring", "https://grafana.example.com", "chart"],
  ["Prometheus", "Monitoring", "https://prometheus.example.com:9090", "chart"],
  ["Postgres primary", "Databases", "", "database"],
  ["Redis cache", "Databases", "", "database"],
  ["Jump host", "Remote access", "ssh://jump.example.com", "terminal"],
  ["Finance desktop", "Remote access", "rdp://finance.example.com", "desktop"],
  ["Git forge", "Web", "https://git.example.com", "code"],
  ["Build farm", "Default", "", "server"],
];

interface Seeded {
  /** ACL id by Description. */
  acls: Map<string, string>;
  /** A user of the portal and their password. */
  user: { userName: string; password: string };
}

/** Creates what the screens show, through the admin API; `edgeId` is the connected agent. */
async function seed(stack: Stack, haproxy: HaproxyInstance, edgeId: string): Promise<Seeded> {
  const admin = stack.admin;
  // Agents: one enrolled but never connected, one created and awaiting its install.
  await createAndEnrolAgent(stack, "office-gateway", {
    ipset: { ipsets: [], command_available: true, sudo_enabled: true },
  });
  await admin.ok("POST", "/api/admin/agents", { Name: "branch-office" });

  const backend = await admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
    Name: "edge-haproxy",
    AgentID: edgeId,
    Config: { haproxy: { Protocol: "unix", Address: haproxy.socketPath } },
  });
  const acls = new Map<string, string>();
  for (const [Description, Category, URL, iconId] of KNOCS) {
    const id = await admin.ok<string>("POST", "/api/admin/acls", {
      BackendID: backend.ID,
      Description,
      Category,
      URL,
      Icon: icon(iconId),
      ClickToGrant: true,
      MaximumGrantDuration: 8 * 3600,
      Config: { haproxy: { ID: haproxy.aclId } },
    });
    acls.set(Description, id);
  }

  const user = (name: string, userName: string, company: string, aclIds: string[], extra = {}) =>
    admin.ok<string>("POST", "/api/admin/users", {
      Name: name,
      UserName: userName,
      Company: company,
      PlainPassword: `${userName}-password`,
      ConfirmPassword: `${userName}-password`,
      AclIds: aclIds,
      ...extra,
    });
  const all = [...acls.values()];
  const alice = await user("Alice Moreau", "alice.moreau", "Example Ltd", all);
  const bob = await user("Bob Tanaka", "bob.tanaka", "Example Ltd", all.slice(0, 4));
  await user("Chandra Rao", "chandra.rao", "Contractor GmbH", all.slice(5, 7), { TOTPEnabled: true });
  await user("Dana Kim", "dana.kim", "Example Ltd", [acls.get("Team wiki")!], { Duration: 60 });

  // An Application (passive allowlist) Knoc through the one creation call, with a new API key.
  await admin.ok("POST", "/api/admin/knocs", {
    Kind: "APPLICATION",
    WizardState: {
      userIds: [alice, bob],
      form: { Name: "partner-allowlist", Config: { allowlist: {} } },
      knocOptionsForm: {
        Description: "Partner firewall allowlist",
        Category: "Web",
        Icon: icon("shield"),
        ClickToGrant: true,
        MaximumGrantDuration: 3600,
      },
      apiKeyOption: "new",
      apiKeyForm: { Name: "partner-firewall" },
    },
  });
  await admin.ok("POST", "/api/admin/groups", {
    Name: "Engineering",
    Description: "Developers and on-call",
    Type: "local",
    ACLIDs: [acls.get("Grafana")!, acls.get("Git forge")!],
    UserIDs: [alice, bob],
  });
  await admin.ok("POST", "/api/admin/admins", {
    Name: "Sam Operator",
    UserName: "sam.operator",
    AuthType: "local",
    PlainPassword: "sam-operator-password",
    ConfirmPassword: "sam-operator-password",
  });
  await admin.ok("POST", "/api/admin/api-keys", {
    Name: "provisioning",
    Scopes: ["agent.register"],
    AllowedFrom: [{ Prefix: "10.20.0.0/16", Note: "config management" }],
    ExpiredAfter: new Date(Date.now() + 365 * 86_400_000).toISOString(),
  });
  // A little history for the home page and the audit log: bob signs in and grants over the API.
  const bobClient = new ApiClient(stack.server.url);
  await bobClient.ok("POST", "/api/login", { UserName: "bob.tanaka", Password: "bob.tanaka-password" });
  await bobClient.ok("POST", "/api/grant", { ACLID: acls.get("Grafana")!, IPs: [] });
  return { acls, user: { userName: "alice.moreau", password: "alice.moreau-password" } };
}

/** One screenshot: a name (the PNG's file name) and how to get the page there. */
interface Shot {
  name: string;
  take(page: Page): Promise<void>;
}

/** Waits for the page's h1 and a quiet network, then a frame for the fonts and transitions. */
async function settle(page: Page): Promise<void> {
  await expectVisible(page.getByRole("heading", { level: 1 }));
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
  await page.waitForTimeout(300);
}

async function main(): Promise<void> {
  if (!chromiumAvailable) throw new Error("/usr/bin/chromium is not installed (scripts/setup.sh --test installs it)");
  if (!existsSync(join(DEFAULT_WEB_DIR, "admin.html"))) throw new Error("web app not built: run npm run build");
  mkdirSync(outDir, { recursive: true });

  let haproxy: HaproxyInstance | undefined;
  let stack: Stack | undefined;
  let agent: RunningAgent | undefined;
  let browser: Browser | undefined;
  try {
    haproxy = await startHaproxy();
    stack = await startStack();
    const edge = await createAndEnrolAgent(
      stack,
      "edge-proxy",
      { haproxy: { socket_location: haproxy.socketPath } },
      { haproxySocket: haproxy.socketPath },
    );
    agent = await startAgent({ config: await loadConfig(edge.configPath), logger: pino({ level: "silent" }) });
    const connected = stack.server.services.hub;
    if (!(await waitFor(() => connected.isConnected(edge.agentId), 10_000)))
      throw new Error("the agent did not connect");
    const seeded = await seed(stack, haproxy, edge.agentId);
    const base = stack.server.url;
    browser = await launchBrowser();

    const admin = await signedInAdmin(browser, base);
    const portal = (await newPage(browser, { viewport: VIEWPORT })).page;
    const anonymous = (await newPage(browser, { viewport: VIEWPORT })).page;

    const adminPage = (name: string, path: string, then?: (page: Page) => Promise<void>): Shot => ({
      name,
      take: async (page) => {
        await page.goto(base + path);
        await settle(page);
        await then?.(page);
      },
    });
    const adminShots: Shot[] = [
      adminPage("admin-home", "/admin/home"),
      adminPage("admin-agents", "/admin/agents"),
      adminPage("admin-agent-created", "/admin/agents", async (page) => {
        await page.getByRole("button", { name: "Create agent" }).click();
        const dialog = page.getByRole("dialog", { name: "Create agent" });
        await dialog.getByLabel("Name").fill("dmz-firewall");
        await dialog.getByRole("button", { name: "Create" }).click();
        await expectVisible(page.getByRole("dialog", { name: "Install the agent" }).getByTestId("install-command"));
        await page.waitForTimeout(1_000);
      }),
      adminPage("admin-knocs", "/admin/knocs"),
      adminPage("admin-knoc-detail", "/admin/knocs", async (page) => {
        await page
          .getByRole("row")
          .filter({ has: page.getByRole("cell", { name: "Team wiki", exact: true }) })
          .getByRole("cell")
          .nth(1)
          .click();
        await expectVisible(page.getByRole("dialog"));
        await page.waitForTimeout(300);
      }),
      adminPage("admin-knoc-chooser", "/admin/knocs/new"),
      adminPage("admin-wizard-proxy", "/admin/knocs/new/proxy", async (page) => {
        // The single capable agent is chosen already: on to the Settings step.
        await page.getByRole("button", { name: "Next", exact: true }).click();
        await expectVisible(page.getByRole("heading", { name: "Settings" }));
        // The live card preview follows what is typed.
        await page.getByLabel("Description").fill("Staging app");
        await page.getByLabel("URL").fill("https://staging.example.com");
        await page.getByLabel("Category").fill("Web");
        await page.waitForTimeout(300);
      }),
      adminPage("admin-backends", "/admin/backends"),
      adminPage("admin-acls", "/admin/acls"),
      adminPage("admin-groups", "/admin/groups"),
      adminPage("admin-users", "/admin/users"),
      adminPage("admin-admins", "/admin/admins"),
      adminPage("admin-logs", "/admin/logs"),
      adminPage("admin-api-keys", "/admin/api-keys"),
      adminPage("admin-settings", "/admin/settings"),
    ];
    const portalShots: Shot[] = [
      {
        name: "portal-login",
        take: async (page) => {
          await page.goto(base + "/");
          await expectVisible(page.getByLabel("Username"));
          await page.waitForTimeout(300);
        },
      },
      {
        name: "portal-dashboard",
        take: async (page) => {
          await page.goto(base + "/");
          await page.getByLabel("Username").fill(seeded.user.userName);
          await page.getByLabel("Password").fill(seeded.user.password);
          await page.getByRole("button", { name: "Log in" }).click();
          await page.waitForURL(/\/home\/new$/);
          await settle(page);
          // Grant one Knoc for real (HAProxy lets the address in) and mark a favourite.
          const wiki = page.locator(`article[data-acl-id="${seeded.acls.get("Team wiki")!}"]`).first();
          await wiki.getByRole("button", { name: "Grant Access" }).click();
          await expectVisible(wiki.getByRole("button", { name: "Revoke Access" }), 15_000);
          const grafana = page.locator(`article[data-acl-id="${seeded.acls.get("Grafana")!}"]`).first();
          await grafana.getByRole("button", { name: "Favourite: Grafana" }).click();
          await page.mouse.move(1, 1);
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.waitForTimeout(500);
        },
      },
      {
        name: "portal-list",
        take: async (page) => {
          await page.getByRole("radio", { name: "List" }).check();
          await expectVisible(page.getByRole("table"));
          await page.waitForTimeout(300);
        },
      },
    ];
    const adminLogin: Shot = {
      name: "admin-login",
      take: async (page) => {
        await page.goto(base + "/admin");
        await expectVisible(page.getByLabel("Username"));
        await page.waitForTimeout(300);
      },
    };

    const failures: string[] = [];
    const run = async (page: Page, shot: Shot) => {
      if (only && !only.has(shot.name)) return;
      try {
        await shot.take(page);
        await page.screenshot({ path: join(outDir, `${shot.name}.png`), type: "png" });
        process.stderr.write(`screenshots: ${shot.name}.png\n`);
      } catch (err) {
        failures.push(`${shot.name}: ${(err as Error).message.split("\n")[0] ?? ""}`);
      }
    };
    await run(anonymous, adminLogin);
    for (const shot of portalShots) await run(portal, shot);
    for (const shot of adminShots) await run(admin, shot);
    if (failures.length > 0) throw new Error(`some screenshots failed:\n  ${failures.join("\n  ")}`);
  } finally {
    await browser?.close().catch(() => undefined);
    await agent?.stop().catch(() => undefined);
    await stack?.close().catch(() => undefined);
    await haproxy?.stop().catch(() => undefined);
  }
}

/** A page signed in as the stack's admin (its own admin session, by the API), like the admin e2e suites. */
async function signedInAdmin(browser: Browser, base: string): Promise<Page> {
  const { page } = await newPage(browser, { viewport: VIEWPORT });
  const api = new ApiClient(base);
  await api.ok("POST", "/api/admin/login", { UserName: "admin", Password: "admin-password" });
  const [name, value] = api.cookie.split("=", 2) as [string, string];
  await page.context().addCookies([{ name, value, url: base }]);
  return page;
}

main().then(
  () => process.stderr.write(`screenshots: written to ${outDir}\n`),
  (err: unknown) => {
    process.stderr.write(`screenshots: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);

/**
 * The New Knoc chooser and the four wizards in Chromium against the real server (issue #9 items 11,
 * 20; docs/reference.md admin-console §2 "New Knoc chooser", the Linux, Application, Proxy and Script wizards, "Common
 * wizard parts"; §4 wizard defaults; §5; §7 Knoc creation). Each wizard creates a Knoc that a user
 * then grants for real: Proxy on a real HAProxy through a real `postern-agent run`; Script through the
 * same agent running a real script that receives the Sensitive variable (never shown again); Linux on
 * a real ipset in a network namespace (fixed grant addresses, the namespace's client address);
 * Application (passive) read back from its allowlist URL with the one-time API key. Plus the
 * validation messages, the licence alert, German and axe.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { pino } from "pino";
import type { Page } from "playwright-core";
import { ExecaRunner } from "../../../agent/src/process/execa-runner.ts";
import { startAgent } from "../../../agent/src/daemon.ts";
import { loadConfig } from "../../../agent/src/config.ts";
import { testTables } from "../../../server/src/testing/database.ts";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import { httpGetFrom, startHaproxy } from "../../support/haproxy.ts";
import type { HaproxyInstance } from "../../support/haproxy.ts";
import { createNetnsPair, dropUnlessInSet, netnsRunner, netnsSupport } from "../../support/netns.ts";
import type { NetnsHttpServer, NetnsPair } from "../../support/netns.ts";
import { ApiClient, aclStatus, createAndEnrolAgent, createUser, spawnAgent, waitFor } from "../../support/stack.ts";
import type { AgentProcess, Stack } from "../../support/stack.ts";
import { expectAccessible, pathOf, useAdminSuite } from "./admin-suite.ts";

const { licenses } = testTables;

const hasHaproxy = (await execa("haproxy", ["-v"], { reject: false })).exitCode === 0;
const netns = await netnsSupport();
const hasIpset = (await execa("ipset", ["-v"], { reject: false })).exitCode === 0;
const linuxReady = netns.ok && hasIpset;
if (!chromiumAvailable) console.warn("admin wizards e2e: SKIPPED: /usr/bin/chromium is not installed");
if (!hasHaproxy) console.warn("admin wizards e2e: SKIPPED: no haproxy");
if (!linuxReady) console.warn(`admin wizards e2e: Linux wizard SKIPPED: ${netns.ok ? "no ipset" : netns.reason}`);

const USER_IP = "127.0.0.7";

describe.skipIf(!chromiumAvailable || !hasHaproxy)("New Knoc wizards in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  let haproxy: HaproxyInstance;
  let agent: AgentProcess;
  let alice: ApiClient;
  let scriptState = "";
  let scriptCommand = "";

  beforeAll(async () => {
    stack = suite.stack();
    haproxy = await startHaproxy();
    scriptCommand = join(stack.dir, "knoc.sh");
    scriptState = join(stack.dir, "granted");
    await writeFile(
      scriptCommand,
      `#!/bin/sh\nset -eu\ncase "$1" in\n  add) echo "$1 $2 $3 $PASSWORD" >> "$STATE" ;;\n  *) : ;;\nesac\n`,
    );
    await chmod(scriptCommand, 0o755);
    const edge = await createAndEnrolAgent(
      stack,
      "edge",
      { haproxy: { socket_location: haproxy.socketPath }, script: { enabled: true } },
      { haproxySocket: haproxy.socketPath, driftCheckSeconds: 1, scriptsEnabled: true },
    );
    // An agent without the haproxy or script capability: listed, disabled with the spec's tooltip.
    await createAndEnrolAgent(stack, "plain", {});
    agent = spawnAgent(edge.configPath);
    expect(await waitFor(() => stack.server.services.hub.isConnected(edge.agentId), 10_000)).toBe(true);
    await createUser(stack, "alice", "alice-password", []);
    alice = new ApiClient(stack.server.url, { localAddress: USER_IP });
    page = await suite.signedIn();
  });

  afterAll(async () => {
    await agent?.kill();
    await haproxy?.stop();
  });

  const next = () => page.getByRole("button", { name: "Next", exact: true }).click();
  const currentStep = () => page.getByRole("navigation", { name: "Wizard steps" }).locator('[aria-current="step"]');
  const expectStep = async (label: string) => expect.poll(() => currentStep().textContent()).toContain(label);
  const toast = (text: string) => page.getByTestId("toast").filter({ hasText: text });
  /** Alice signs in and grants; `status` is where the grant settles (0 Granted, 6 Published for an allowlist). */
  const aliceGrants = async (aclId: string, status = 0): Promise<void> => {
    await alice.ok("POST", "/api/login", { UserName: "alice", Password: "alice-password", KioskMode: false });
    await alice.ok("POST", "/api/grant", { ACLID: aclId, IPs: [] });
    expect(await waitFor(async () => (await aclStatus(alice, aclId)).Status === status, 10_000)).toBe(true);
  };
  const createdId = async (): Promise<string> => {
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs");
    const id = new URL(page.url()).searchParams.get("viewKnocId") ?? "";
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    return id;
  };

  it("shows the chooser: the question, the tiles, the modules dialog, the support link", async () => {
    await page.goto(suite.url() + "/admin/knocs/new");
    await expectVisible(page.getByRole("heading", { level: 1, name: "New Knoc" }));
    await expectVisible(page.getByRole("heading", { name: "I want to protect..." }));
    for (const tile of [
      "Linux host/firewall",
      "Firewalls/Appliances",
      "Identity Aware Proxy",
      "Knoc modules",
      "Custom script/API",
    ])
      await expectVisible(page.getByRole("button", { name: new RegExp(`^${tile.replace("/", "\\/")}`) }));
    await expectVisible(page.getByText("Need something else?"));
    await expectVisible(page.getByRole("link", { name: "Contact support" }));
    await expectAccessible(page, "chooser");
    await page.getByRole("button", { name: /^Knoc modules/ }).click();
    const modules = page.getByRole("dialog", { name: "Knoc modules" });
    await expectVisible(modules.getByText(/25 pre-packaged scripts/));
    await modules.getByRole("button", { name: "Close" }).click();
    expect(pathOf(page)).toBe("/admin/knocs/new");
  });

  it("creates a Proxy Knoc on a real HAProxy that a user then grants", async () => {
    expect(await httpGetFrom(USER_IP, `http://127.0.0.1:${haproxy.frontendPort}/`)).toBe(403);
    await page.goto(suite.url() + "/admin/knocs/new");
    await page.getByRole("button", { name: /^Identity Aware Proxy/ }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs/new/proxy");
    await expectVisible(page.getByRole("heading", { level: 1, name: "New proxy Knoc" }));
    await expect
      .poll(() => page.getByRole("navigation", { name: "Wizard steps" }).getByRole("listitem").count())
      .toBe(5);
    await expectStep("Agent");
    // Step 1: the only capable agent is chosen by itself; the other is disabled with the reason.
    await expect.poll(() => page.getByRole("radio", { name: "Choose edge" }).isChecked()).toBe(true);
    expect(await page.getByRole("radio", { name: "Choose plain" }).isDisabled()).toBe(true);
    await expectVisible(page.getByText("Agent is not capable of granting the Knoc type selected"));
    await expectAccessible(page, "proxy wizard, agent step");
    await next();

    // Step 2: the address follows the protocol until typed; the shared rules' messages.
    await expectStep("Settings");
    const address = page.getByLabel(/^Runtime API address/);
    await expect.poll(() => address.inputValue()).toBe(haproxy.socketPath);
    await page.getByLabel("Protocol").selectOption("tcp");
    await expect.poll(() => address.inputValue()).toBe("127.0.0.1:9999");
    await page.getByLabel("Protocol").selectOption("unix");
    await expect.poll(() => address.inputValue()).toBe(haproxy.socketPath);
    await expectVisible(page.getByRole("link", { name: "HAProxy Runtime API" }));
    await next();
    await expectVisible(page.getByText("Required"));
    await expectVisible(page.getByText("ACL ID is required"));
    await page.getByLabel(/^Description/).fill("Intranet");
    await page.getByLabel(/^ACL ID/).fill("abc");
    await next();
    await expectVisible(page.getByText("ACL ID must be a number"));
    await page.getByLabel(/^ACL ID/).fill(String(haproxy.aclId));
    await page.getByRole("radio", { name: "Database" }).click();
    await expectVisible(page.getByTestId("card-preview").getByText("Intranet"));
    await expectAccessible(page, "proxy wizard, settings step");
    await next();

    // Step 3: options — the duration rule, RFC1918 prefilled and locked, the preview's notes.
    await expectStep("Knoc options");
    await page.getByLabel("Maximum grant duration (minutes)").fill("3");
    await next();
    await expectVisible(page.getByText("The maximum grant duration for the ACL is invalid"));
    await page.getByLabel("Maximum grant duration (minutes)").fill("60");
    await page.getByLabel("Restriction type").selectOption("RFC1918");
    await expect.poll(() => page.getByLabel("Range 1 start").inputValue()).toBe("10.0.0.0");
    expect(await page.getByLabel("Range 3 end").inputValue()).toBe("192.168.255.255");
    expect(await page.getByLabel("Range 1 start").getAttribute("readonly")).not.toBeNull();
    await expectVisible(page.getByTestId("card-preview").getByText("Outside the allowed IP range"));
    await page.getByLabel("Restriction type").selectOption("none");
    expect(await page.getByLabel("Range 1 start").count()).toBe(0);
    await page.getByLabel(/^Open the URL for users automatically/).check();
    await expectVisible(page.getByTestId("card-preview").getByText(/Auto-browse is on/));
    await page.getByLabel(/^Open the URL for users automatically/).uncheck();
    await page.getByLabel(/^Click to grant/).check();
    await expectAccessible(page, "proxy wizard, options step");
    await next();

    // Step 4: users and groups; Back keeps what was typed.
    await expectStep("Users and groups");
    await page.getByRole("button", { name: "Back" }).click();
    await expectStep("Knoc options");
    expect(await page.getByLabel("Maximum grant duration (minutes)").inputValue()).toBe("60");
    await next();
    await expectVisible(page.getByText("There are no groups."));
    // Create a user in place: the list refreshes and the new user can be chosen.
    await page.getByRole("button", { name: "Create user" }).click();
    const userForm = page.getByRole("dialog", { name: "Create user" });
    await userForm.getByLabel(/^Name/).fill("Bob Builder");
    await userForm.getByLabel(/^Password/).fill("bob-password");
    await userForm.getByLabel("Confirm password").fill("bob-password");
    await expectAccessible(page, "proxy wizard, create user in place");
    await userForm.getByRole("button", { name: "Create" }).click();
    await expectVisible(toast("User created"));
    await expectStep("Users and groups");
    await page.getByRole("checkbox", { name: "Assign to Bob Builder" }).check();
    await page.getByRole("checkbox", { name: "Assign to alice" }).check();
    await expectAccessible(page, "proxy wizard, users step");
    await next();

    // Step 5: review, then create.
    await expectStep("Review and submit");
    const review = page.getByTestId("review");
    await expectVisible(review.getByText("Intranet").first());
    await expectVisible(review.getByText("60 minutes"));
    await expectVisible(review.getByText("edge"));
    await expectAccessible(page, "proxy wizard, review step");
    await page.getByRole("button", { name: "Create Knoc" }).click();
    await expectVisible(toast("Knoc created"));
    const id = await createdId();
    const knoc = await stack.admin.ok<{ Description: string; MaximumGrantDuration: number; UserCount: number }>(
      "GET",
      `/api/admin/knocs/${id}`,
    );
    expect(knoc).toMatchObject({ Description: "Intranet", MaximumGrantDuration: 3600, UserCount: 2 });

    await aliceGrants(id);
    expect(
      await waitFor(async () => (await httpGetFrom(USER_IP, `http://127.0.0.1:${haproxy.frontendPort}/`)) === 200),
    ).toBe(true);
  });

  it("creates a Script Knoc whose Sensitive variable reaches the script and is never shown again", async () => {
    await stack.admin.ok("POST", "/api/admin/groups", {
      Name: "ops",
      Type: "local",
      UserIDs: [
        (await stack.admin.ok<{ ID: string; UserName: string }[]>("GET", "/api/admin/users")).find(
          (u) => u.UserName === "alice",
        )!.ID,
      ],
    });
    await page.goto(suite.url() + "/admin/knocs/new");
    await page.getByRole("button", { name: /^Custom script\/API/ }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs/new/script");
    await expect
      .poll(() => page.getByRole("navigation", { name: "Wizard steps" }).getByRole("listitem").count())
      .toBe(6);
    await expect.poll(() => page.getByRole("radio", { name: "Choose edge" }).isChecked()).toBe(true);
    await next();
    await page.getByLabel(/^Description/).fill("Bastion");
    await page.getByLabel(/^Command or webhook URL/).fill("bin/knoc.sh");
    await page.getByLabel(/^ACL name/).fill("bad name");
    await next();
    await expectVisible(
      page.getByText("Command must be the full path of an executable or an http or https webhook URL"),
    );
    await page.getByLabel(/^Command or webhook URL/).fill(scriptCommand);
    await next();
    await expectVisible(page.getByText("Invalid ACL name"));
    await page.getByLabel(/^ACL name/).fill("bastion");
    await next();
    await expectStep("Knoc options");
    await next();

    // Step 4: variables — the §5 rules, then STATE and a Sensitive PASSWORD.
    await expectStep("Environment variables");
    await page.getByRole("button", { name: "Add variable" }).click();
    await page.getByLabel("Variable 1 name").fill("knoc_action");
    await page.getByLabel("Variable 1 value").fill("x");
    await next();
    await expectVisible(page.getByText("Invalid variable name"));
    await page.getByLabel("Variable 1 name").fill("STATE");
    await page.getByLabel("Variable 1 value").fill("");
    await next();
    await expectVisible(page.getByText("Required"));
    await page.getByLabel("Variable 1 value").fill(scriptState);
    await page.getByRole("button", { name: "Add PASSWORD" }).click();
    expect(await page.getByLabel("Variable 2 name").inputValue()).toBe("PASSWORD");
    expect(await page.getByLabel("Variable 2 value").getAttribute("type")).toBe("password");
    await page.getByLabel("Variable 2 value").fill("s3cret-value");
    await page.getByRole("button", { name: "Add variable" }).click();
    await page.getByLabel("Variable 3 name").fill("STATE");
    await page.getByLabel("Variable 3 value").fill("again");
    await next();
    await expectVisible(page.getByText("Variable names must be unique"));
    await page.getByRole("button", { name: "Remove" }).nth(2).click();
    await expectAccessible(page, "script wizard, variables step");
    await next();
    await expectStep("Users and groups");
    await expectVisible(page.getByRole("table", { name: "Local groups" }));
    await page.getByRole("checkbox", { name: "Assign to group ops" }).check();
    await expectAccessible(page, "script wizard, users and groups step");
    await next();

    await expectStep("Review and submit");
    const review = page.getByTestId("review");
    await expectVisible(review.getByText("ops"));
    await expectVisible(review.getByText("PASSWORD"));
    expect(await review.textContent()).not.toContain("s3cret-value");
    await expectVisible(review.getByText("••••••••"));
    await page.getByRole("button", { name: "Create Knoc" }).click();
    const id = await createdId();

    const knoc = await stack.admin.ok<{ AclConfig: { script: { EnvVars: Record<string, unknown> } } }>(
      "GET",
      `/api/admin/knocs/${id}`,
    );
    expect(knoc.AclConfig.script.EnvVars["PASSWORD"]).toEqual({ Value: "", Encrypted: true });
    // The wizard was reset: a new run starts empty.
    await page.goto(suite.url() + "/admin/knocs/new/script");
    await next();
    await expectVisible(page.getByLabel(/^Description/));
    expect(await page.getByLabel(/^Description/).inputValue()).toBe("");

    await aliceGrants(id);
    expect(
      await waitFor(async () => (await readFile(scriptState, "utf8").catch(() => "")).includes("s3cret-value")),
    ).toBe(true);
    expect(await readFile(scriptState, "utf8")).toContain(`add bastion ${USER_IP} s3cret-value`);
  });

  it("creates a passive Application Knoc read back from its allowlist URL with the one-time key", async () => {
    await page.goto(suite.url() + "/admin/knocs/new");
    await page.getByRole("button", { name: /^Firewalls\/Appliances/ }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs/new/application");
    await expectStep("Settings");
    const stepper = page.getByRole("navigation", { name: "Wizard steps" });
    expect(await stepper.locator('[data-step="agent"]').getAttribute("aria-disabled")).toBe("true");
    // Active disables 3.1 and defaults the vendor to fortinet; passive+ forces palo.
    await page.getByRole("radio", { name: /^Active/ }).check();
    expect(await page.getByLabel("Vendor").inputValue()).toBe("fortios");
    expect(await stepper.locator('[data-step="apiKey"]').getAttribute("aria-disabled")).toBe("true");
    await page.getByRole("radio", { name: /^Passive\+/ }).check();
    await expectVisible(page.getByLabel(/^External dynamic list name/));
    await page.getByRole("radio", { name: /^Allowlist \(Passive\)/ }).check();
    await page.getByLabel(/^Description/).fill("Partner EDL");
    await next();
    await expectStep("Knoc options");
    await next();

    await expectStep("API key");
    await page.getByLabel(/^Prefix 1/).fill("bad");
    await next();
    await expectVisible(page.getByText("Name is required"));
    await expectVisible(page.getByText("Invalid CIDR"));
    await page.getByLabel(/^API key name/).fill("edl-reader");
    await page.getByLabel(/^Prefix 1/).fill("127.0.0.0/8");
    await next();
    await expectVisible(page.getByText("Required"));
    await page.getByLabel(/^Note 1/).fill("loopback");
    // "none" needs at least one range and shows the security warning.
    await page.getByRole("radio", { name: "No API key" }).check();
    await expectVisible(page.getByText(/No username or password protects this allowlist/));
    await page.getByRole("button", { name: "Remove" }).click();
    await next();
    await expectVisible(page.getByText("At least one IP range must be present"));
    await expectAccessible(page, "application wizard, API key step");
    await page.getByRole("radio", { name: "Create a new API key" }).check();
    await next();
    // 3.2 (agent) is skipped for passive.
    await expectStep("Users and groups");
    await page.getByRole("checkbox", { name: "Assign to alice" }).check();
    await next();
    await expectStep("Review and submit");
    await expectVisible(page.getByTestId("review").getByText("New API key edl-reader"));
    await page.getByRole("button", { name: "Create Knoc" }).click();

    const created = page.getByRole("dialog", { name: "Knoc created" });
    await expectVisible(created);
    const key = (await created.getByTestId("created-api-key").textContent()) ?? "";
    const url = (await created.getByTestId("created-allowlist-url").textContent()) ?? "";
    expect(key).toMatch(/^pst_/);
    expect(url).toMatch(/\/api\/v1\/allowlists\/[0-9a-f-]{36}\/.+\.txt$/);
    await expectAccessible(page, "application wizard, created dialog");
    await created.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs");

    const aclId = /allowlists\/([0-9a-f-]{36})\//.exec(url)![1]!;
    await aliceGrants(aclId, 6);
    const read = await fetch(url, {
      headers: { Authorization: `Basic ${Buffer.from(`edl:${key}`).toString("base64")}` },
    });
    expect(read.status).toBe(200);
    expect((await read.text()).split("\n")).toContain(USER_IP);
    expect((await fetch(url)).status).not.toBe(200);
  });

  it("reuses an existing API key for a second allowlist, and walks an active Knoc past 3.1 to its agent", async () => {
    await page.goto(suite.url() + "/admin/knocs/new");
    await page.getByRole("button", { name: /^Firewalls\/Appliances/ }).click();
    await page.getByLabel(/^Description/).fill("Second EDL");
    await next();
    await next();
    await expectStep("API key");
    await page.getByRole("radio", { name: "Use an existing API key" }).check();
    expect(await page.getByRole("button", { name: "Next", exact: true }).isDisabled()).toBe(true);
    await page.getByRole("radio", { name: "Choose edl-reader" }).check();
    await next();
    await expectStep("Users and groups");
    await next();
    await expectVisible(page.getByTestId("review").getByText("Existing API key edl-reader"));
    await page.getByRole("button", { name: "Create Knoc" }).click();
    const created = page.getByRole("dialog", { name: "Knoc created" });
    await expectVisible(created.getByTestId("created-allowlist-url"));
    expect(await created.getByTestId("created-api-key").count()).toBe(0);
    await created.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs");
    const keys = await stack.admin.ok<{ Name: string; Scopes: string[] }[]>("GET", "/api/admin/api-keys");
    expect(keys.find((k) => k.Name === "edl-reader")?.Scopes).toHaveLength(2);

    // Active: fortinet by default with its own fields and rules; 3.1 is skipped both ways.
    await page.goto(suite.url() + "/admin/knocs/new");
    await page.getByRole("button", { name: /^Firewalls\/Appliances/ }).click();
    await page.getByRole("radio", { name: /^Active/ }).check();
    await page.getByLabel(/^Description/).fill("HQ firewall");
    await page.getByLabel("REST API URL").fill("ftp://fw.example.com");
    await expectVisible(page.getByRole("link", { name: "FortiGate REST API administrator" }));
    await next();
    await expectVisible(page.getByText("URL must be http or https"));
    await expectVisible(page.getByText("Required").first());
    await page.getByLabel("REST API URL").fill("https://fw.example.com");
    await page.getByLabel("API token").fill("token");
    await page.getByLabel(/^ACL name/).fill("postern_hq");
    await expectAccessible(page, "application wizard, active settings");
    await next();
    await expectStep("Knoc options");
    await next();
    await expectStep("Agent");
    await page.getByRole("button", { name: "Back" }).click();
    await expectStep("Knoc options");
  });

  describe.skipIf(!linuxReady)("Linux wizard on a real ipset in a network namespace", () => {
    let pair: NetnsPair;
    let http: NetnsHttpServer;
    let linuxAgent: Awaited<ReturnType<typeof startAgent>>;
    const set = `pstw${process.pid % 100000}`;
    let target = "";

    beforeAll(async () => {
      pair = await createNetnsPair();
      const ns = pair.server.ns;
      await pair.runOk(ns, "ipset", ["create", set, "hash:ip", "family", "inet", "timeout", "0"]);
      http = await pair.startHttpServer();
      await dropUnlessInSet(pair, http.port, set);
      target = `http://${pair.server.ip}:${http.port}/`;
      const { agentId, configPath } = await createAndEnrolAgent(
        stack,
        "firewall",
        { ipset: { command_available: true, sudo_enabled: true, ipsets: [{ name: set, address_family: "inet" }] } },
        { driftCheckSeconds: 1 },
      );
      linuxAgent = await startAgent({
        config: await loadConfig(configPath),
        runner: netnsRunner(new ExecaRunner(), ns),
        logger: pino({ level: "silent" }),
      });
      expect(await waitFor(() => stack.server.services.hub.isConnected(agentId), 10_000)).toBe(true);
    });

    afterAll(async () => {
      await linuxAgent?.stop();
      await http?.stop();
      await pair?.destroy();
    });

    it("creates a Linux Knoc that puts the granted address into the real set", async () => {
      expect((await pair.request(target, 700)).ok).toBe(false);
      await page.goto(suite.url() + "/admin/knocs/new");
      await page.getByRole("button", { name: /^Linux host\/firewall/ }).click();
      await expect.poll(() => pathOf(page)).toBe("/admin/knocs/new/linux");
      await expect
        .poll(() => page.getByRole("navigation", { name: "Wizard steps" }).getByRole("listitem").count())
        .toBe(5);
      // Two running agents find ipset here (edge on the host, firewall in the namespace): none is
      // chosen by itself and Next waits for a choice; "plain" reports no ipset command.
      await expectVisible(page.getByRole("radio", { name: "Choose firewall" }));
      expect(await page.getByRole("button", { name: "Next", exact: true }).isDisabled()).toBe(true);
      expect(await page.getByRole("radio", { name: "Choose plain" }).isDisabled()).toBe(true);
      await expectVisible(page.getByText("The agent has no ipset command").first());
      await page.getByRole("radio", { name: "Choose firewall" }).check();
      // Back from the first step goes to the chooser; a tile starts afresh.
      await page.getByRole("button", { name: "Back" }).click();
      await expect.poll(() => pathOf(page)).toBe("/admin/knocs/new");
      await page.getByRole("button", { name: /^Linux host\/firewall/ }).click();
      await page.getByRole("radio", { name: "Choose firewall" }).check();
      await next();
      await page.getByLabel(/^Description/).fill("SSH bastion");
      await next();
      await expectVisible(page.getByText("At least one ipset name is required"));
      await page.getByLabel(/^IPv4 set name/).fill("missing_set");
      await expectVisible(page.getByText(/did not report the set missing_set/));
      await page.getByLabel(/^IPv4 set name/).fill(set);
      expect(await page.getByText(/did not report the set/).count()).toBe(0);
      await next();
      await expectStep("Knoc options");
      // The grant carries the client namespace's address.
      await page.getByLabel("Addresses granted").selectOption("specifiedIps");
      await next();
      await expectVisible(page.getByText("Invalid IP address"));
      await page.getByRole("button", { name: "Add IP address" }).click();
      await page.getByLabel("IP address 1").fill("10.0.0.300");
      await next();
      await expectVisible(page.getByText("Invalid IP address"));
      await page.getByLabel("IP address 1").fill(pair.client.ip);
      await next();
      await page.getByRole("checkbox", { name: "Assign to alice" }).check();
      await next();
      await expectStep("Review and submit");
      await page.getByRole("button", { name: "Create Knoc" }).click();
      const id = await createdId();
      await aliceGrants(id);
      expect(await waitFor(async () => (await pair.request(target, 700)).ok, 10_000)).toBe(true);
    });
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE", colorScheme: "dark" });
    await german.goto(suite.url() + "/admin/knocs/new");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Neuer Knoc" }));
    await expectVisible(german.getByRole("heading", { name: "Ich möchte schützen..." }));
    await german.getByRole("button", { name: /^Identity Aware Proxy/ }).click();
    await expectVisible(german.getByRole("button", { name: "Weiter" }));
    await expectAccessible(german, "proxy wizard, German, dark");
  });

  it("shows the server's refusal in the error dialog and stays on the review step", async () => {
    await page.goto(suite.url() + "/admin/knocs/new");
    await page.getByRole("button", { name: /^Identity Aware Proxy/ }).click();
    await expect.poll(() => page.getByRole("radio", { name: "Choose edge" }).isChecked()).toBe(true);
    await next();
    await page.getByLabel(/^Description/).fill("Too late");
    await page.getByLabel(/^ACL ID/).fill("7");
    await next();
    await expectStep("Knoc options");
    await next();
    await expectStep("Users and groups");
    await next();
    await expectStep("Review and submit");
    // The licence goes away while the admin reviews: the server refuses the creation.
    await stack.server.services.db.delete(licenses);
    await page.getByRole("button", { name: "Create Knoc" }).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toBe("You do not have a license");
    await error.getByRole("button", { name: "Close" }).click();
    await expectStep("Review and submit");
    expect(pathOf(page)).toBe("/admin/knocs/new/proxy");
  });

  it("shows the licence alert and no steps without a licence", async () => {
    await stack.server.services.db.delete(licenses);
    const fresh = await suite.signedIn();
    await fresh.goto(suite.url() + "/admin/knocs/new/proxy");
    await expectVisible(fresh.getByTestId("wizard-unlicensed"));
    await expectVisible(fresh.getByTestId("wizard-unlicensed").getByText("You do not have a license"));
    expect(await fresh.getByRole("navigation", { name: "Wizard steps" }).count()).toBe(0);
    await expectAccessible(fresh, "wizard without a licence");
    await fresh.goto(suite.url() + "/admin/knocs/new");
    await expectVisible(fresh.getByRole("alert").getByText("You do not have a license"));
  });
});

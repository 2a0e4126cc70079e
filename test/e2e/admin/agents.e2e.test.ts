/**
 * The agents page in Chromium against the real server and a real agent (issue #9 items 9, 15, 21;
 * docs/reference.md admin-console §2 "Agents", §3 "Agent", §4 "Agent version", §5, §8): create → the install command
 * and token (copyable, "Copied" for 750 ms), awaiting connection, a real agent connecting (OS,
 * version, address without its port), the capabilities dialog, search and sort, rename, the
 * shared schema's "Required" and the server's duplicate-name refusal in the error dialog, delete
 * refused while a backend is attached, the incompatible version colour, German, axe.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { pino } from "pino";
import { enrol } from "../../../agent/src/enrol.ts";
import { startAgent } from "../../../agent/src/daemon.ts";
import { loadConfig } from "../../../agent/src/config.ts";
import { chromiumAvailable, expectVisible, seriousViolations } from "../../support/browser.ts";
import type { Stack } from "../../support/stack.ts";
import { expectAccessible, useAdminSuite } from "./admin-suite.ts";

if (!chromiumAvailable) console.warn("admin agents e2e: SKIPPED: /usr/bin/chromium is not installed");

describe.skipIf(!chromiumAvailable)("admin agents page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  /** The install token of "edge", shown once in the create dialog. */
  let edgeToken = "";
  const running: { stop(): Promise<void> }[] = [];
  beforeAll(async () => {
    stack = suite.stack();
    page = await suite.signedIn({ clipboardOrigin: suite.url() });
    await page.goto(suite.url() + "/admin/agents");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Agents" }));
  });
  afterAll(async () => {
    for (const agent of running) await agent.stop();
  });

  const table = () => page.getByRole("table", { name: "Agents" });
  const row = (name: string) =>
    table()
      .getByRole("row")
      .filter({ has: page.getByRole("cell", { name, exact: true }) });
  const dialog = (name: string) => page.getByRole("dialog", { name });
  const toast = (text: string) => page.getByTestId("toast").filter({ hasText: text });
  const noSerious = async (what: string) => expect(await seriousViolations(page), what).toEqual([]);

  it("shows the empty state, then creates an agent: install command and token, both copyable", async () => {
    await expectVisible(table().getByText("No agents yet. Create one and install it on a host."));
    await expectAccessible(page, "agents, empty");
    await page.getByRole("button", { name: "Create agent" }).click();
    await expectVisible(dialog("Create agent"));
    // The shared AgentWriteSchema refuses an empty name before any request.
    await dialog("Create agent").getByRole("button", { name: "Create" }).click();
    await expectVisible(dialog("Create agent").getByText("Required"));
    await dialog("Create agent").getByLabel("Name").fill("edge");
    await dialog("Create agent").getByRole("button", { name: "Create" }).click();

    const install = dialog("Install the agent");
    await expectVisible(install);
    await expectVisible(toast("Agent created"));
    const token = (await install.getByTestId("agent-token").textContent()) ?? "";
    expect(token.length).toBeGreaterThan(20);
    expect(await install.getByTestId("install-command").textContent()).toContain(token);
    await noSerious("install dialog");
    await install.getByRole("button", { name: "Copy token" }).click();
    const copiedAt = Date.now();
    await expectVisible(install.getByRole("button", { name: "Copied token" }));
    await expectVisible(install.getByRole("button", { name: "Copy token" }), 3000);
    const shown = Date.now() - copiedAt;
    expect(shown).toBeGreaterThanOrEqual(600);
    expect(shown).toBeLessThan(2000);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    await install.getByRole("button", { name: "Done" }).click();
    await expect.poll(() => install.count()).toBe(0);

    // Never connected: awaiting connection. The token was shown once: the server keeps only its hash.
    await expectVisible(row("edge").getByTestId("awaiting-connection"));
    expect(await page.getByRole("button", { name: "Copy the token of edge" }).count()).toBe(0);
    edgeToken = token;
    await expectAccessible(page, "agents, awaiting connection");
  });

  it("shows a real agent once it connects (within the 5 s refresh): OS, version, address without its port", async () => {
    const token = edgeToken;
    const configPath = join(stack.dir, "edge.json");
    await enrol({
      server: suite.url(),
      token,
      configPath,
      capabilities: {},
      version: "1.9.0",
      // The running agent reports what it detects: this HAProxy socket, ipset as found here.
      settings: { useSudo: false, haproxySocket: "/run/haproxy/admin.sock" },
    });
    running.push(
      await startAgent({ config: await loadConfig(configPath), logger: pino({ level: "silent" }), version: "1.9.0" }),
    );
    await expectVisible(row("edge").getByText("Connected"), 15_000);
    expect(await row("edge").locator("[data-version-state]").getAttribute("data-version-state")).toBe("upToDate");
    expect(await row("edge").getByTestId("agent-ip").textContent()).toBe("127.0.0.1");
    const raw = await stack.admin.ok<{ Name: string; ExternalIP: string }[]>("GET", "/api/admin/agents");
    expect(raw.find((a) => a.Name === "edge")!.ExternalIP).toMatch(/^127\.0\.0\.1(:\d+)?$/);

    // The capabilities cell opens its dialog; Escape closes it and gives the focus back.
    const cell = row("edge").getByRole("button", { name: "Capabilities of edge" });
    await cell.click();
    const caps = dialog("Capabilities of edge");
    await expectVisible(caps);
    await expectVisible(caps.getByText("/run/haproxy/admin.sock"));
    await expectVisible(caps.getByText("Operating system"));
    // nft is installed here (scripts/setup.sh): the agent reports nftables, the cell and the dialog show it.
    expect(await cell.textContent()).toContain("nftables");
    await expectVisible(caps.getByRole("term").filter({ hasText: /^nftables$/ }));
    await noSerious("capabilities dialog");
    await page.keyboard.press("Escape");
    await expect.poll(() => caps.count()).toBe(0);
    expect(await cell.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it("marks an agent below the minimum version incompatible, searches and sorts", async () => {
    const created = await stack.admin.ok<{ Token: string }>("POST", "/api/admin/agents", { Name: "branch-office" });
    await enrol({
      server: suite.url(),
      token: created.Token,
      configPath: join(stack.dir, "branch.json"),
      capabilities: { script: { enabled: true } },
      version: "1.8.2",
      settings: { useSudo: false },
    });
    await expectVisible(row("branch-office"), 15_000);
    await expect
      .poll(() => row("branch-office").locator("[data-version-state]").getAttribute("data-version-state"))
      .toBe("incompatible");
    expect(await row("branch-office").textContent()).toContain("(incompatible)");

    const names = async () => (await table().locator("tbody tr td:first-child").allTextContents()).map((s) => s.trim());
    expect(await names()).toEqual(["branch-office", "edge"]);
    await table().getByRole("button", { name: "Name" }).click();
    await expect.poll(names).toEqual(["edge", "branch-office"]);
    expect(
      await page.locator("th", { has: page.getByRole("button", { name: "Name" }) }).getAttribute("aria-sort"),
    ).toBe("descending");

    const search = page.getByRole("searchbox", { name: "Search" });
    await search.fill("bran");
    await expect.poll(names).toEqual(["branch-office"]);
    await search.fill("haproxy");
    await expect.poll(names).toEqual(["edge"]);
    await search.fill("script");
    await expect.poll(names).toEqual(["branch-office"]);
    await search.fill("nothing-like-this");
    await expectVisible(table().getByText("Nothing matches the search."));
    await search.fill("");
  });

  it("renames through the row menu; a duplicate name shows the server's error in the Error dialog", async () => {
    await page.getByRole("button", { name: "Actions for branch-office" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const edit = dialog("Edit agent");
    await expectVisible(edit);
    expect(await edit.getByLabel("Name").inputValue()).toBe("branch-office");
    await edit.getByLabel("Name").fill("edge");
    await edit.getByRole("button", { name: "Save" }).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toBe("An agent with that name already exists");
    await noSerious("error dialog");
    await error.getByRole("button", { name: "Close" }).click();
    await edit.getByLabel("Name").fill("branch");
    await edit.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("Agent updated"));
    await expectVisible(row("branch"));
  });

  it("refuses to delete an agent with a backend attached, and deletes it once detached", async () => {
    const agents = await stack.admin.ok<{ ID: string; Name: string }[]>("GET", "/api/admin/agents");
    const edge = agents.find((a) => a.Name === "edge")!;
    const backend = await stack.admin.ok<{ ID: string }>("POST", "/api/admin/backends", {
      Name: "proxy",
      AgentID: edge.ID,
      Config: { haproxy: { Protocol: "unix", Address: "/run/haproxy/admin.sock" } },
    });
    const remove = async () => {
      await page.getByRole("button", { name: "Actions for edge" }).click();
      await page.getByRole("menuitem", { name: "Delete" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Delete agent" });
      await expectVisible(confirm.getByText("Are you sure you want to delete edge?"));
      await confirm.getByRole("button", { name: "Delete" }).click();
    };
    await remove();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toBe(
      "Please detach all backends from this agent before deleting it",
    );
    await error.getByRole("button", { name: "Close" }).click();
    await expectVisible(row("edge"));

    await stack.admin.ok("DELETE", `/api/admin/backends/${backend.ID}`);
    await remove();
    await expectVisible(toast("Agent deleted"));
    await expect.poll(() => row("edge").count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE", colorScheme: "dark" });
    await german.goto(suite.url() + "/admin/agents");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Agenten" }));
    await expectVisible(german.getByRole("button", { name: "Agent anlegen" }));
    await expectVisible(german.getByRole("columnheader", { name: "Fähigkeiten" }));
    await expectAccessible(german, "agents, German, dark");
  });
});

/**
 * The Knocs list and Update Knoc in Chromium against the real server (issue #9 items 10 and 12;
 * docs/reference.md admin-console §2 "Knocs", "Update Knoc", §4 "Knoc update", §5): the empty state leading to the
 * chooser, the columns and the Details of each type, sorting, the detail dialog with the
 * verification commands of each type (also opened by viewKnocId), the update tabs (Variables only for
 * scripts), the §5 messages, the credentials asked again when a host changes, didUpdate's
 * confirmation, the server's refusal in the error dialog, delete with the question about a lone API
 * key, the unlicensed page, German, dark mode and axe. Knocs are created through the admin API
 * (POST /api/admin/knocs {Kind, WizardState}); the stack installs a licence.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import { createAndEnrolAgent, createUser } from "../../support/stack.ts";
import type { Stack } from "../../support/stack.ts";
import { testTables } from "../../../server/src/testing/database.ts";
import { issueTestLicence } from "../../../server/src/testing/licences.ts";
import { consoleParts, expectAccessible, pathOf, useAdminSuite } from "./admin-suite.ts";

const { licenses } = testTables;

if (!chromiumAvailable) console.warn("admin knocs e2e: SKIPPED: /usr/bin/chromium is not installed");

interface StoredKnoc {
  ID: string;
  Name: string;
  Description: string;
  MaximumGrantDuration: number | null;
  BackendConfig: Record<string, Record<string, unknown>>;
  AclConfig: Record<string, Record<string, unknown>>;
}

describe.skipIf(!chromiumAvailable)("admin Knocs pages in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  let agentId = "";
  let userId = "";
  const ids: Record<string, string> = {};
  const options = (Description: string) => ({ Description, ClickToGrant: true });

  const createKnoc = async (name: string, Kind: string, WizardState: Record<string, unknown>): Promise<void> => {
    const [id] = await stack.admin.ok<string[]>("POST", "/api/admin/knocs", { Kind, WizardState });
    ids[name] = id!;
  };
  const stored = async (name: string): Promise<StoredKnoc> =>
    stack.admin.ok<StoredKnoc>("GET", `/api/admin/knocs/${ids[name]}`);

  beforeAll(async () => {
    stack = suite.stack();
    ({ agentId } = await createAndEnrolAgent(stack, "edge", {
      ipset: { command_available: true, sudo_enabled: true, ipsets: [] },
      haproxy: { socket_location: "/run/haproxy/admin.sock" },
      script: { enabled: true },
    }));
    userId = await createUser(stack, "alice", "alice-password", []);
    page = await suite.signedIn();
  });

  const parts = () => consoleParts(page, "Knocs");
  const row = (name: string) =>
    parts()
      .table()
      .getByRole("row")
      .filter({ has: page.getByRole("button", { name, exact: true }) });
  const toast = (text: string) => parts().toast(text);
  const names = async (): Promise<string[]> =>
    (await parts().table().locator("tbody tr td:first-child").allTextContents()).map((s) => s.trim());
  const openList = async (): Promise<void> => {
    await page.goto(suite.url() + "/admin/knocs");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Knocs" }));
  };

  it("offers the chooser when there are no Knocs, and New Knoc leads there", async () => {
    await openList();
    await expectVisible(parts().table().getByText("No Knocs yet."));
    expect(await parts().table().getByRole("link", { name: "Choose what to protect" }).getAttribute("href")).toBe(
      "/admin/knocs/new",
    );
    expect(await page.getByRole("link", { name: "New Knoc" }).getAttribute("href")).toBe("/admin/knocs/new");
    await expectAccessible(page, "knocs, empty");
  });

  it("lists each kind with its Details, users, agent and who modified it; sorts by the columns", async () => {
    await createKnoc("SSH bastion", "LINUX", {
      agentId,
      userIds: [userId],
      form: { Name: "bastion-ipset", Config: { ipset: {} }, AclConfig: { ipset: { V4SetName: "postern4" } } },
      knocOptionsForm: { ...options("SSH bastion"), MaximumGrantDuration: 3600 },
    });
    await createKnoc("Intranet", "PROXY", {
      agentId,
      form: {
        Name: "intranet-proxy",
        Config: { haproxy: { Protocol: "unix", Address: "/run/haproxy/admin.sock" } },
        AclConfig: { haproxy: { ID: 7 } },
      },
      knocOptionsForm: options("Intranet"),
    });
    await createKnoc("Jump host", "SCRIPT", {
      agentId,
      form: {
        Name: "jump-script",
        Config: { script: { Command: "/usr/local/bin/knoc.sh" } },
        AclConfig: { script: { Name: "jump" } },
      },
      knocOptionsForm: options("Jump host"),
      envVarsForm: [
        { Name: "API_TOKEN", Value: "s3cret", Sensitive: true },
        { Name: "POLICY", Value: "ssh" },
      ],
    });
    await createKnoc("Vendor portal", "APPLICATION", {
      userIds: [userId],
      form: { Name: "vendor-list", Config: { allowlist: {} } },
      knocOptionsForm: options("Vendor portal"),
      apiKeyOption: "new",
      apiKeyForm: { Name: "vendor-key" },
    });
    await createKnoc("Head office firewall", "APPLICATION", {
      agentId,
      form: {
        Name: "hq-fortigate",
        Config: { fortios: { Url: "https://fw.example.com", Bearer: "first-token" } },
        AclConfig: { fortios: { Name: "postern_hq" } },
      },
      knocOptionsForm: options("Head office firewall"),
    });
    await openList();
    const cells = async (name: string) => (await row(name).getByRole("cell").allTextContents()).slice(0, 5);
    await expect
      .poll(() => cells("SSH bastion"))
      .toEqual(["SSH bastion", "Linux", "IPv4 set name: postern4", "1", "edge"]);
    expect(await cells("Intranet")).toEqual(["Intranet", "Proxy (HAProxy)", "HAProxy ACL ID: 7", "0", "edge"]);
    expect(await cells("Jump host")).toEqual([
      "Jump host",
      "Script",
      "Command or webhook URL: /usr/local/bin/knoc.sh · ACL name: jump",
      "0",
      "edge",
    ]);
    expect(await cells("Vendor portal")).toEqual([
      "Vendor portal",
      "Application (passive)",
      "Allowlist: Read with an API key",
      "1",
      "—",
    ]);
    expect(await cells("Head office firewall")).toEqual([
      "Head office firewall",
      "Application (active, Fortinet FortiGate (FortiOS))",
      "ACL name: postern_hq",
      "0",
      "edge",
    ]);
    expect(await row("Intranet").getByRole("cell").nth(5).textContent()).toMatch(/ by admin$/);

    // Default: by name. Users: ascending, then descending.
    expect(await names()).toEqual(["Head office firewall", "Intranet", "Jump host", "SSH bastion", "Vendor portal"]);
    await parts().table().getByRole("button", { name: "Name" }).click();
    expect((await names())[0]).toBe("Vendor portal");
    await parts().table().getByRole("button", { name: "Users" }).click();
    expect((await names()).slice(3)).toEqual(["SSH bastion", "Vendor portal"]);
    await parts().table().getByRole("button", { name: "Users" }).click();
    expect((await names()).slice(0, 2)).toEqual(["SSH bastion", "Vendor portal"]);
    await parts().table().getByRole("button", { name: "Agent" }).click();
    expect((await names())[0]).toBe("Vendor portal"); // no agent sorts first
    expect(await parts().table().getByRole("columnheader", { name: "Agent" }).getAttribute("aria-sort")).toBe(
      "ascending",
    );
    await expectAccessible(page, "knocs list");
  });

  it("opens the detail with the verification commands of each type on a row click, and by viewKnocId", async () => {
    await openList();
    await row("SSH bastion").getByRole("cell").nth(1).click();
    const linux = parts().dialog("SSH bastion");
    await expectVisible(linux.getByRole("heading", { name: "How to check that it works" }));
    expect(await linux.getByTestId("knoc-check-0").textContent()).toBe("sudo ipset list postern4");
    expect(new URL(page.url()).searchParams.get("viewKnocId")).toBe(ids["SSH bastion"]);
    await expectAccessible(page, "knoc detail");
    await linux.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("viewKnocId")).toBe(null);

    await row("Intranet").getByRole("button", { name: "Intranet", exact: true }).click();
    const proxy = parts().dialog("Intranet");
    expect(await proxy.getByTestId("knoc-check-0").textContent()).toBe(
      "echo 'show acl #7' | sudo socat stdio /run/haproxy/admin.sock",
    );
    await proxy.getByRole("button", { name: "Close" }).click();

    await row("Jump host").getByRole("button", { name: "Jump host", exact: true }).click();
    const script = parts().dialog("Jump host");
    expect(await script.getByTestId("knoc-check-0").textContent()).toBe(
      "sudo /usr/local/bin/knoc.sh add jump 192.0.2.10",
    );
    expect(await script.getByTestId("knoc-check-1").textContent()).toBe(
      "sudo /usr/local/bin/knoc.sh del jump 192.0.2.10",
    );
    await script.getByRole("button", { name: "Close" }).click();

    await page.goto(`${suite.url()}/admin/knocs?viewKnocId=${ids["Vendor portal"]}`);
    const passive = parts().dialog("Vendor portal");
    await expectVisible(passive);
    const url = (await passive.getByTestId("knoc-allowlist-url").textContent()) ?? "";
    expect(url).toMatch(new RegExp(`/api/v1/allowlists/${ids["Vendor portal"]}/[A-Za-z0-9_-]+\\.txt$`));
    expect(await passive.getByTestId("knoc-check-0").textContent()).toBe(`curl --user "key:$POSTERN_API_KEY" ${url}`);
    await passive.getByRole("link", { name: "Edit" }).click();
    await expect.poll(() => pathOf(page)).toBe(`/admin/knocs/${ids["Vendor portal"]}/update`);
  });

  it("shows a Passive+ Knoc's EDL check, and edits it through its hidden firewall child", async () => {
    await createKnoc("Palo EDL", "APPLICATION", {
      agentId,
      form: {
        Name: "palo",
        Config: { panos: { Hostname: "fw.example", ApiKey: "secret-key", VSys: "vsys1" } },
        AclConfig: { panos: { EDLName: "postern_edl", GroupName: "postern", URL: "https://postern.example/list" } },
      },
      knocOptionsForm: options("Palo EDL"),
      apiKeyOption: "none",
      allowlistAccessIpRestrictionForm: { AllowedFrom: [{ Prefix: "198.51.100.10/32", Note: "firewall" }] },
    });
    const parent = await stack.admin.ok<{ Children: string[] }>("GET", `/api/admin/knocs/${ids["Palo EDL"]}`);
    const child = parent.Children[0]!;
    await page.goto(`${suite.url()}/admin/knocs?viewKnocId=${ids["Palo EDL"]}`);
    const dialog = parts().dialog("Palo EDL");
    await expectVisible(dialog.getByText("Application (passive+)"));
    expect(await dialog.getByTestId("knoc-check-0").textContent()).toMatch(/^curl '?http/);
    await expectVisible(dialog.getByTestId("knoc-check-edl"));
    expect(await dialog.getByTestId("knoc-check-edl").textContent()).toBe(
      "request system external-list show type ip name postern_edl",
    );
    await dialog.getByRole("link", { name: "Edit" }).click();
    await expect.poll(() => pathOf(page)).toBe(`/admin/knocs/${child}/update`);
    await expectVisible(page.getByLabel("External dynamic list name"));
    expect(await page.getByLabel(/^Name/).inputValue()).toBe("palo");
    expect(await page.getByLabel("API key").getAttribute("placeholder")).toBe("RECORDED");
  });

  it("updates a Knoc: tabs without Variables for Linux, the §5 messages on their tab, then didUpdate's confirmation", async () => {
    await openList();
    await page.getByRole("button", { name: "Actions for SSH bastion" }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    await expect.poll(() => pathOf(page)).toBe(`/admin/knocs/${ids["SSH bastion"]}/update`);
    await expectVisible(page.getByRole("heading", { level: 1, name: "Update Knoc" }));
    expect(await page.getByRole("tab").allTextContents()).toEqual(["Settings", "Knoc options", "Users"]);
    expect(await page.getByLabel("IPv4 set name").inputValue()).toBe("postern4");
    await expectAccessible(page, "update knoc, settings");

    await page.getByLabel("IPv4 set name").fill("");
    await page.getByRole("tab", { name: "Knoc options" }).click();
    expect(await page.getByLabel("Maximum grant duration (minutes)").inputValue()).toBe("60");
    await page.getByLabel(/^Description/).fill("");
    await page.getByLabel("Maximum grant duration (minutes)").fill("3");
    await page.getByRole("button", { name: "Save" }).click();
    // The first tab with an error comes forward: the set names.
    await expectVisible(page.getByText("At least one ipset name is required"));
    expect(await page.getByRole("tab", { name: /Settings/ }).getAttribute("aria-selected")).toBe("true");
    await page.getByLabel("IPv4 set name").fill("postern_v4");
    await page.getByRole("button", { name: "Save" }).click();
    expect(await page.getByRole("tab", { name: /Knoc options/ }).getAttribute("aria-selected")).toBe("true");
    await expectVisible(page.getByText("Required"));
    await expectVisible(page.getByText("The maximum grant duration for the ACL is invalid"));
    await expectAccessible(page, "update knoc, options with errors");
    await page.getByLabel(/^Description/).fill("SSH bastion (prod)");
    await page.getByLabel("Maximum grant duration (minutes)").fill("90");
    await page.getByLabel("Restriction", { exact: true }).selectOption("allowList");
    await page.getByRole("button", { name: "Add range" }).click();
    await page.getByLabel("Start of range 1").fill("10.0.0.1");
    await page.getByLabel("End of range 1").fill("10.0.0.256");
    await page.getByRole("button", { name: "Save" }).click();
    await expectVisible(page.getByText("Invalid IP address"));
    await page.getByLabel("End of range 1").fill("10.0.0.255");

    await page.getByRole("tab", { name: "Users" }).click();
    expect(await page.getByLabel("alice (alice)").isChecked()).toBe(true);
    await page.getByLabel("alice (alice)").uncheck();
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs");
    await expectVisible(toast("Knoc updated successfully"));
    await expect.poll(() => new URL(page.url()).searchParams.get("didUpdate")).toBe(null);
    const knoc = await stored("SSH bastion");
    expect(knoc).toMatchObject({ Description: "SSH bastion (prod)", MaximumGrantDuration: 5400 });
    expect(knoc.AclConfig["ipset"]).toMatchObject({ V4SetName: "postern_v4" });
    await expectVisible(row("SSH bastion (prod)"));
    expect(await row("SSH bastion (prod)").getByRole("cell").nth(3).textContent()).toBe("0");
  });

  it("edits a script's variables on its own tab: a sensitive value stays RECORDED, a name needs a value, names unique", async () => {
    await page.goto(`${suite.url()}/admin/knocs/${ids["Jump host"]}/update`);
    await expectVisible(page.getByRole("tab", { name: "Variables" }));
    expect(await page.getByRole("tab").allTextContents()).toEqual(["Settings", "Knoc options", "Variables", "Users"]);
    await page.getByRole("tab", { name: "Variables" }).click();
    expect(await page.getByLabel("Name of variable 1").inputValue()).toBe("API_TOKEN");
    expect(await page.getByLabel("Value of variable 1").inputValue()).toBe("");
    expect(await page.getByLabel("Value of variable 1").getAttribute("placeholder")).toBe("RECORDED");
    expect(await page.getByLabel("Value of variable 2").inputValue()).toBe("ssh");
    await page.getByRole("button", { name: "Add variable" }).click();
    await page.getByLabel("Name of variable 3").fill("POLICY");
    await page.getByLabel("Value of variable 3").fill("rdp");
    await page.getByRole("button", { name: "Save" }).click();
    await expectVisible(page.getByText("Variable names must be unique"));
    await page.getByLabel("Name of variable 3").fill("REGION");
    await page.getByLabel("Value of variable 3").fill("");
    await page.getByRole("button", { name: "Save" }).click();
    await expectVisible(page.getByText("Required"));
    await expectAccessible(page, "update knoc, variables");
    await page.getByLabel("Value of variable 3").fill("eu");
    await page.getByRole("button", { name: "Save" }).click();
    await expectVisible(toast("Knoc updated successfully"));
    const knoc = await stored("Jump host");
    expect(knoc.AclConfig["script"]?.["EnvVars"]).toMatchObject({
      API_TOKEN: { Encrypted: true },
      POLICY: { Value: "ssh" },
      REGION: { Value: "eu" },
    });
  });

  it("asks for the credentials again when the firewall's URL changed, then saves", async () => {
    await page.goto(`${suite.url()}/admin/knocs/${ids["Head office firewall"]}/update`);
    await expectVisible(page.getByRole("tab", { name: "Settings" }));
    expect(await page.getByRole("tab").allTextContents()).toEqual(["Settings", "Knoc options", "Users"]);
    expect(await page.getByLabel("API token").getAttribute("placeholder")).toBe("RECORDED");
    await page.getByLabel("REST API URL").fill("ftp://fw2.example.com");
    await page.getByRole("button", { name: "Save" }).click();
    await expectVisible(page.getByText("URL must be http or https"));
    await page.getByLabel("REST API URL").fill("https://fw2.example.com");
    await page.getByRole("button", { name: "Save" }).click();
    const ask = parts().dialog("Re-enter credentials");
    await expectVisible(ask);
    await expectAccessible(page, "re-enter credentials");
    await ask.getByRole("button", { name: "Continue" }).click();
    await expectVisible(ask.getByText("Required"));
    await ask.getByLabel(/^API token/).fill("second-token");
    await ask.getByRole("button", { name: "Continue" }).click();
    await expect.poll(() => pathOf(page)).toBe("/admin/knocs");
    await expectVisible(toast("Knoc updated successfully"));
    const knoc = await stored("Head office firewall");
    expect(knoc.BackendConfig["fortios"]).toMatchObject({ Url: "https://fw2.example.com", Bearer: "" });
  });

  it("shows the server's refusal in the error dialog and keeps the form", async () => {
    await page.goto(`${suite.url()}/admin/knocs/${ids["Intranet"]}/update`);
    await expectVisible(page.getByLabel("HAProxy ACL ID"));
    // Another admin deletes the Knoc meanwhile.
    const doomed = ids["Intranet"]!;
    await stack.admin.ok("DELETE", `/api/admin/knocs/${doomed}`);
    await page.getByRole("button", { name: "Save" }).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toMatch(/^Not found/);
    await error.getByRole("button", { name: "Close" }).click();
    expect(pathOf(page)).toBe(`/admin/knocs/${doomed}/update`);
  });

  it("deletes a Knoc, asking whether its allowlist's lone API key goes too", async () => {
    await openList();
    await page.getByRole("button", { name: "Actions for Vendor portal" }).click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete Knoc" });
    await expectVisible(confirm.getByText("Are you sure you want to delete Vendor portal?"));
    await expectVisible(confirm.getByLabel("Also delete the API key vendor-key"));
    await expectAccessible(page, "delete knoc");
    await confirm.getByLabel("Also delete the API key vendor-key").check();
    await confirm.getByRole("button", { name: "Delete" }).click();
    await expectVisible(toast("Knoc deleted"));
    await expect.poll(() => row("Vendor portal").count()).toBe(0);
    const keys = await stack.admin.ok<{ Name: string }[]>("GET", "/api/admin/api-keys");
    expect(keys.map((k) => k.Name)).not.toContain("vendor-key");

    await page.getByRole("button", { name: "Actions for Jump host" }).click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    const plain = page.getByRole("alertdialog", { name: "Delete Knoc" });
    await expectVisible(plain.getByText("Are you sure you want to delete Jump host?"));
    expect(await plain.getByRole("checkbox").count()).toBe(0);
    await plain.getByRole("button", { name: "Cancel" }).click();
    await expectVisible(row("Jump host"));
  });

  it("speaks German, in dark mode", async () => {
    const german = await suite.signedIn({ locale: "de-DE", colorScheme: "dark" });
    await german.goto(`${suite.url()}/admin/knocs?viewKnocId=${ids["SSH bastion"]}`);
    await expectVisible(german.getByRole("heading", { level: 1, name: "Knocs" }));
    await expectVisible(german.getByRole("heading", { name: "So prüfen Sie, ob es wirkt" }));
    await expectAccessible(german, "knoc detail, German, dark");
    await german.getByRole("button", { name: "Schließen" }).first().click();
    expect(await german.getByRole("link", { name: "Neuer Knoc" }).getAttribute("href")).toBe("/admin/knocs/new");
    await german.goto(`${suite.url()}/admin/knocs/${ids["Jump host"]}/update`);
    await expectVisible(german.getByRole("tab", { name: "Variablen" }));
    await expectAccessible(german, "update knoc, German, dark");
  });

  it("without a licence, Update Knoc says so and links to the licence settings", async () => {
    await stack.server.services.db.delete(licenses);
    try {
      const fresh = await suite.signedIn();
      await fresh.goto(`${suite.url()}/admin/knocs/${ids["Jump host"]}/update`);
      const alert = fresh.getByRole("alert").filter({ hasText: "You do not have a license" });
      await expectVisible(alert);
      expect(await alert.getByRole("link", { name: "Install a license" }).getAttribute("href")).toBe("/admin/settings");
      expect(await fresh.getByRole("tab").count()).toBe(0);
    } finally {
      await stack.admin.ok("POST", "/api/admin/settings/license", { License: issueTestLicence({ UserLimit: 10_000 }) });
    }
  });
});

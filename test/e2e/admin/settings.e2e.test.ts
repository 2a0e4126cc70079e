/**
 * The settings page in Chromium against the real server (issue #9 item 14; docs/reference.md admin-console §2
 * "Settings", §3 settings entities, §4 dirty tracking and licence states, §5 "Settings"): the
 * licence (key form when none, the server's refusal, the summary and detail dialog with Refresh,
 * expired), each section saving and reading back after a reload, Cancel and Save enabled only when
 * changed with the changed section highlighted, each section's rule messages, SAML key pair
 * regeneration behind its confirmation, logos by drag and drop and removable, German, dark mode, axe.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import type { AuthenticationSettings, GeneralSettings } from "@postern/shared";
import { testTables } from "../../../server/src/testing/database.ts";
import { SERVER_VERSION } from "../../../server/src/services/admin-status.ts";
import { issueTestLicence, ROOMY_LICENCE } from "../../../server/src/testing/licences.ts";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import type { Stack } from "../../support/stack.ts";
import { consoleParts, expectAccessible, useAdminSuite } from "./admin-suite.ts";

const { licenses } = testTables;

if (!chromiumAvailable) console.warn("admin settings e2e: SKIPPED: /usr/bin/chromium is not installed");

const DAY_MS = 86_400_000;
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
/** A 1×1 JPEG. */
const JPEG_BASE64 =
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=";

describe.skipIf(!chromiumAvailable)("admin settings page in Chromium", () => {
  const suite = useAdminSuite();
  let stack: Stack;
  let page: Page;
  beforeAll(async () => {
    stack = suite.stack();
    page = await suite.signedIn();
    await open();
  });

  /** (Re)loads the settings page. */
  async function open(): Promise<void> {
    await page.goto(suite.url() + "/admin/settings");
    await expectVisible(page.getByRole("heading", { level: 1, name: "Settings" }));
    await expectVisible(section("ip-discovery"));
  }
  const section = (name: string): Locator => page.getByTestId(`settings-${name}`);
  const save = (s: Locator): Locator => s.getByRole("button", { name: "Save" });
  const cancel = (s: Locator): Locator => s.getByRole("button", { name: "Cancel" });
  const toast = (text: string) => consoleParts(page, "").toast(text);
  const general = () => stack.admin.ok<GeneralSettings>("GET", "/api/admin/settings");
  const authentication = () => stack.admin.ok<AuthenticationSettings>("GET", "/api/admin/settings/authentication");
  /** Saves `s` and waits for its toast (and the toast to go, so the next one is told apart). */
  async function saved(s: Locator, message = "Settings updated"): Promise<void> {
    await save(s).click();
    await expectVisible(toast(message));
    await expect.poll(() => save(s).isDisabled()).toBe(true);
  }

  it("shows the licence summary, and its detail dialog refreshes", async () => {
    await expectAccessible(page, "settings");
    const license = section("license");
    await expectVisible(license.getByRole("heading", { name: "License" }));
    expect(await license.getByTestId("license-server-version").textContent()).toBe(SERVER_VERSION);
    await expect.poll(() => license.getByTestId("license-users").textContent()).toBe("0 of 10000");
    expect(await license.getByTestId("license-days").textContent()).toBe("Never expires");
    await license.getByRole("button", { name: "License details" }).click();
    const details = page.getByRole("dialog", { name: "License details" });
    expect(await details.getByTestId("license-id").textContent()).toBe("test-roomy");
    expect(await details.getByTestId("license-session-limit").textContent()).toBe("1000");
    expect(await details.getByTestId("license-machines").textContent()).toBe("0 of 1000");
    await expectAccessible(page, "licence details");
    await details.getByRole("button", { name: "Refresh" }).click();
    await expectVisible(toast("License status refreshed"));
    await details.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => details.count()).toBe(0);
  });

  it("unlicensed: the key form, its rule, the server's refusal, then the summary", async () => {
    await stack.server.services.db.delete(licenses);
    await open();
    const form = section("license-key");
    await expectVisible(form.getByRole("heading", { name: "License" }));
    expect(await save(form).isDisabled()).toBe(true);
    await form.getByLabel("License key").fill("   ");
    expect(await form.getAttribute("data-dirty")).toBe("true");
    await save(form).click();
    await expectVisible(form.getByText("The licence key is not valid"));
    await form.getByLabel("License key").fill("not-a-licence");
    await save(form).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toContain("The licence key is not valid");
    await error.getByRole("button", { name: "Close" }).click();
    const key = issueTestLicence({
      ID: "acme",
      UserLimit: 25,
      Expires: new Date(Date.now() + 30 * DAY_MS).toISOString(),
    });
    await form.getByLabel("License key").fill(key);
    await expectAccessible(page, "licence key form");
    await save(form).click();
    await expectVisible(toast("License installed"));
    const summary = section("license");
    await expectVisible(summary);
    await expect.poll(() => summary.getByTestId("license-days").textContent()).toBe("30 days");
    await expect.poll(() => summary.getByTestId("license-users").textContent()).toBe("0 of 25");
    expect(await section("license-key").count()).toBe(0);
  });

  it("shows a licence whose expiry passed as expired, with the key form for a new one", async () => {
    const expires = new Date(stack.clock.now() + 60_000).toISOString();
    await stack.admin.ok("POST", "/api/admin/settings/license", {
      License: issueTestLicence({ ID: "short", Expires: expires }),
    });
    stack.clock.advance(120_000);
    try {
      await open();
      await expect.poll(() => section("license").getByTestId("license-days").textContent()).toBe("Expired");
      await expectVisible(section("license-key").getByRole("heading", { name: "New license key" }));
      await expectAccessible(page, "expired licence");
    } finally {
      stack.clock.advance(-120_000);
    }
    await stack.admin.ok("POST", "/api/admin/settings/license", { License: issueTestLicence(ROOMY_LICENCE) });
    await open();
    await expect.poll(() => section("license").getByTestId("license-days").textContent()).toBe("Never expires");
  });

  it("kiosk: Cancel and Save only when changed, the changed section highlighted, its rules, saved after reload", async () => {
    const kiosk = section("kiosk");
    const field = kiosk.getByLabel("Kiosk session duration (minutes)");
    expect(await field.inputValue()).toBe("30");
    expect(await save(kiosk).isDisabled()).toBe(true);
    expect(await cancel(kiosk).isDisabled()).toBe(true);
    expect(await kiosk.getAttribute("data-dirty")).toBeNull();
    await field.fill("45");
    expect(await save(kiosk).isDisabled()).toBe(false);
    expect(await cancel(kiosk).isDisabled()).toBe(false);
    expect(await kiosk.getAttribute("data-dirty")).toBe("true");
    expect(await section("logging").getAttribute("data-dirty")).toBeNull();
    await field.fill("30");
    await expect.poll(() => save(kiosk).isDisabled()).toBe(true);
    await field.fill("45");
    await cancel(kiosk).click();
    expect(await field.inputValue()).toBe("30");
    expect(await save(kiosk).isDisabled()).toBe(true);
    await field.fill("4");
    await field.blur();
    await save(kiosk).click();
    await expectVisible(kiosk.getByText("The kiosk session duration must be between 5 and 120 minutes"));
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await field.fill("");
    await save(kiosk).click();
    await expectVisible(kiosk.getByText("The kiosk session duration must be a number"));
    await field.fill("45");
    await saved(kiosk);
    expect((await general()).KioskSessionDuration).toBe(45);
    await open();
    expect(await section("kiosk").getByLabel("Kiosk session duration (minutes)").inputValue()).toBe("45");
  });

  it("IP discovery: the URL must be http or https; saved after reload", async () => {
    const s = section("ip-discovery");
    const before = (await general()).DiscoverIP;
    await s.getByLabel("Discover the user's IP address").setChecked(!before);
    await s.getByLabel("Discovery URL").fill("ftp://ip.example.com");
    await save(s).click();
    await expectVisible(s.getByText("URL must be http or https"));
    await s.getByLabel("Discovery URL").fill("https://ip.example.com/discover");
    await saved(s);
    expect(await general()).toMatchObject({ DiscoverIP: !before, DiscoverIPURL: "https://ip.example.com/discover" });
    await open();
    expect(await section("ip-discovery").getByLabel("Discover the user's IP address").isChecked()).toBe(!before);
    expect(await section("ip-discovery").getByLabel("Discovery URL").inputValue()).toBe(
      "https://ip.example.com/discover",
    );
  });

  it("logging: the GELF URL must be udp, tcp or tls; saved after reload", async () => {
    const s = section("logging");
    await s.getByLabel("Debug mode").check();
    await s.getByLabel("GELF listener URL").fill("http://graylog.example.com");
    await save(s).click();
    await expectVisible(s.getByText("URL must be udp, tcp, or tls"));
    await s.getByLabel("GELF listener URL").fill("udp://127.0.0.1:12201");
    await saved(s);
    expect(await general()).toMatchObject({ DebugMode: true, GELFListenerURL: "udp://127.0.0.1:12201" });
    await open();
    expect(await section("logging").getByLabel("Debug mode").isChecked()).toBe(true);
    expect(await section("logging").getByLabel("GELF listener URL").inputValue()).toBe("udp://127.0.0.1:12201");
    await stack.admin.ok("POST", "/api/admin/settings/config", { DebugMode: false, GELFListenerURL: "" });
  });

  it("additional client IP addresses: the ports' rules; saved after reload", async () => {
    const s = section("additional-ips");
    const ports = s.getByLabel("Discovery ports");
    expect(await ports.inputValue()).toBe("443, 222, 3389, 8000");
    await s.getByLabel("Discover additional client IP addresses").check();
    await ports.fill("443, 70000");
    await save(s).click();
    await expectVisible(s.getByText("Each port must be a number from 1 to 65535"));
    await ports.fill("443, 443");
    await expectVisible(s.getByText("A port must not be repeated"));
    await ports.fill("");
    await expectVisible(s.getByText("Name at least one port"));
    await ports.fill("443 8443");
    await saved(s);
    expect(await general()).toMatchObject({ AdditionalClientIPs: true, AdditionalClientIPPorts: [443, 8443] });
    await open();
    expect(await section("additional-ips").getByLabel("Discovery ports").inputValue()).toBe("443, 8443");
    expect(await section("additional-ips").getByLabel("Discover additional client IP addresses").isChecked()).toBe(
      true,
    );
  });

  it("UI: the new user dashboard switch is saved", async () => {
    const s = section("ui");
    const before = (await general()).NewUserDashboard;
    await s.getByLabel("New user dashboard").setChecked(!before);
    await saved(s);
    expect((await general()).NewUserDashboard).toBe(!before);
    await open();
    expect(await section("ui").getByLabel("New user dashboard").isChecked()).toBe(!before);
  });

  it("branding: accent, high accessibility, logos dropped or chosen (PNG or JPEG only) and removed", async () => {
    const s = section("branding");
    await s.getByLabel("Accent colour").selectOption("grape");
    await s.getByLabel("High accessibility mode").check();
    await dropFile(s.getByTestId("logo-dark"), "logo.gif", "image/gif", "R0lGODlhAQABAAAAACw=");
    await save(s).click();
    await expectVisible(s.getByText("The logo must be PNG or JPEG"));
    await s
      .getByLabel("Dark mode logo", { exact: true })
      .setInputFiles({ name: "dark.png", mimeType: "image/png", buffer: PNG });
    await dropFile(s.getByTestId("logo-light"), "light.jpg", "image/jpeg", JPEG_BASE64);
    await expectVisible(s.getByRole("img", { name: "Light mode logo preview" }));
    expect(await s.getByText("The logo must be PNG or JPEG").count()).toBe(0);
    await expectAccessible(page, "branding with logos");
    await saved(s);
    const stored = await general();
    expect(stored).toMatchObject({ Accent: "grape", HighAccessibility: true });
    expect(stored.Logo).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
    expect(stored.LightModeLogo.startsWith("data:image/jpeg;base64,")).toBe(true);
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.accent)).toBe("grape");

    await open();
    const after = section("branding");
    expect(await after.getByLabel("Accent colour").inputValue()).toBe("grape");
    expect(await after.getByLabel("High accessibility mode").isChecked()).toBe(true);
    await expectVisible(after.getByRole("img", { name: "Dark mode logo preview" }));
    await after.getByRole("button", { name: "Remove Dark mode logo" }).click();
    await expectVisible(after.getByTestId("logo-dark").getByText("No logo"));
    await after.getByLabel("Accent colour").selectOption("teal");
    await after.getByLabel("High accessibility mode").uncheck();
    await saved(after);
    expect(await general()).toMatchObject({ Logo: "", Accent: "teal", HighAccessibility: false });
    await open();
    await expectVisible(section("branding").getByTestId("logo-dark").getByText("No logo"));
    await expectVisible(section("branding").getByRole("img", { name: "Light mode logo preview" }));
  });

  it("SAML: the URL rules, the server's refusal of a bad key, saved after reload, key pair regeneration confirmed", async () => {
    const s = section("saml");
    // http: an https PublicURL makes the session cookies Secure, which this plain-http stack cannot send.
    await s.getByLabel("Public URL").fill("postern.example.com");
    await s.getByLabel("Admin metadata URL").fill("ftp://idp.example.com/metadata");
    await save(s).click();
    expect(await s.getByText("URL must be http or https").count()).toBe(2);
    await s.getByLabel("Public URL").fill("http://postern.example.com");
    await s.getByLabel("Admin metadata URL").fill("https://idp.example.com/admin-metadata");
    await s.getByLabel("Upload Key file", { exact: true }).setInputFiles({
      name: "sp.key",
      mimeType: "application/x-pem-file",
      buffer: Buffer.from("not a key"),
    });
    await expectVisible(s.getByText("New file chosen"));
    await save(s).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toContain("SAMLKeyFile");
    await error.getByRole("button", { name: "Close" }).click();
    await cancel(s).click();
    expect(await s.getByLabel("Public URL").inputValue()).toBe("");
    await s.getByLabel("Public URL").fill("http://postern.example.com");
    await s.getByLabel("Admin metadata URL").fill("https://idp.example.com/admin-metadata");
    await saved(s, "Authentication updated");
    expect(await authentication()).toMatchObject({
      PublicURL: "http://postern.example.com",
      AdminSAMLMetadataURL: "https://idp.example.com/admin-metadata",
      SAMLKeyFileSet: false,
    });

    await open();
    const after = section("saml");
    expect(await after.getByLabel("Public URL").inputValue()).toBe("http://postern.example.com");
    await after.getByRole("button", { name: "Generate user key pair" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Generate key pair" });
    await expectVisible(confirm.getByText(/^Are you absolutely sure\? This action cannot be undone\./));
    await expectAccessible(page, "key pair confirmation");
    await confirm.getByRole("button", { name: "Generate" }).click();
    await expectVisible(toast("SAML key pair generated for users"));
    const cert = page.getByRole("dialog", { name: "New certificate" });
    expect(await cert.getByTestId("saml-cert-user").textContent()).toContain("BEGIN CERTIFICATE");
    await cert.getByRole("button", { name: "Close" }).click();
    expect(await authentication()).toMatchObject({ SAMLKeyFileSet: true, SAMLCertFileSet: true });
    await expectVisible(after.getByLabel("Remove Key file", { exact: true }));
  });

  it("LDAP: the URL must be ldap or ldaps; saved after reload", async () => {
    await page.getByRole("tab", { name: "LDAP" }).click();
    const s = section("ldap");
    await s.getByLabel("LDAP URL").fill("http://ldap.example.com");
    await save(s).click();
    await expectVisible(s.getByText("URL must be ldap or ldaps"));
    await s.getByLabel("LDAP URL").fill("ldaps://ldap.example.com");
    await s.getByLabel("Use StartTLS").check();
    await expectAccessible(page, "LDAP tab");
    await saved(s, "Authentication updated");
    expect(await authentication()).toMatchObject({ LDAPURL: "ldaps://ldap.example.com", LDAPStartTLS: true });
    await open();
    await page.getByRole("tab", { name: "LDAP" }).click();
    expect(await section("ldap").getByLabel("LDAP URL").inputValue()).toBe("ldaps://ldap.example.com");
    expect(await section("ldap").getByLabel("Use StartTLS").isChecked()).toBe(true);
  });

  it("LDAP: a CA certificate is uploaded (the server refuses one that is not), kept, and removed", async () => {
    const s = section("ldap");
    const upload = s.getByLabel("Upload LDAP CA certificate");
    await upload.setInputFiles({ name: "ca.pem", mimeType: "application/x-pem-file", buffer: Buffer.from("junk") });
    await expectVisible(s.getByText("New file chosen"));
    await save(s).click();
    const error = page.getByRole("alertdialog", { name: "Error" });
    await expectVisible(error);
    expect(await error.getByTestId("error-text").textContent()).toContain("LDAPCACertificate");
    await error.getByRole("button", { name: "Close" }).click();
    const { Cert } = await stack.admin.ok<{ Cert: string }>("POST", "/api/admin/settings/generateAdminSamlKeyCert");
    await upload.setInputFiles({ name: "ca.pem", mimeType: "application/x-pem-file", buffer: Buffer.from(Cert) });
    await saved(s, "Authentication updated");
    expect(await s.getAttribute("data-dirty")).toBeNull();
    await expectVisible(s.getByText("Stored"));
    expect((await authentication()).LDAPCACertificateSet).toBe(true);
    await s.getByLabel("Remove LDAP CA certificate").check();
    await saved(s, "Authentication updated");
    expect((await authentication()).LDAPCACertificateSet).toBe(false);
    await expect.poll(() => s.getByLabel("Remove LDAP CA certificate").count()).toBe(0);
  });

  it("speaks German", async () => {
    const german = await suite.signedIn({ locale: "de-DE", colorScheme: "dark" });
    await german.goto(suite.url() + "/admin/settings");
    await expectVisible(german.getByRole("heading", { level: 1, name: "Einstellungen" }));
    await expectVisible(german.getByRole("heading", { name: "Lizenz" }));
    await expectVisible(german.getByRole("heading", { name: "Authentifizierung" }));
    await expectVisible(german.getByLabel("Dauer der Kiosk-Sitzung (Minuten)"));
    await german.getByLabel("Dauer der Kiosk-Sitzung (Minuten)").fill("200");
    await german.getByTestId("settings-kiosk").getByRole("button", { name: "Speichern" }).click();
    await expectVisible(german.getByText("Die Dauer der Kiosk-Sitzung muss zwischen 5 und 120 Minuten liegen"));
    await expectAccessible(german, "settings, German, dark");
  });

  /** Drops a file of `type` (contents base64) on `target` as a drag and drop would. */
  async function dropFile(target: Locator, name: string, type: string, base64: string): Promise<void> {
    const transfer = await page.evaluateHandle(
      ({ name, type, base64 }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], name, { type }));
        return data;
      },
      { name, type, base64 },
    );
    await target.dispatchEvent("dragover", { dataTransfer: transfer });
    await target.dispatchEvent("drop", { dataTransfer: transfer });
  }
});

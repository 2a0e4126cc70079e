/**
 * Passkeys as a second factor in a real Chromium against the real server (issue #14 item 2, test item 6;
 * docs/decisions.md "Passkeys"), with Chromium's virtual WebAuthn authenticator (DevTools protocol
 * `WebAuthn` domain: ctap2, internal transport, resident keys, user verification) on the page's CDP
 * session. A user enrols a passkey from the dashboard, signs out, signs in with password and passkey;
 * a removed passkey is refused while the other still works; an admin does the same from "My passkeys".
 *
 * WebAuthn needs a secure context and a domain as RP id (Chromium refuses IP addresses), so the
 * pages load from http://localhost:<port> — PublicURL is empty, the RP id is the request's host.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_WEB_DIR } from "../../server/src/index.ts";
import { testTables } from "../../server/src/testing/database.ts";
import { chromiumAvailable, expectVisible, launchBrowser, newPage, seriousViolations } from "../support/browser.ts";
import type { Admin, User } from "@postern/shared";
import { createUser, startStack } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";
import type { PageOptions } from "../support/browser.ts";

const { auditLog } = testTables;

if (!chromiumAvailable) console.warn("passkeys e2e: SKIPPED: /usr/bin/chromium is not installed");

/** A credential as the WebAuthn domain exports and imports it. */
interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

/** Adds a virtual platform authenticator (ctap2, internal, resident keys, verified user) to the page. */
async function addAuthenticator(cdp: CDPSession): Promise<string> {
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

async function credentials(cdp: CDPSession, authenticatorId: string): Promise<VirtualCredential[]> {
  return (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials as VirtualCredential[];
}

describe.skipIf(!chromiumAvailable)("passkeys in Chromium", () => {
  let stack: Stack;
  let browser: Browser;
  let base = "";
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_DIR, "index.html"))) throw new Error("web app not built: run npm run build");
    stack = await startStack();
    base = stack.server.url.replace("127.0.0.1", "localhost");
    await createUser(stack, "paula", "paula-password", []);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await stack?.close();
  });

  /** A fresh page with the WebAuthn domain on and one virtual authenticator. */
  async function fresh(opts: PageOptions = {}): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
    const { context, page } = await newPage(browser, opts);
    contexts.push(context);
    const cdp = await context.newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    return { page, cdp, authenticatorId: await addAuthenticator(cdp) };
  }

  async function userSignIn(page: Page): Promise<void> {
    await page.goto(base + "/");
    await page.getByLabel("Username").fill("paula");
    await page.getByLabel("Password").fill("paula-password");
    await page.getByRole("button", { name: "Log in" }).click();
  }

  async function enrolInDialog(page: Page, name: string): Promise<void> {
    const dialog = page.getByTestId("passkeys-dialog");
    await dialog.getByLabel("Passkey name").fill(name);
    await dialog.getByRole("button", { name: "Add passkey" }).click();
    await expectVisible(dialog.getByRole("listitem").filter({ hasText: name }));
  }

  it("a user enrols passkeys, signs in with password and passkey; a removed passkey is refused", async () => {
    const { page, cdp, authenticatorId: first } = await fresh();
    await userSignIn(page);
    await page.waitForURL(/\/home\/new$/);
    await page.getByRole("button", { name: "Passkeys" }).click();
    const dialog = page.getByTestId("passkeys-dialog");
    await expectVisible(dialog.getByText("No passkeys yet."));
    // The name is required (checked before any ceremony).
    await dialog.getByRole("button", { name: "Add passkey" }).click();
    await expectVisible(dialog.getByText("Name is required"));
    expect(await credentials(cdp, first)).toHaveLength(0);
    await enrolInDialog(page, "Old laptop");
    const [oldCredential] = await credentials(cdp, first);
    expect(oldCredential).toMatchObject({ isResidentCredential: true, rpId: "localhost" });
    expect(await seriousViolations(page), "passkeys dialog").toEqual([]);

    // A second passkey on another authenticator (the first one is put away, its credential kept).
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: first });
    const second = await addAuthenticator(cdp);
    await enrolInDialog(page, "Phone");
    await expect.poll(async () => (await credentials(cdp, second)).length).toBe(1);
    // The old credential comes back into this authenticator, then its passkey is removed on the server.
    // (As a non-resident credential: the authenticator keeps one resident credential per user handle.)
    const { userHandle: _handle, ...withoutHandle } = oldCredential!;
    await cdp.send("WebAuthn.addCredential", {
      authenticatorId: second,
      credential: { ...withoutHandle, isResidentCredential: false },
    });
    await dialog.getByRole("button", { name: "Remove passkey Old laptop" }).click();
    await expect.poll(async () => await dialog.getByRole("listitem").count()).toBe(1);
    await expectVisible(dialog.getByRole("listitem").filter({ hasText: "Phone" }));
    await dialog.getByRole("button", { name: "Close" }).click();
    await page.getByRole("button", { name: "Logout" }).click();
    await expectVisible(page.getByLabel("Username"));

    // Password, then the second factor: a passkey only, so no code field.
    await userSignIn(page);
    await page.waitForURL(/\/otp\/verify$/);
    await expectVisible(page.getByText("Confirm your sign-in with your passkey."));
    expect(await page.getByLabel("Code").count()).toBe(0);
    expect(await seriousViolations(page), "2FA page with a passkey").toEqual([]);

    // The removed passkey, offered as if the server still allowed it, is refused by the server.
    await page.route("**/api/otp/passkeys/authentication/options", async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { Options: { allowCredentials: { id: string }[] }; Totp: boolean };
      const oldId = Buffer.from(oldCredential!.credentialId, "base64").toString("base64url");
      body.Options.allowCredentials = [{ id: oldId, type: "public-key" } as { id: string }];
      await route.fulfill({ response, json: body });
    });
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await expectVisible(page.getByRole("alert").filter({ hasText: "Passkey not accepted" }));
    await page.unroute("**/api/otp/passkeys/authentication/options");

    // The remaining passkey completes the sign-in.
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.waitForURL(/\/home\/new$/);
    const audit = await stack.server.services.db.select().from(auditLog);
    expect(audit.filter((a) => a.action === "passkeyUsed")).toMatchObject([
      { userName: "paula", description: "Phone" },
    ]);
    expect(audit.filter((a) => a.action === "passkeyFailed")).toMatchObject([
      { userName: "paula", errorMessage: "unknown credential" },
    ]);
  });

  it("an admin enrols a passkey on My passkeys and signs in with it", async () => {
    const { page, cdp, authenticatorId } = await fresh();
    const adminSignIn = async () => {
      await page.goto(base + "/admin");
      await page.getByLabel("Username").fill("admin");
      await page.getByLabel("Password").fill("admin-password");
      await page.getByRole("button", { name: "Log in" }).click();
    };
    await adminSignIn();
    await page.waitForURL(/\/admin\/home$/);
    await page.getByRole("link", { name: "My passkeys" }).click();
    await expectVisible(page.getByRole("heading", { name: "My passkeys" }));
    await expectVisible(page.getByText("No passkeys yet."));
    await page.getByLabel("Passkey name").fill("Admin key");
    await page.getByRole("button", { name: "Add passkey" }).click();
    await expectVisible(page.getByRole("listitem").filter({ hasText: "Admin key" }));
    expect(await credentials(cdp, authenticatorId)).toHaveLength(1);
    expect(await seriousViolations(page), "my passkeys").toEqual([]);
    await page.getByRole("button", { name: "Logout" }).click();
    await page.waitForURL(/\/admin$/);

    await adminSignIn();
    await page.waitForURL(/\/admin\/otp\/verify$/);
    await expectVisible(page.getByText("Confirm your sign-in with your passkey."));
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.waitForURL(/\/admin\/home$/);
    expect((await credentials(cdp, authenticatorId))[0]!.signCount).toBeGreaterThan(0);

    // Removed: the next sign-in owes no second factor.
    await page.getByRole("link", { name: "My passkeys" }).click();
    await page.getByRole("button", { name: "Remove passkey Admin key" }).click();
    await expectVisible(page.getByText("No passkeys yet."));
    await page.getByRole("button", { name: "Logout" }).click();
    await page.waitForURL(/\/admin$/);
    await adminSignIn();
    await page.waitForURL(/\/admin\/home$/);
  });

  it("speaks German on the passkey screens and passes axe in dark mode", async () => {
    await createUser(stack, "greta", "greta-password", []);
    const { page } = await fresh({ locale: "de-DE", colorScheme: "dark" });
    const signIn = async () => {
      await page.goto(base + "/");
      await page.getByLabel("Benutzername").fill("greta");
      await page.getByLabel("Passwort").fill("greta-password");
      await page.getByRole("button", { name: "Anmelden" }).click();
    };
    await signIn();
    await page.waitForURL(/\/home\/new$/);
    await page.getByRole("button", { name: "Passkeys" }).click();
    const dialog = page.getByTestId("passkeys-dialog");
    await expectVisible(dialog.getByText("Noch keine Passkeys."));
    await dialog.getByLabel("Name des Passkeys").fill("Laptop");
    await dialog.getByRole("button", { name: "Passkey hinzufügen" }).click();
    await expectVisible(dialog.getByRole("button", { name: "Passkey Laptop entfernen" }));
    await expectVisible(dialog.getByText("Noch nie verwendet"));
    expect(await seriousViolations(page), "German passkeys dialog, dark").toEqual([]);
    await dialog.getByRole("button", { name: "Schließen" }).click();
    await page.getByRole("button", { name: "Abmelden" }).click();
    await signIn();
    await page.waitForURL(/\/otp\/verify$/);
    await expectVisible(page.getByText("Bestätigen Sie Ihre Anmeldung mit Ihrem Passkey."));
    expect(await seriousViolations(page), "German 2FA page, dark").toEqual([]);
    await page.getByRole("button", { name: "Passkey verwenden" }).click();
    await page.waitForURL(/\/home\/new$/);

    await page.goto(base + "/admin");
    await page.getByLabel("Benutzername").fill("admin");
    await page.getByLabel("Passwort").fill("admin-password");
    await page.getByRole("button", { name: "Anmelden" }).click();
    await page.waitForURL(/\/admin\/home$/);
    await page.getByRole("link", { name: "Meine Passkeys" }).click();
    await expectVisible(page.getByRole("heading", { name: "Meine Passkeys" }));
    await expectVisible(page.getByRole("button", { name: "Passkey hinzufügen" }));
    expect(await seriousViolations(page), "German My passkeys, dark").toEqual([]);
  });
  it("Reset 2FA is offered for passkey-only accounts (users and admins pages) and removes their passkeys", async () => {
    // A user without TOTP enrols a passkey in the portal.
    const pia = await createUser(stack, "pia", "pia-password", []);
    const { page: portal } = await fresh();
    await portal.goto(base + "/");
    await portal.getByLabel("Username").fill("pia");
    await portal.getByLabel("Password").fill("pia-password");
    await portal.getByRole("button", { name: "Log in" }).click();
    await portal.waitForURL(/\/home\/new$/);
    await portal.getByRole("button", { name: "Passkeys" }).click();
    await enrolInDialog(portal, "Pia's key");
    await portal.getByTestId("passkeys-dialog").getByRole("button", { name: "Close" }).click();
    // A second admin without TOTP enrols one on My passkeys.
    const nina = await stack.admin.ok<string>("POST", "/api/admin/admins", {
      Name: "Nina",
      UserName: "nina",
      AuthType: "local",
      PlainPassword: "nina-password",
      ConfirmPassword: "nina-password",
    });
    const { page: ninaPage } = await fresh();
    await ninaPage.goto(base + "/admin");
    await ninaPage.getByLabel("Username").fill("nina");
    await ninaPage.getByLabel("Password").fill("nina-password");
    await ninaPage.getByRole("button", { name: "Log in" }).click();
    await ninaPage.waitForURL(/\/admin\/home$/);
    await ninaPage.getByRole("link", { name: "My passkeys" }).click();
    await ninaPage.getByLabel("Passkey name").fill("Nina's key");
    await ninaPage.getByRole("button", { name: "Add passkey" }).click();
    await expectVisible(ninaPage.getByRole("listitem").filter({ hasText: "Nina's key" }));

    // The users' and admins' JSON name the passkeys; TOTP is off for both.
    expect(await stack.admin.ok<User>("GET", `/api/admin/users/${pia}`)).toMatchObject({
      TOTPEnabled: false,
      Passkeys: 1,
    });
    expect(await stack.admin.ok<Admin>("GET", `/api/admin/admins/${nina}`)).toMatchObject({
      TOTPEnabled: false,
      Passkeys: 1,
    });

    const { page } = await fresh();
    await page.goto(base + "/admin");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("admin-password");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.waitForURL(/\/admin\/home$/);
    for (const [path, name, who] of [
      ["/admin/users", "pia", "user"],
      ["/admin/admins", "nina", "admin"],
    ] as const) {
      await page.goto(base + path);
      await page.getByRole("button", { name: `Actions for ${name}` }).click();
      await page.getByRole("menuitem", { name: "Reset 2FA" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Reset 2FA" });
      await expectVisible(confirm.getByText("Their passkey is removed."));
      await expectVisible(confirm.getByText("signs in with the password alone until they add a passkey again"));
      expect(await seriousViolations(page), `Reset 2FA of a passkey-only ${who}`).toEqual([]);
      await confirm.getByRole("button", { name: "Reset 2FA" }).click();
      await expectVisible(page.getByTestId("toast").filter({ hasText: "Two-factor authentication reset" }));
      // Nothing left to reset: the action is no longer offered.
      await page.getByRole("button", { name: `Actions for ${name}` }).click();
      await expectVisible(page.getByRole("menuitem", { name: "Delete" }));
      expect(await page.getByRole("menuitem", { name: "Reset 2FA" }).count()).toBe(0);
      await page.keyboard.press("Escape");
    }
    expect((await stack.admin.ok<User>("GET", `/api/admin/users/${pia}`)).Passkeys).toBe(0);
    expect((await stack.admin.ok<Admin>("GET", `/api/admin/admins/${nina}`)).Passkeys).toBe(0);

    // Pia's next sign-in owes no second factor.
    await portal.getByRole("button", { name: "Logout" }).click();
    await expectVisible(portal.getByLabel("Username"));
    await portal.getByLabel("Username").fill("pia");
    await portal.getByLabel("Password").fill("pia-password");
    await portal.getByRole("button", { name: "Log in" }).click();
    await portal.waitForURL(/\/home\/new$/);
  });
});

/**
 * SAML sign-in end to end with a real IdP (issue #4 item 3): SimpleSAMLphp on loopback, a real
 * Postern server, the sign-in driven with fetch (no browser): GET /api/login/saml → the IdP's login
 * form → the auto-submit form carrying the SAMLResponse → a cross-site form post to the ACS. Postern
 * reads the IdP metadata from its URL. Users are created at their first sign-in (name, saml group,
 * sessionDuration), a replayed response is refused, an existing SAML admin signs in to the admin
 * console, a new one is created at the first sign-in there, and a local admin's name is refused. With an IdP that wants signed AuthnRequests, Postern signs them and the IdP checks them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spUrls } from "../../server/src/services/saml/setup.ts";
import { IdpBrowser, hasSimpleSamlPhp, parseForm, startSimpleSamlPhp } from "../support/simplesamlphp.ts";
import type { SimpleSamlPhp } from "../support/simplesamlphp.ts";
import { startStack } from "../support/stack.ts";
import type { Stack } from "../support/stack.ts";

describe.skipIf(!hasSimpleSamlPhp)("SAML sign-in with SimpleSAMLphp", () => {
  let stack: Stack;
  let ssp: SimpleSamlPhp;
  let base = "";

  beforeAll(async () => {
    stack = await startStack();
    base = stack.server.url;
    const user = spUrls(base, "user");
    const admin = spUrls(base, "admin");
    ssp = await startSimpleSamlPhp({
      sps: [
        { entityId: user.entityId, acsUrl: user.acsUrl },
        { entityId: admin.entityId, acsUrl: admin.acsUrl },
      ],
      users: {
        alice: {
          password: "alice-idp-pw",
          attributes: {
            displayName: ["Alice Example"],
            groups: ["eng", "not-a-postern-group"],
            sessionDuration: ["60"],
          },
        },
        bob: { password: "bob-idp-pw", attributes: { cn: ["Bob"] } },
        sam: { password: "sam-idp-pw", attributes: { displayName: ["Sam Admin"] } },
      },
    });
    await stack.admin.ok("POST", "/api/admin/settings/authentication", {
      PublicURL: base,
      SAMLMetadataURL: ssp.metadataUrl,
      AdminSAMLMetadataURL: ssp.metadataUrl,
    });
    await stack.admin.ok<string>("POST", "/api/admin/groups", {
      Name: "eng",
      Description: "",
      Type: "saml",
      ACLIDs: [],
      UserIDs: [],
    });
    await stack.admin.ok("POST", "/api/admin/admins", {
      Name: "Sam",
      UserName: "sam",
      AuthType: "SAML",
      TOTPEnabled: false,
      LoginEnabled: true,
    });
  }, 60_000);

  afterAll(async () => {
    await ssp?.stop();
    await stack?.close();
  });

  /**
   * Runs a sign-in from `startPath` in `browser` up to the IdP's auto-submit form; logs in at the IdP
   * with `password` when it asks. Returns the form (action = our ACS, SAMLResponse).
   */
  async function toAcsForm(
    browser: IdpBrowser,
    startPath: string,
    userName: string,
    password: string,
    idpBase = ssp.baseUrl,
  ) {
    const start = await browser.send("GET", `${base}${startPath}`);
    expect(start.status).toBe(302);
    expect(start.headers.get("location") ?? "").toMatch(
      new RegExp(`^${idpBase}/saml2/idp/SSOService.php\\?SAMLRequest=`),
    );
    let page = await browser.follow(`${base}${startPath}`, start);
    let html = await page.res.text();
    if (/name="password"/.test(html)) {
      const login = parseForm(html, page.url);
      const posted = await browser.send("POST", login.action, { ...login.fields, username: userName, password });
      page = await browser.follow(login.action, posted);
      html = await page.res.text();
    }
    const form = parseForm(html, page.url);
    expect(form.fields["SAMLResponse"], html.slice(0, 800)).toBeTruthy();
    return form;
  }

  /** Posts the auto-submit form to the ACS as the browser would (a cross-site form post from the IdP's page). */
  async function postAcs(
    browser: IdpBrowser,
    form: { action: string; fields: Record<string, string> },
    idpOrigin = ssp.baseUrl,
  ) {
    return browser.send("POST", form.action, form.fields, { origin: idpOrigin, "sec-fetch-site": "cross-site" });
  }

  it("serves the SP metadata once the IdP metadata URL is set", async () => {
    const r = await fetch(`${base}/api/saml/metadata`);
    expect(r.status).toBe(200);
    expect(await r.text()).toContain(`entityID="${base}/api/saml/metadata"`);
  });

  it("signs a user in through the IdP: created at the first sign-in with name, saml group and sessionDuration", async () => {
    const browser = new IdpBrowser();
    const form = await toAcsForm(browser, "/api/login/saml?kioskMode=false", "alice", "alice-idp-pw");
    expect(form.action).toBe(`${base}/api/saml/acs`);
    const acs = await postAcs(browser, form);
    expect(acs.status).toBe(303);
    expect(acs.headers.get("location")).toBe("/home/new");
    const session = browser.cookie(base, "postern_session");
    expect(session).toBeTruthy();

    const status = await fetch(`${base}/api/status`, { headers: { cookie: `postern_session=${session}` } });
    expect(status.status).toBe(200);
    const body = (await status.json()) as { Name: string; AuthType: string; Ends: string };
    expect(body).toMatchObject({ Name: "Alice Example", AuthType: "SAML" });
    const minutes = (Date.parse(body.Ends) - stack.clock.now()) / 60_000;
    expect(minutes).toBeGreaterThan(58);
    expect(minutes).toBeLessThanOrEqual(60);

    const users = await stack.admin.ok<{ ID: string; UserName: string; AuthType: string }[]>("GET", "/api/admin/users");
    const alice = users.find((u) => u.UserName === "alice");
    expect(alice?.AuthType).toBe("SAML");
    const groups = await stack.admin.ok<{ Name: string }[]>("GET", `/api/admin/users/${alice!.ID}/groups`);
    expect(groups.map((g) => g.Name)).toEqual(["eng"]);

    // The same response again: refused, no new session.
    const replay = await new IdpBrowser().send("POST", form.action, form.fields, {
      origin: ssp.baseUrl,
      "sec-fetch-site": "cross-site",
    });
    expect(replay.status).toBe(303);
    expect(replay.headers.get("location")).toBe("/?error=Authentication%20failed");
    expect(replay.headers.getSetCookie().some((c) => c.startsWith("postern_session="))).toBe(false);
  });

  it("signs in again through the IdP's single sign-on session, as a kiosk session", async () => {
    const browser = new IdpBrowser();
    await postAcs(browser, await toAcsForm(browser, "/api/login/saml?kioskMode=false", "bob", "bob-idp-pw"));
    // Second sign-in: the IdP remembers bob (no password asked); kiosk: KioskSessionDuration (30 min).
    const form = await toAcsForm(browser, "/api/login/saml?kioskMode=true", "bob", "unused");
    const acs = await postAcs(browser, form);
    expect(acs.headers.get("location")).toBe("/home/new");
    const status = await fetch(`${base}/api/status`, {
      headers: { cookie: `postern_session=${browser.cookie(base, "postern_session")}` },
    });
    const body = (await status.json()) as { Name: string; Ends: string };
    expect(body.Name).toBe("Bob");
    expect(Math.round((Date.parse(body.Ends) - stack.clock.now()) / 60_000)).toBe(30);
  });

  it("signs an existing SAML admin in to the admin console", async () => {
    const browser = new IdpBrowser();
    const form = await toAcsForm(browser, "/api/admin/login/saml", "sam", "sam-idp-pw");
    expect(form.action).toBe(`${base}/api/admin/saml/acs`);
    const acs = await postAcs(browser, form);
    expect(acs.status).toBe(303);
    expect(acs.headers.get("location")).toBe("/admin/home");
    const cookie = browser.cookie(base, "postern_admin_session");
    const status = await fetch(`${base}/api/admin/status`, { headers: { cookie: `postern_admin_session=${cookie}` } });
    expect(status.status).toBe(200);
  });

  it("creates an IdP user signing in at the admin console for the first time as a SAML admin", async () => {
    const browser = new IdpBrowser();
    const acs = await postAcs(browser, await toAcsForm(browser, "/api/admin/login/saml", "alice", "alice-idp-pw"));
    expect(acs.headers.get("location")).toBe("/admin/home");
    expect(browser.cookie(base, "postern_admin_session")).toBeDefined();
    const admins = await stack.admin.ok<{ UserName: string; Name: string; AuthType: string }[]>(
      "GET",
      "/api/admin/admins",
    );
    expect(admins).toContainEqual(
      expect.objectContaining({ UserName: "alice", Name: "Alice Example", AuthType: "SAML" }),
    );
    const logs = await stack.admin.ok<{ Entry: Record<string, string> }[]>("GET", "/api/admin/logs?search=alice");
    expect(logs.some((l) => JSON.stringify(l).includes("adminAutoCreated"))).toBe(true);
  });

  it("refuses an IdP user whose name is a local Postern admin at the admin console", async () => {
    await stack.admin.ok("POST", "/api/admin/admins", {
      Name: "Bob Local",
      UserName: "bob",
      AuthType: "local",
      PlainPassword: "bob-local-password",
      ConfirmPassword: "bob-local-password",
      TOTPEnabled: false,
      LoginEnabled: true,
    });
    const browser = new IdpBrowser();
    const acs = await postAcs(browser, await toAcsForm(browser, "/api/admin/login/saml", "bob", "bob-idp-pw"));
    expect(acs.headers.get("location")).toBe("/admin?error=Authentication%20failed");
    expect(browser.cookie(base, "postern_admin_session")).toBeUndefined();
    const logs = await stack.admin.ok<{ Entry: Record<string, string> }[]>("GET", "/api/admin/logs?search=bob");
    expect(logs.some((l) => JSON.stringify(l).includes("adminLoginFailed"))).toBe(true);
  });

  it("signs its AuthnRequests when the IdP wants them signed, and the IdP checks the signature", async () => {
    const { Cert } = await stack.admin.ok<{ Cert: string }>("POST", "/api/admin/settings/generateUserSamlKeyCert");
    const user = spUrls(base, "user");
    const strict = await startSimpleSamlPhp({
      sps: [{ entityId: user.entityId, acsUrl: user.acsUrl, certPem: Cert }],
      users: { carol: { password: "carol-idp-pw", attributes: {} } },
      signedRequests: true,
    });
    try {
      await stack.admin.ok("POST", "/api/admin/settings/authentication", { SAMLMetadataURL: strict.metadataUrl });
      const metadata = await (await fetch(`${base}/api/saml/metadata`)).text();
      expect(metadata).toContain('AuthnRequestsSigned="true"');

      // A request whose signature was altered is refused by the IdP: no login form.
      const tamperer = new IdpBrowser();
      const start = await tamperer.send("GET", `${base}/api/login/saml?kioskMode=false`);
      const location = start.headers.get("location") ?? "";
      expect(location).toMatch(/[?&]Signature=/);
      const tampered = location.replace(
        /([?&]Signature=)([^&])/,
        (_m, p: string, c: string) => `${p}${c === "A" ? "B" : "A"}`,
      );
      const refused = await tamperer.follow(tampered);
      expect(await refused.res.text()).not.toMatch(/name="password"/);

      // The genuine signed request: the IdP accepts it and the sign-in completes.
      const browser = new IdpBrowser();
      const acs = await postAcs(
        browser,
        await toAcsForm(browser, "/api/login/saml?kioskMode=false", "carol", "carol-idp-pw", strict.baseUrl),
        strict.baseUrl,
      );
      expect(acs.headers.get("location")).toBe("/home/new");
    } finally {
      await strict.stop();
      await stack.admin.ok("POST", "/api/admin/settings/authentication", { SAMLMetadataURL: ssp.metadataUrl });
    }
  });
});

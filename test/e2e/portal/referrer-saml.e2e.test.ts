/**
 * "Back to the protected page" through the SAML round trip (issue #14 items 3 and 7): in a real
 * Chromium, the portal opened as `/?referrer=<url>` with SAML configured (SimpleSAMLphp on loopback),
 * "Sign in with SSO", the IdP's login form, the form post back to Postern's ACS, and the browser lands
 * on the referrer once the grant of the SAML group's Knoc at that origin is Granted. The referrer
 * waits in the tab's sessionStorage meanwhile: the IdP never sees it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spUrls } from "../../../server/src/services/saml/setup.ts";
import { chromiumAvailable, expectVisible } from "../../support/browser.ts";
import { startRecordingSite } from "../../support/recording-site.ts";
import type { RecordingSite } from "../../support/recording-site.ts";
import { hasSimpleSamlPhp, startSimpleSamlPhp } from "../../support/simplesamlphp.ts";
import type { SimpleSamlPhp } from "../../support/simplesamlphp.ts";
import { usePortalSuite } from "./portal-stack.ts";
import type { PortalStack } from "./portal-stack.ts";

if (!chromiumAvailable) console.warn("portal referrer SAML e2e: SKIPPED: /usr/bin/chromium is not installed");
if (!hasSimpleSamlPhp) console.warn("portal referrer SAML e2e: SKIPPED: SimpleSAMLphp or php is not installed");

describe.skipIf(!chromiumAvailable || !hasSimpleSamlPhp)("back to the protected page through SAML sign-in", () => {
  const suite = usePortalSuite();
  let p: PortalStack;
  let site: RecordingSite;
  let ssp: SimpleSamlPhp;

  beforeAll(async () => {
    p = suite.stack();
    site = await startRecordingSite();
    const sp = spUrls(p.url, "user");
    ssp = await startSimpleSamlPhp({
      sps: [{ entityId: sp.entityId, acsUrl: sp.acsUrl }],
      users: { sara: { password: "sara-idp-pw", attributes: { displayName: ["Sara"], groups: ["reporting"] } } },
    });
    const admin = p.stack.admin;
    await admin.ok("POST", "/api/admin/settings/authentication", {
      PublicURL: p.url,
      SAMLMetadataURL: ssp.metadataUrl,
    });
    const backends = await admin.ok<{ ID: string; Name: string }[]>("GET", "/api/admin/backends");
    const knoc = await admin.ok<string>("POST", "/api/admin/acls", {
      Description: "Reports app",
      URL: site.url,
      BackendID: backends.find((b) => b.Name === "proxy")!.ID,
      ClickToGrant: false,
      Config: { haproxy: { ID: p.haproxy.aclId } },
    });
    await admin.ok("POST", "/api/admin/groups", {
      Name: "reporting",
      Description: "",
      Type: "saml",
      ACLIDs: [knoc],
      UserIDs: [],
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([site?.close(), ssp?.stop()]);
  });

  it("keeps the referrer through the IdP and follows it after the grant", async () => {
    const page = await suite.fresh();
    const target = `${site.url}/quarterly?year=2026`;
    await page.goto(`${p.url}/?referrer=${encodeURIComponent(target)}`);
    await page.waitForURL(`${p.url}/`);
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await page.waitForURL((url) => url.origin === ssp.baseUrl);
    expect(page.url()).not.toContain("quarterly");
    await page.locator('input[name="username"]').fill("sara");
    await page.locator('input[name="password"]').fill("sara-idp-pw");
    await page.locator('input[name="password"]').press("Enter");
    await page.waitForURL(target, { timeout: 30_000 });
    await expectVisible(page.getByRole("heading", { name: "Protected app" }));
    expect(site.requests.map((r) => r.path)).toContain("/quarterly?year=2026");
  });
});

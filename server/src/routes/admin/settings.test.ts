import { X509Certificate, createPrivateKey, generateKeyPairSync } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { auditLog, settings } from "../../db/schema.ts";
import { apiRequest, createHarness, signInAdmin } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";

let h: Harness;
let admin = "";
const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const METADATA = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example"></md:EntityDescriptor>`;

beforeEach(async () => {
  h = createHarness();
  admin = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

describe("settings", () => {
  it("reads the general settings with their defaults", async () => {
    const r = await apiRequest(h, "GET", "/api/admin/settings", undefined, { cookie: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      Accent: "teal",
      KioskSessionDuration: 30,
      NewUserDashboard: true,
      Logo: "",
      GELFListenerURL: "",
    });
  });

  it("customizes branding: accent, high accessibility, PNG logo; refuses other images and bad accents", async () => {
    const ok = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/customize",
      { Accent: "rose", HighAccessibility: true, Logo: PNG_1PX },
      { cookie: admin },
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      Accent: "rose",
      HighAccessibility: true,
      Logo: `data:image/png;base64,${PNG_1PX}`,
    });
    expect((await apiRequest(h, "GET", "/api/theme")).body).toEqual({ Accent: "rose", HighAccessibility: true });
    const logo = await apiRequest(h, "GET", "/api/logo?mode=dark");
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/png");
    expect((await apiRequest(h, "GET", "/api/logo?mode=light")).status).toBe(404);
    const gif = Buffer.from("GIF89a....").toString("base64");
    expect(
      await apiRequest(h, "POST", "/api/admin/settings/customize", { Logo: gif }, { cookie: admin }),
    ).toMatchObject({ status: 400, body: { Err: "Bad request", Extra: "Logo: the logo must be PNG or JPEG" } });
    expect(
      (await apiRequest(h, "POST", "/api/admin/settings/customize", { Accent: "purple" }, { cookie: admin })).status,
    ).toBe(400);
    // Nothing changed by the refused calls.
    expect((await apiRequest(h, "GET", "/api/admin/settings", undefined, { cookie: admin })).body).toMatchObject({
      Accent: "rose",
    });
  });

  it("validates config: kiosk 5–120 minutes, discovery URL http(s), GELF udp/tcp/tls", async () => {
    const bad = async (body: unknown, extra: string) =>
      expect(await apiRequest(h, "POST", "/api/admin/settings/config", body, { cookie: admin })).toMatchObject({
        status: 400,
        body: { Extra: expect.stringContaining(extra) },
      });
    await bad({ KioskSessionDuration: 4 }, "between 5 and 120");
    await bad({ KioskSessionDuration: 121 }, "between 5 and 120");
    // The URL rule answers with its spec message as Err, the way backends do (#8 item 18).
    expect(
      await apiRequest(
        h,
        "POST",
        "/api/admin/settings/config",
        { DiscoverIPURL: "ftp://x.example" },
        { cookie: admin },
      ),
    ).toMatchObject({ status: 400, body: { Err: "URL must be http or https", Extra: "DiscoverIPURL" } });
    await bad({ GELFListenerURL: "http://log.example:12201" }, "URL must be udp, tcp, or tls");
    await bad({ GELFCACertificate: "not a certificate" }, "GELFCACertificate: not a PEM X.509 certificate");
    const ok = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/config",
      { KioskSessionDuration: 120, GELFListenerURL: "tls://127.0.0.1:12201", DebugMode: true },
      { cookie: admin },
    );
    expect(ok.body).toMatchObject({
      KioskSessionDuration: 120,
      GELFListenerURL: "tls://127.0.0.1:12201",
      DebugMode: true,
    });
  });

  it("stores SAML key pairs sealed, never returns keys, checks they belong together", async () => {
    const a = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const keyPem = a.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    const gen = await apiRequest(h, "POST", "/api/admin/settings/generateUserSamlKeyCert", undefined, {
      cookie: admin,
    });
    expect(gen.status).toBe(200);
    const cert = (gen.body as { Cert: string }).Cert;
    expect(new X509Certificate(cert).checkPrivateKey(createPrivateKey(h.services.adminSettings.samlKey("user")))).toBe(
      true,
    );
    // A key that does not belong to the stored certificate is refused.
    expect(
      await apiRequest(h, "POST", "/api/admin/settings/authentication", { SAMLKeyFile: keyPem }, { cookie: admin }),
    ).toMatchObject({
      status: 400,
      body: { Extra: "SAMLCertFile: the certificate does not belong to the private key" },
    });
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/admin/settings/authentication",
          { SAMLKeyFile: "not a key" },
          { cookie: admin },
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/admin/settings/authentication",
          { SAMLMetadataFile: "<html/>" },
          { cookie: admin },
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await apiRequest(
          h,
          "POST",
          "/api/admin/settings/authentication",
          { LDAPURL: "http://ldap.example" },
          { cookie: admin },
        )
      ).body,
    ).toMatchObject({ Extra: expect.stringContaining("URL must be ldap or ldaps") });
    const saved = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/authentication",
      { SAMLMetadataFile: METADATA, LDAPURL: "ldaps://ldap.example", PublicURL: "https://postern.example" },
      { cookie: admin },
    );
    expect(saved.body).toMatchObject({
      SAMLKeyFileSet: true,
      SAMLCertFileSet: true,
      AdminSAMLKeyFileSet: false,
      SAMLMetadataFile: METADATA,
      LDAPURL: "ldaps://ldap.example",
    });
    const read = JSON.stringify(
      (await apiRequest(h, "GET", "/api/admin/settings/authentication", undefined, { cookie: admin })).body,
    );
    expect(read).not.toContain("PRIVATE KEY");
    const row = JSON.stringify(h.services.db.select().from(settings).where(eq(settings.key, "SAMLKeySealed")).get());
    expect(row).not.toContain("PRIVATE KEY");
    const removed = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/authentication",
      { RemoveSAMLKeyFile: true, RemoveSAMLCertFile: true },
      { cookie: admin },
    );
    expect(removed.body).toMatchObject({ SAMLKeyFileSet: false, SAMLCertFileSet: false });
  });

  it("writes an audit entry for each saved section", async () => {
    await apiRequest(h, "POST", "/api/admin/settings/config", { DebugMode: true }, { cookie: admin });
    const rows = h.services.db
      .select({ action: auditLog.action, description: auditLog.description })
      .from(auditLog)
      .where(eq(auditLog.action, "settingsUpdated"))
      .all();
    expect(rows).toEqual([{ action: "settingsUpdated", description: "config" }]);
  });
});

import { X509Certificate, createPrivateKey, generateKeyPairSync } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { openTestDatabase, testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, signInAdmin } from "../../testing/harness.ts";
import { migrateDatabase } from "../../db/index.ts";
import { TestClock } from "../../clock.ts";
import { createLogger } from "../../logger.ts";
import { createServices } from "../../services/index.ts";
import { setSetting } from "../../services/settings.ts";
import type { Harness } from "../../testing/harness.ts";

const { auditLog, settings } = testTables;

let h: Harness;
let admin = "";
const PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const METADATA = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example"></md:EntityDescriptor>`;

beforeEach(async () => {
  h = await createHarness();
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
    // The URL rules: "answers each URL rule with its spec message as Err" below.
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
    expect(
      new X509Certificate(cert).checkPrivateKey(createPrivateKey(await h.services.adminSettings.samlKey("user"))),
    ).toBe(true);
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
    ).toMatchObject({ Err: "URL must be ldap or ldaps", Extra: "LDAPURL" });
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
    // With an https PublicURL the session cookie is __Host- prefixed (http/context.ts secureCookies).
    const secureAdmin = `__Host-${admin}`;
    const read = JSON.stringify(
      (await apiRequest(h, "GET", "/api/admin/settings/authentication", undefined, { cookie: secureAdmin })).body,
    );
    expect(read).not.toContain("PRIVATE KEY");
    const row = JSON.stringify(
      (await h.services.db.select().from(settings).where(eq(settings.key, "SAMLKeySealed")).limit(1))[0],
    );
    expect(row).not.toContain("PRIVATE KEY");
    const removed = await apiRequest(
      h,
      "POST",
      "/api/admin/settings/authentication",
      { RemoveSAMLKeyFile: true, RemoveSAMLCertFile: true },
      { cookie: secureAdmin },
    );
    expect(removed.body).toMatchObject({ SAMLKeyFileSet: false, SAMLCertFileSet: false });
  });

  it("answers each URL rule with its spec message as Err and the field as Extra, as the backends do", async () => {
    const cases: [string, Record<string, unknown>, string, string][] = [
      ["config", { DiscoverIPURL: "ftp://x.example" }, "URL must be http or https", "DiscoverIPURL"],
      ["config", { GELFListenerURL: "http://log.example:12201" }, "URL must be udp, tcp, or tls", "GELFListenerURL"],
      ["authentication", { PublicURL: "postern.example" }, "URL must be http or https", "PublicURL"],
      ["authentication", { SAMLMetadataURL: "file:///etc/passwd" }, "URL must be http or https", "SAMLMetadataURL"],
      [
        "authentication",
        { AdminSAMLMetadataURL: "ldap://idp.example" },
        "URL must be http or https",
        "AdminSAMLMetadataURL",
      ],
      ["authentication", { LDAPURL: "http://ldap.example" }, "URL must be ldap or ldaps", "LDAPURL"],
    ];
    for (const [section, body, Err, Extra] of cases) {
      expect(
        await apiRequest(h, "POST", `/api/admin/settings/${section}`, body, { cookie: admin }),
        JSON.stringify(body),
      ).toMatchObject({ status: 400, body: { Err, Extra } });
    }
    expect(await h.services.db.select().from(settings)).toEqual([]);
  });

  it("DebugMode changes the server's log level at once, and applies from the start when stored", async () => {
    const config = (body: unknown) => apiRequest(h, "POST", "/api/admin/settings/config", body, { cookie: admin });
    expect(h.services.log.level).toBe("silent");
    expect((await config({ DebugMode: true })).body).toMatchObject({ DebugMode: true });
    expect(h.services.log.level).toBe("debug");
    expect(h.services.hub["log"].isLevelEnabled("debug")).toBe(true); // child loggers follow
    expect((await config({ KioskSessionDuration: 60 })).status).toBe(200); // other fields leave it
    expect(h.services.log.level).toBe("debug");
    expect((await config({ DebugMode: false })).status).toBe(200);
    expect(h.services.log.level).toBe("silent");

    // A server starting with DebugMode stored logs at debug; a configured trace stays trace.
    for (const [configured, expected] of [
      ["info", "debug"],
      ["trace", "trace"],
    ] as const) {
      const database = await openTestDatabase();
      await migrateDatabase(database.db);
      await setSetting(database.db, "DebugMode", true);
      const services = createServices({
        db: database.db,
        clock: new TestClock(),
        log: createLogger(configured),
        jsBundleHash: "test",
      });
      await services.adminSettings.applyDebugMode(); // as startServer does before it serves
      expect(services.log.level).toBe(expected);
      await services.hub.close();
      await database.close();
    }
  });

  it("switches experimental features on and off (enhanced-custom-script), shown in the admin status", async () => {
    const config = (body: unknown) => apiRequest(h, "POST", "/api/admin/settings/config", body, { cookie: admin });
    const status = async () =>
      ((await apiRequest(h, "GET", "/api/admin/status", undefined, { cookie: admin })).body as Record<string, unknown>)
        .ExperimentalFeatures;
    expect(await status()).toEqual([]);
    expect(
      (await config({ ExperimentalFeatures: ["enhanced-custom-script", "enhanced-custom-script"] })).body,
    ).toMatchObject({ ExperimentalFeatures: ["enhanced-custom-script"] });
    expect(await status()).toEqual(["enhanced-custom-script"]);
    expect(await config({ ExperimentalFeatures: ["time-travel"] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining("ExperimentalFeatures.0") },
    });
    expect((await config({ ExperimentalFeatures: [] })).body).toMatchObject({ ExperimentalFeatures: [] });
    expect(await status()).toEqual([]);
  });

  it("writes an audit entry for each saved section", async () => {
    await apiRequest(h, "POST", "/api/admin/settings/config", { DebugMode: true }, { cookie: admin });
    const rows = await h.services.db
      .select({ action: auditLog.action, description: auditLog.description })
      .from(auditLog)
      .where(eq(auditLog.action, "settingsUpdated"));
    expect(rows).toEqual([{ action: "settingsUpdated", description: "config" }]);
  });
});

/**
 * The admin settings sections (docs/reference.md admin-console §2 "Settings", §3, §5 "Settings", §7 Settings calls):
 * general settings, branding/UI ("customize"), IP discovery/kiosk/logging ("config"), and
 * authentication (SAML for users and admins, LDAP, PublicURL) including SP key pair upload and
 * generation. SAML private keys are kept sealed in the secret store and never returned.
 */
import { Errors } from "@postern/shared";
import { X509Certificate, createPrivateKey, webcrypto } from "node:crypto";
import type {
  AuthenticationSettings,
  AuthenticationUpdate,
  ConfigSettings,
  CustomizeSettings,
  GeneralSettings,
} from "@postern/shared";
import type { Db } from "../db/index.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";
import { applyDebugMode } from "../logger.ts";
import { AppError } from "../errors.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import type { SecretBox } from "./secrets/at-rest.ts";
import { getSetting, setSetting } from "./settings.ts";
import type { SettingName } from "./settings.ts";
import { loadX509 } from "../x509.ts";

/** Which SAML service provider: the user portal's or the admin console's. */
export type SamlAudience = "user" | "admin";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
/** Largest logo accepted, in bytes after base64 decoding. */
export const MAX_LOGO_BYTES = 512 * 1024;

/**
 * Checks a logo (base64, optionally a data: URL) is PNG or JPEG by its bytes and at most
 * MAX_LOGO_BYTES; returns it as a data: URL, or "" for "". Throws 400 otherwise.
 */
export function normaliseLogo(field: string, value: string): string {
  if (value === "") return "";
  const base64 = value.replace(/^data:image\/[a-z]+;base64,/i, "").trim();
  if (!/^[A-Za-z0-9+/=\s]+$/.test(base64)) throw new AppError(Errors.badRequest, `${field}: not base64`);
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length > MAX_LOGO_BYTES) throw new AppError(Errors.badRequest, `${field}: the logo must be at most 512 KB`);
  const type = bytes.subarray(0, 8).equals(PNG) ? "image/png" : bytes.subarray(0, 3).equals(JPEG) ? "image/jpeg" : null;
  if (!type) throw new AppError(Errors.badRequest, `${field}: the logo must be PNG or JPEG`);
  return `data:${type};base64,${bytes.toString("base64")}`;
}

function checkPrivateKey(field: string, pem: string): void {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== "rsa" && key.asymmetricKeyType !== "ec") throw new Error("type");
  } catch {
    throw new AppError(Errors.badRequest, `${field}: not a PEM RSA or EC private key`);
  }
}

function checkCertificate(field: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new AppError(Errors.badRequest, `${field}: not a PEM X.509 certificate`);
  }
}

function checkMetadata(field: string, xml: string): void {
  if (!/<(\w+:)?EntityDescriptor[\s>]/.test(xml))
    throw new AppError(Errors.badRequest, `${field}: not SAML metadata (no EntityDescriptor)`);
}

const SAML_KEYS = {
  user: {
    url: "SAMLMetadataURL",
    file: "SAMLMetadataFile",
    key: "SAMLKeySealed",
    cert: "SAMLCert",
    purpose: "saml.user.key",
  },
  admin: {
    url: "AdminSAMLMetadataURL",
    file: "AdminSAMLMetadataFile",
    key: "AdminSAMLKeySealed",
    cert: "AdminSAMLCert",
    purpose: "saml.admin.key",
  },
} as const;

/**
 * Admin settings: read and write each section. With `logging` (the server's root logger and its
 * configured level), DebugMode is applied to the logger at construction and whenever it is saved.
 */
export class AdminSettingsService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly secrets: SecretBox;
  private readonly logging: { log: Logger; baseLevel: string } | undefined;
  constructor(db: Db, clock: Clock, secrets: SecretBox, logging?: { log: Logger; baseLevel: string }) {
    this.db = db;
    this.clock = clock;
    this.secrets = secrets;
    this.logging = logging;
  }

  /** Sets the root logger's level from the DebugMode setting (no-op without `logging`); the server calls it at start. */
  async applyDebugMode(): Promise<void> {
    if (this.logging) applyDebugMode(this.logging.log, await getSetting(this.db, "DebugMode"), this.logging.baseLevel);
  }

  /** GET /admin/settings. */
  async general(): Promise<GeneralSettings> {
    const g = async <K extends SettingName>(k: K) => await getSetting(this.db, k);
    return {
      DiscoverIP: await g("DiscoverIP"),
      DiscoverIPURL: await g("DiscoverIPURL"),
      DebugMode: await g("DebugMode"),
      GELFListenerURL: await g("GELFListenerURL"),
      GELFCACertificateSet: (await g("GELFCACertificate")) !== "",
      KioskSessionDuration: await g("KioskSessionDuration"),
      Accent: (await g("Accent")) as GeneralSettings["Accent"],
      HighAccessibility: await g("HighAccessibility"),
      Logo: await g("Logo"),
      LightModeLogo: await g("LightModeLogo"),
      NewUserDashboard: await g("NewUserDashboard"),
      ExperimentalFeatures: await g("ExperimentalFeatures"),
      AdditionalClientIPs: await g("AdditionalClientIPs"),
      AdditionalClientIPPorts: await g("AdditionalClientIPPorts"),
    };
  }

  private async save(values: Partial<Record<SettingName, unknown>>, section: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const [k, v] of Object.entries(values)) if (v !== undefined) await setSetting(tx, k as SettingName, v);
      await writeAudit(tx, {
        action: AuditAction.settingsUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: section,
      });
    });
  }

  /** POST /admin/settings/customize: branding and UI. Logos are checked to be PNG or JPEG. */
  async customize(input: CustomizeSettings, actor: Actor): Promise<GeneralSettings> {
    const values = {
      ...input,
      ...(input.Logo !== undefined ? { Logo: normaliseLogo("Logo", input.Logo) } : {}),
      ...(input.LightModeLogo !== undefined
        ? { LightModeLogo: normaliseLogo("LightModeLogo", input.LightModeLogo) }
        : {}),
    };
    await this.save(values, "customize", actor);
    return await this.general();
  }

  /**
   * POST /admin/settings/config: IP discovery, debug mode (applied to the log level at once), GELF
   * listener and its CA certificate (PEM, checked), kiosk session length (minutes), experimental
   * features, and the additional client IP addresses (multi-port discovery and its ports, used from
   * the next start).
   */
  async config(input: ConfigSettings, actor: Actor): Promise<GeneralSettings> {
    if (input.GELFCACertificate) checkCertificate("GELFCACertificate", input.GELFCACertificate);
    await this.save(input, "config", actor);
    if (input.DebugMode !== undefined) await this.applyDebugMode();
    return await this.general();
  }

  /** GET /admin/settings/authentication. */
  async authentication(): Promise<AuthenticationSettings> {
    const g = async <K extends SettingName>(k: K) => await getSetting(this.db, k);
    return {
      SAMLMetadataURL: await g("SAMLMetadataURL"),
      SAMLMetadataFile: await g("SAMLMetadataFile"),
      SAMLKeyFileSet: (await g("SAMLKeySealed")) !== "",
      SAMLCertFileSet: (await g("SAMLCert")) !== "",
      AdminSAMLMetadataURL: await g("AdminSAMLMetadataURL"),
      AdminSAMLMetadataFile: await g("AdminSAMLMetadataFile"),
      AdminSAMLKeyFileSet: (await g("AdminSAMLKeySealed")) !== "",
      AdminSAMLCertFileSet: (await g("AdminSAMLCert")) !== "",
      PublicURL: await g("PublicURL"),
      LDAPURL: await g("LDAPURL"),
      LDAPStartTLS: await g("LDAPStartTLS"),
      LDAPSkipVerifyTLS: await g("LDAPSkipVerifyTLS"),
      LDAPCACertificateSet: (await g("LDAPCACertificate")) !== "",
      AllowAdminTotpDeferral: await g("AllowAdminTotpDeferral"),
    };
  }

  /**
   * POST /admin/settings/authentication. Uploaded keys must be PEM private keys, certificates PEM
   * X.509, and a key and certificate uploaded or kept together must belong to each other; metadata
   * must be SAML metadata. Remove flags clear a file. Throws 400 naming the field.
   */
  async updateAuthentication(input: AuthenticationUpdate, actor: Actor): Promise<AuthenticationSettings> {
    const values: Partial<Record<SettingName, unknown>> = {
      PublicURL: input.PublicURL,
      LDAPURL: input.LDAPURL,
      LDAPStartTLS: input.LDAPStartTLS,
      LDAPSkipVerifyTLS: input.LDAPSkipVerifyTLS,
      LDAPCACertificate: input.LDAPCACertificate,
      AllowAdminTotpDeferral: input.AllowAdminTotpDeferral,
    };
    if (input.LDAPCACertificate) checkCertificate("LDAPCACertificate", input.LDAPCACertificate);
    for (const audience of ["user", "admin"] as const) {
      const k = SAML_KEYS[audience];
      const p = audience === "user" ? "" : "Admin";
      const url = input[`${p}SAMLMetadataURL` as "SAMLMetadataURL"];
      const file = input[`${p}SAMLMetadataFile` as "SAMLMetadataFile"];
      const key = input[`${p}SAMLKeyFile` as "SAMLKeyFile"];
      const cert = input[`${p}SAMLCertFile` as "SAMLCertFile"];
      values[k.url] = url;
      if (file) checkMetadata(`${p}SAMLMetadataFile`, file);
      if (input[`Remove${p}SAMLMetadataFile` as "RemoveSAMLMetadataFile"]) values[k.file] = "";
      else if (file) values[k.file] = file;
      if (key) checkPrivateKey(`${p}SAMLKeyFile`, key);
      const certificate = cert ? checkCertificate(`${p}SAMLCertFile`, cert) : null;
      const removeKey = input[`Remove${p}SAMLKeyFile` as "RemoveSAMLKeyFile"] === true;
      const removeCert = input[`Remove${p}SAMLCertFile` as "RemoveSAMLCertFile"] === true;
      const finalKey = removeKey ? "" : key || (await this.samlKey(audience));
      const finalCert = removeCert ? "" : cert || (await getSetting(this.db, k.cert));
      if (
        finalKey &&
        finalCert &&
        (key || cert) &&
        !(certificate ?? new X509Certificate(finalCert)).checkPrivateKey(createPrivateKey(finalKey))
      ) {
        throw new AppError(Errors.badRequest, `${p}SAMLCertFile: the certificate does not belong to the private key`);
      }
      if (removeKey) values[k.key] = "";
      else if (key) values[k.key] = this.secrets.seal(k.purpose, key);
      if (removeCert) values[k.cert] = "";
      else if (cert) values[k.cert] = cert;
    }
    await this.save(values, "authentication", actor);
    return await this.authentication();
  }

  /** The SP private key (PEM) of an audience, or "" when none. */
  async samlKey(audience: SamlAudience): Promise<string> {
    const sealed = await getSetting(this.db, SAML_KEYS[audience].key);
    return sealed ? this.secrets.open(SAML_KEYS[audience].purpose, sealed) : "";
  }

  /**
   * Generates a new SP key pair for an audience (RSA 2048, self-signed certificate valid 10 years,
   * CN from PublicURL's host or "postern"), replacing the old one. Returns the certificate (PEM).
   */
  async generateSamlKeyCert(audience: SamlAudience, actor: Actor): Promise<string> {
    const alg = {
      name: "RSASSA-PKCS1-v1_5",
      hash: "SHA-256",
      publicExponent: new Uint8Array([1, 0, 1]),
      modulusLength: 2048,
    };
    const x509 = await loadX509();
    const keys = (await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"])) as CryptoKeyPair;
    const host = URL.parse(await getSetting(this.db, "PublicURL"))?.hostname || "postern";
    const now = new Date(this.clock.now());
    const cert = await x509.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
          .toString("hex")
          .replace(/^[89a-f]/, "1"),
        name: `CN=${host.replace(/[,=+<>#;"\\]/g, "")} ${audience === "admin" ? "admin" : "user"} SAML SP`,
        notBefore: now,
        notAfter: new Date(now.getTime() + 3650 * 86_400_000),
        signingAlgorithm: alg,
        keys,
      },
      webcrypto as unknown as Crypto,
    );
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey)).toString("base64");
    const keyPem = `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END PRIVATE KEY-----\n`;
    const certPem = cert.toString("pem");
    const k = SAML_KEYS[audience];
    await this.save(
      { [k.key]: this.secrets.seal(k.purpose, keyPem), [k.cert]: certPem },
      `generate ${audience} SAML key pair`,
      actor,
    );
    return certPem;
  }
}

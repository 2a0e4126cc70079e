/**
 * Settings (docs/reference.md admin-console §3 "General settings", "Authentication settings"; §5 "Settings"; §7
 * Settings calls). Each POST carries one section; fields left out keep their value.
 */
import { z } from "zod";
import { Limits } from "../limits.ts";
import { Errors } from "../errors.ts";
import { AccentSchema } from "./user.ts";

/**
 * A URL setting of one of `protocols`, or "" for none; anything else fails with the spec's message
 * (docs/reference.md admin-console §5 Settings), which the server answers as `Err` with the field as `Extra`.
 */
const urlSetting = (protocols: RegExp, message: string) =>
  z.union([z.literal(""), z.url({ protocol: protocols, error: message })], { error: message });
const httpUrl = urlSetting(/^https?$/, Errors.urlMustBeHttp.err);
const ldapUrl = urlSetting(/^(ldap|ldaps|ldapi|cldap)$/, Errors.urlMustBeLdap.err);
const gelfUrl = urlSetting(/^(udp|tcp|tls)$/, Errors.urlMustBeGelf.err);

/** The experimental features an admin may switch on (docs/reference.md admin-console §2 ACLs: "enhanced-custom-script"). */
export const EXPERIMENTAL_FEATURES = ["enhanced-custom-script"] as const;
/** An experimental feature's name. */
export type ExperimentalFeature = (typeof EXPERIMENTAL_FEATURES)[number];

/**
 * The ports of the additional client IP addresses section (the multi-port IP discovery, docs/reference.md user-portal
 * §7): 1–16 distinct TCP ports 1–65535.
 */
export const DiscoveryPortsSchema = z
  .array(z.number().int().min(1, "must be 1 to 65535").max(65535, "must be 1 to 65535"))
  .min(1, "name at least one port")
  .max(16, "at most 16 ports")
  .refine((ports) => new Set(ports).size === ports.length, "must not repeat a port");

/** A logo: PNG or JPEG as base64 (optionally a data: URL), or "" to remove it. */
export const LogoSchema = z.string().max(700_000, "The logo must be at most 512 KB");

/** GET /api/admin/settings response: the general settings. */
export const GeneralSettingsSchema = z.object({
  DiscoverIP: z.boolean(),
  DiscoverIPURL: z.string(),
  DebugMode: z.boolean(),
  GELFListenerURL: z.string(),
  /** True when a CA certificate for the GELF listener is set. */
  GELFCACertificateSet: z.boolean(),
  /** Minutes, 5–120. */
  KioskSessionDuration: z.number().int(),
  Accent: AccentSchema,
  HighAccessibility: z.boolean(),
  /** data: URLs ("" when none). */
  Logo: z.string(),
  LightModeLogo: z.string(),
  NewUserDashboard: z.boolean(),
  ExperimentalFeatures: z.array(z.string()),
  /** Additional client IP addresses: the server listens for IP discovery on the extra ports (at the next start). */
  AdditionalClientIPs: z.boolean(),
  /** The extra discovery ports (default the spec's 443, 222, 3389, 8000). */
  AdditionalClientIPPorts: z.array(z.number().int()),
});
/** GET /api/admin/settings response. */
export type GeneralSettings = z.infer<typeof GeneralSettingsSchema>;

/** POST /api/admin/settings/customize body (branding and UI). */
export const CustomizeSettingsSchema = z
  .object({
    Accent: AccentSchema,
    HighAccessibility: z.boolean(),
    Logo: LogoSchema,
    LightModeLogo: LogoSchema,
    NewUserDashboard: z.boolean(),
  })
  .partial();
/** POST /api/admin/settings/customize body. */
export type CustomizeSettings = z.infer<typeof CustomizeSettingsSchema>;

/** POST /api/admin/settings/config body (IP discovery, kiosk, logging). */
export const ConfigSettingsSchema = z
  .object({
    DiscoverIP: z.boolean(),
    DiscoverIPURL: httpUrl,
    DebugMode: z.boolean(),
    GELFListenerURL: gelfUrl,
    /** PEM CA certificate(s) trusted for a tls:// GELF listener besides the system CAs; "" for none. */
    GELFCACertificate: z.string().max(50_000),
    KioskSessionDuration: z
      .number({ error: "KioskSessionDuration must be a number" })
      .int()
      .min(Limits.kioskSessionDurationMinMinutes, "KioskSessionDuration must be between 5 and 120")
      .max(Limits.kioskSessionDurationMaxMinutes, "KioskSessionDuration must be between 5 and 120"),
    /** The experimental features switched on (repeats dropped). */
    ExperimentalFeatures: z
      .array(z.enum(EXPERIMENTAL_FEATURES))
      .max(EXPERIMENTAL_FEATURES.length * 2)
      .transform((list) => [...new Set(list)]),
    /** Additional client IP addresses: multi-port IP discovery on or off. */
    AdditionalClientIPs: z.boolean(),
    AdditionalClientIPPorts: DiscoveryPortsSchema,
  })
  .partial();
/** POST /api/admin/settings/config body. */
export type ConfigSettings = z.infer<typeof ConfigSettingsSchema>;

/** GET /api/admin/settings/authentication response. Key and certificate contents are never returned. */
export const AuthenticationSettingsSchema = z.object({
  SAMLMetadataURL: z.string(),
  SAMLMetadataFile: z.string(),
  SAMLKeyFileSet: z.boolean(),
  SAMLCertFileSet: z.boolean(),
  AdminSAMLMetadataURL: z.string(),
  AdminSAMLMetadataFile: z.string(),
  AdminSAMLKeyFileSet: z.boolean(),
  AdminSAMLCertFileSet: z.boolean(),
  PublicURL: z.string(),
  LDAPURL: z.string(),
  LDAPStartTLS: z.boolean(),
  LDAPSkipVerifyTLS: z.boolean(),
  /** True when a CA certificate for the LDAP directory is set (LDAPCACertificate; its content is not returned). */
  LDAPCACertificateSet: z.boolean(),
  /** Admins may put off their 2FA enrolment at sign-in (docs/reference.md admin-console §6 "when the server allows"); default off. */
  AllowAdminTotpDeferral: z.boolean(),
});
/** GET /api/admin/settings/authentication response. */
export type AuthenticationSettings = z.infer<typeof AuthenticationSettingsSchema>;

/**
 * POST /api/admin/settings/authentication body: URLs and flags, uploaded file contents (PEM key and
 * certificate, IdP metadata XML) and Remove flags, for users and (Admin prefix) admins.
 */
export const AuthenticationUpdateSchema = z
  .object({
    SAMLMetadataURL: httpUrl,
    SAMLMetadataFile: z.string().max(200_000),
    SAMLKeyFile: z.string().max(20_000),
    SAMLCertFile: z.string().max(20_000),
    RemoveSAMLMetadataFile: z.boolean(),
    RemoveSAMLKeyFile: z.boolean(),
    RemoveSAMLCertFile: z.boolean(),
    AdminSAMLMetadataURL: httpUrl,
    AdminSAMLMetadataFile: z.string().max(200_000),
    AdminSAMLKeyFile: z.string().max(20_000),
    AdminSAMLCertFile: z.string().max(20_000),
    RemoveAdminSAMLMetadataFile: z.boolean(),
    RemoveAdminSAMLKeyFile: z.boolean(),
    RemoveAdminSAMLCertFile: z.boolean(),
    PublicURL: httpUrl,
    LDAPURL: ldapUrl,
    LDAPStartTLS: z.boolean(),
    LDAPSkipVerifyTLS: z.boolean(),
    /** PEM CA certificate(s) trusted for the LDAP directory besides the system CAs; "" removes it. */
    LDAPCACertificate: z.string().max(50_000),
    AllowAdminTotpDeferral: z.boolean(),
  })
  .partial();
/** POST /api/admin/settings/authentication body. */
export type AuthenticationUpdate = z.infer<typeof AuthenticationUpdateSchema>;

/** POST /api/admin/settings/generate{User,Admin}SamlKeyCert response: the new certificate (PEM) to give the IdP. */
export const GeneratedKeyCertSchema = z.object({ Cert: z.string() });

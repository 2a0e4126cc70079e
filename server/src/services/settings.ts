/**
 * Settings (docs/reference.md admin-console §3 "General settings"): typed reads with defaults over the key → JSON
 * settings table. This release reads the ones the core loop needs.
 */
import type { Db, Tx } from "../db/index.ts";
import { readSetting, writeSetting } from "../repositories/settings.ts";

/**
 * Defaults of every setting (docs/reference.md admin-console §3 "General settings", "Authentication settings").
 * KioskSessionDuration is in minutes (5–120); logos are data URLs (PNG or JPEG) or "". Secrets
 * (SAML keys) are not settings: they live encrypted in the secret store.
 */
export const SettingDefaults = {
  KioskSessionDuration: 30,
  Accent: "teal",
  HighAccessibility: false,
  NewUserDashboard: true,
  DiscoverIP: true,
  DiscoverIPURL: "",
  PublicURL: "",
  DebugMode: false,
  GELFListenerURL: "",
  /** PEM of extra CA certificates trusted for a tls:// GELF listener (besides the system store); "" = none. */
  GELFCACertificate: "",
  /** Internal: sequence number of the last audit entry forwarded to GELF; -1 = not forwarding. */
  GELFForwardedID: -1,
  Logo: "",
  LightModeLogo: "",
  ExperimentalFeatures: [] as string[],
  /** Additional client IP addresses (docs/reference.md user-portal §7 multi-port IP discovery): listen on the ports below, from the next start. */
  AdditionalClientIPs: false,
  /** The extra IP-discovery ports (default the spec's 443, 222, 3389, 8000). */
  AdditionalClientIPPorts: [443, 222, 3389, 8000] as number[],
  SAMLMetadataURL: "",
  SAMLMetadataFile: "",
  AdminSAMLMetadataURL: "",
  AdminSAMLMetadataFile: "",
  LDAPURL: "",
  LDAPStartTLS: false,
  LDAPSkipVerifyTLS: false,
  /** PEM CA certificate(s) trusted for the LDAP directory's TLS (ldaps, StartTLS) besides the system CAs; "" = none. */
  LDAPCACertificate: "",
  /** SAML SP private keys, sealed by the secret store (purpose "saml.user.key" / "saml.admin.key"). */
  SAMLKeySealed: "",
  SAMLCert: "",
  AdminSAMLKeySealed: "",
  AdminSAMLCert: "",
  /** Admins may put off their 2FA enrolment at sign-in (POST /admin/otp/verify {deferEnrolment: true}); docs/reference.md admin-console §9. */
  AllowAdminTotpDeferral: false,
  /** Internal: the key deriving each pending session's TOTP enrolment secret, sealed by the secret store (purpose "totp.enrolment-key"); "" until first used. */
  TotpEnrolmentKeySealed: "",
};
/** Names of the settings this release reads. */
export type SettingName = keyof typeof SettingDefaults;

/** Reads one setting, or its default. */
export async function getSetting<K extends SettingName>(q: Db | Tx, name: K): Promise<(typeof SettingDefaults)[K]> {
  const row = await readSetting(q, name);
  return (row ? row.value : SettingDefaults[name]) as (typeof SettingDefaults)[K];
}

/** Whether a PublicURL value is an https URL (any case): the browser is on https behind a proxy. */
export function isHttpsUrl(url: string): boolean {
  return url.toLowerCase().startsWith("https:");
}

/** Writes one setting. */
export async function setSetting(q: Db | Tx, name: SettingName, value: unknown): Promise<void> {
  await writeSetting(q, name, value);
}

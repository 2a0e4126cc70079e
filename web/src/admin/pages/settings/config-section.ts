/**
 * The sections saved through POST /api/admin/settings/config (docs/reference.md admin-console §2 "IP discovery;
 * Kiosk; Logging; additional client IP addresses", §5 "Settings"): each one's form schema — the
 * shared ConfigSettingsSchema's fields of that section, all required — and its stored values read
 * from the general settings.
 */
import { z } from "zod";
import { ConfigSettingsSchema, DiscoveryPortsSchema } from "@postern/shared";
import type { ConfigSettings, GeneralSettings } from "@postern/shared";
import { uploadValue } from "./settings-form.ts";

/** IP discovery: on or off and the discovery URL (http or https, or none). */
export const IpDiscoverySchema = ConfigSettingsSchema.pick({ DiscoverIP: true, DiscoverIPURL: true }).required();
/** Kiosk: the kiosk session duration in minutes, 5–120. */
export const KioskSchema = ConfigSettingsSchema.pick({ KioskSessionDuration: true }).required();
/**
 * Logging: debug mode, the GELF listener URL (udp, tcp or tls, or none) and the CA certificate of a
 * tls:// listener (a PEM file chosen, "" keeps the stored one) with its Remove flag.
 */
export const LoggingSchema = ConfigSettingsSchema.pick({
  DebugMode: true,
  GELFListenerURL: true,
  GELFCACertificate: true,
})
  .required()
  .extend({ RemoveGELFCACertificate: z.boolean() });

/**
 * A port list as typed: numbers separated by commas or spaces, checked by the shared rule
 * (DiscoveryPortsSchema) whose first message is the field's; anything that is not a whole number
 * reads as 0, which the rule refuses ("must be 1 to 65535").
 */
const portList = z.string().transform((text, ctx) => {
  const ports = text
    .split(/[\s,]+/)
    .filter((part) => part !== "")
    .map((part) => (/^\d{1,5}$/.test(part) ? Number(part) : 0));
  const checked = DiscoveryPortsSchema.safeParse(ports);
  if (checked.success) return checked.data;
  ctx.addIssue({ code: "custom", message: checked.error.issues[0]?.message ?? "must be 1 to 65535" });
  return z.NEVER;
});

/** The config body of the logging form's values: the CA certificate only when chosen or removed. */
export function loggingBody(values: z.output<typeof LoggingSchema>): ConfigSettings {
  const { GELFCACertificate, RemoveGELFCACertificate, ...rest } = values;
  const ca = uploadValue(GELFCACertificate, RemoveGELFCACertificate);
  return ca === undefined ? rest : { ...rest, GELFCACertificate: ca };
}

/** Additional client IP addresses: on or off and the discovery ports, edited as text. */
export const AdditionalIpsSchema = z.object({
  AdditionalClientIPs: z.boolean(),
  AdditionalClientIPPorts: portList,
});
/** The additional client IP addresses form's values (the ports as text). */
export type AdditionalIpsValues = z.input<typeof AdditionalIpsSchema>;

/** The stored values of each config section. */
export const storedConfig = {
  ipDiscovery: (s: GeneralSettings): z.input<typeof IpDiscoverySchema> => ({
    DiscoverIP: s.DiscoverIP,
    DiscoverIPURL: s.DiscoverIPURL,
  }),
  kiosk: (s: GeneralSettings): z.input<typeof KioskSchema> => ({ KioskSessionDuration: s.KioskSessionDuration }),
  logging: (s: GeneralSettings): z.input<typeof LoggingSchema> => ({
    DebugMode: s.DebugMode,
    GELFListenerURL: s.GELFListenerURL,
    GELFCACertificate: "",
    RemoveGELFCACertificate: false,
  }),
  additionalIps: (s: GeneralSettings): AdditionalIpsValues => ({
    AdditionalClientIPs: s.AdditionalClientIPs,
    AdditionalClientIPPorts: s.AdditionalClientIPPorts.join(", "),
  }),
};

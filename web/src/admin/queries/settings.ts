/**
 * Settings (docs/reference.md admin-console §2 "Settings", §3 "General settings" / "Authentication settings", §7
 * Settings calls): the general settings and the authentication settings (cached like the other
 * admin reads), and the writes of each section — customize (branding, UI), config (IP discovery,
 * kiosk, logging, additional client IP addresses), authentication (SAML, LDAP) and the SAML key
 * pair generation for users or admins — each refreshing the settings (and the theme the console
 * shows).
 */
import { queryOptions } from "@tanstack/react-query";
import type {
  AuthenticationSettings,
  AuthenticationUpdate,
  ConfigSettings,
  CustomizeSettings,
  GeneralSettings,
} from "@postern/shared";
import { apiRequest } from "../../ui/api/client.ts";
import { useInvalidatingMutation } from "./mutation.ts";
import { StaleMs } from "./policy.ts";

/** Which SAML service provider a key pair is for: the user portal's or the admin console's. */
export type SamlAudience = "user" | "admin";

/** Query options of the settings. */
export const settingsQueries = {
  all: ["admin", "settings"] as const,
  /** GET /api/admin/settings. */
  general: () =>
    queryOptions({
      queryKey: [...settingsQueries.all, "general"],
      queryFn: () => apiRequest<GeneralSettings>("GET", "/admin/settings"),
      staleTime: StaleMs.adminList,
    }),
  /** GET /api/admin/settings/authentication (key and certificate contents are never returned). */
  authentication: () =>
    queryOptions({
      queryKey: [...settingsQueries.all, "authentication"],
      queryFn: () => apiRequest<AuthenticationSettings>("GET", "/admin/settings/authentication"),
      staleTime: StaleMs.adminList,
    }),
};

const useSettingsWrite = <V, R>(call: (vars: V) => Promise<R>) => useInvalidatingMutation(call, [settingsQueries.all]);

/** POST /api/admin/settings/customize (accent, high accessibility, logos as base64, new user dashboard). */
export const useSaveCustomize = () =>
  useSettingsWrite((body: CustomizeSettings) =>
    apiRequest<GeneralSettings>("POST", "/admin/settings/customize", { body }),
  );
/** POST /api/admin/settings/config (IP discovery, kiosk, logging, additional client IP addresses). */
export const useSaveConfig = () =>
  useSettingsWrite((body: ConfigSettings) => apiRequest<GeneralSettings>("POST", "/admin/settings/config", { body }));
/** POST /api/admin/settings/authentication (fields left out keep their value). */
export const useSaveAuthentication = () =>
  useSettingsWrite((body: AuthenticationUpdate) =>
    apiRequest<AuthenticationSettings>("POST", "/admin/settings/authentication", { body }),
  );
/** POST /api/admin/settings/generate{User,Admin}SamlKeyCert: answers the new certificate (PEM) for the IdP. */
export const useGenerateSamlKeyCert = () =>
  useSettingsWrite((audience: SamlAudience) =>
    apiRequest<{ Cert: string }>(
      "POST",
      audience === "user" ? "/admin/settings/generateUserSamlKeyCert" : "/admin/settings/generateAdminSamlKeyCert",
    ),
  );

/**
 * Additional client IP addresses (docs/reference.md admin-console §2 Settings; docs/reference.md user-portal §7 multi-port IP
 * discovery): whether the server also discovers a user's addresses on extra ports, and those ports
 * (1 to 16 distinct ports 1–65535, typed separated by commas; used from the server's next start).
 * Saved by POST /api/admin/settings/config.
 */
import { useLingui } from "@lingui/react/macro";
import type { GeneralSettings } from "@postern/shared";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { useSaveConfig } from "../../queries/settings.ts";
import { AdditionalIpsSchema, storedConfig } from "./config-section.ts";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";

/** The additional client IP addresses section. */
export function AdditionalIpsSection({ settings }: { settings: GeneralSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(AdditionalIpsSchema, storedConfig.additionalIps(settings));
  const frame = useSectionFrame(form, useSaveConfig(), (v) => v, t`Settings updated`);
  return (
    <SettingsSection
      {...frame}
      title={t`Additional client IP addresses`}
      testId="settings-additional-ips"
      description={t`Users behind several internet connections are granted each address they reach the server from on these ports. Changes apply when the server restarts.`}
    >
      <CheckField label={t`Discover additional client IP addresses`} {...form.register("AdditionalClientIPs")} />
      <FormField
        label={t`Discovery ports`}
        hint={t`Separate ports with commas, for example 443, 222, 3389, 8000.`}
        error={fieldError(i18n, form.formState.errors.AdditionalClientIPPorts)}
        {...form.register("AdditionalClientIPPorts")}
      />
    </SettingsSection>
  );
}

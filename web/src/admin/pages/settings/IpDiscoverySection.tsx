/**
 * IP discovery (docs/reference.md admin-console §2 Settings "IP discovery", §3 DiscoverIP / DiscoverIPURL, §5
 * "discovery URL http or https"): whether the portal discovers the user's address through a
 * discovery URL, and that URL. Saved by POST /api/admin/settings/config.
 */
import { useLingui } from "@lingui/react/macro";
import type { GeneralSettings } from "@postern/shared";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { useSaveConfig } from "../../queries/settings.ts";
import { IpDiscoverySchema, storedConfig } from "./config-section.ts";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";

/** The IP discovery section. */
export function IpDiscoverySection({ settings }: { settings: GeneralSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(IpDiscoverySchema, storedConfig.ipDiscovery(settings));
  const frame = useSectionFrame(form, useSaveConfig(), (v) => v, t`Settings updated`);
  return (
    <SettingsSection
      {...frame}
      title={t`IP discovery`}
      testId="settings-ip-discovery"
      description={t`Find the address users connect from through a discovery URL outside the network.`}
    >
      <CheckField label={t`Discover the user's IP address`} {...form.register("DiscoverIP")} />
      <FormField
        label={t`Discovery URL`}
        placeholder="https://"
        error={fieldError(i18n, form.formState.errors.DiscoverIPURL)}
        {...form.register("DiscoverIPURL")}
      />
    </SettingsSection>
  );
}

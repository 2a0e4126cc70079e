/**
 * Settings (docs/reference.md admin-console §2 "Settings (/admin/settings)"): the sections, each with its own Save —
 * License, Authentication (SAML and LDAP tabs), IP discovery, Kiosk, Logging, Branding, UI, the
 * additional client IP addresses and the event Webhooks (issue #14 item 4; a list with dialogs, no Save).
 */
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { PageHeader } from "../../components/PageHeader.tsx";
import { adminErrorText } from "../../lib/errors.ts";
import { settingsQueries } from "../../queries/settings.ts";
import { AdditionalIpsSection } from "./AdditionalIpsSection.tsx";
import { AuthenticationSection } from "./AuthenticationSection.tsx";
import { BrandingSection } from "./BrandingSection.tsx";
import { IpDiscoverySection } from "./IpDiscoverySection.tsx";
import { KioskSection } from "./KioskSection.tsx";
import { LicenseSection } from "./LicenseSection.tsx";
import { LoggingSection } from "./LoggingSection.tsx";
import { UiSection } from "./UiSection.tsx";
import { WebhooksSection } from "./WebhooksSection.tsx";

/** The settings page. */
export function SettingsPage() {
  const { t, i18n } = useLingui();
  const general = useQuery(settingsQueries.general());
  const settings = general.data;
  return (
    <>
      <PageHeader title={t`Settings`}>
        <Trans>Each section saves on its own.</Trans>
      </PageHeader>
      <div className="space-y-6">
        <LicenseSection />
        <AuthenticationSection />
        {general.error ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {adminErrorText(i18n, general.error)}
          </p>
        ) : null}
        {settings === undefined ? null : (
          <>
            <IpDiscoverySection settings={settings} />
            <KioskSection settings={settings} />
            <LoggingSection settings={settings} />
            <BrandingSection settings={settings} />
            <UiSection settings={settings} />
            <AdditionalIpsSection settings={settings} />
          </>
        )}
        <WebhooksSection />
      </div>
    </>
  );
}

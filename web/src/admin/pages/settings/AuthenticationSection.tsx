/**
 * Authentication (docs/reference.md admin-console §2 Settings "Authentication: tabs SAML and LDAP"): the SAML and
 * LDAP tabs, each its own form with its own Save.
 */
import { Tab, TabGroup, TabList, TabPanel, TabPanels } from "@headlessui/react";
import { useQuery } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { settingsQueries } from "../../queries/settings.ts";
import { LdapSettings } from "./LdapSettings.tsx";
import { SamlSettings } from "./SamlSettings.tsx";
import { SectionHeading } from "./SettingsSection.tsx";

const tabClass =
  "rounded-md px-3 py-1.5 text-sm font-semibold text-slate-700 hover:bg-slate-100 focus:outline-none data-focus:ring-2 data-focus:ring-accent-600 data-selected:bg-accent-700 data-selected:text-white dark:text-slate-200 dark:hover:bg-slate-800 dark:data-selected:bg-accent-700";

/** The authentication section. */
export function AuthenticationSection() {
  const { t } = useLingui();
  const auth = useQuery(settingsQueries.authentication());
  return (
    <section aria-labelledby="settings-authentication-heading" data-testid="settings-authentication">
      <SectionHeading id="settings-authentication-heading" title={t`Authentication`} />
      {auth.data === undefined ? null : (
        <TabGroup className="mt-3">
          <TabList aria-label={t`Authentication`} className="mb-3 flex gap-2">
            <Tab className={tabClass}>
              <Trans>SAML</Trans>
            </Tab>
            <Tab className={tabClass}>
              <Trans>LDAP</Trans>
            </Tab>
          </TabList>
          <TabPanels>
            <TabPanel>
              <SamlSettings auth={auth.data} />
            </TabPanel>
            <TabPanel>
              <LdapSettings auth={auth.data} />
            </TabPanel>
          </TabPanels>
        </TabGroup>
      )}
    </section>
  );
}

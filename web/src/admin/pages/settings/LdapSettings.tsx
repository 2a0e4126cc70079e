/**
 * The LDAP tab (docs/reference.md admin-console §2 Settings "Authentication: tabs SAML and LDAP", §3 LDAPURL /
 * LDAPStartTLS / LDAPSkipVerifyTLS and the directory's CA certificate, §5 "LDAP URL scheme ldap, ldaps, ldapi or cldap ('URL must be
 * ldap or ldaps')"): the directory users and admins of type LDAP sign in against. Saved by POST
 * /api/admin/settings/authentication.
 */
import { useLingui } from "@lingui/react/macro";
import type { AuthenticationSettings } from "@postern/shared";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { useSaveAuthentication } from "../../queries/settings.ts";
import { LdapSchema, ldapBody, storedLdap } from "./auth-section.ts";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";
import { UploadField } from "./UploadField.tsx";

/** The LDAP tab. */
export function LdapSettings({ auth }: { auth: AuthenticationSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(LdapSchema, storedLdap(auth));
  const frame = useSectionFrame(form, useSaveAuthentication(), ldapBody, t`Authentication updated`);
  return (
    <SettingsSection
      {...frame}
      title={t`LDAP`}
      testId="settings-ldap"
      description={t`The directory that users and admins of type LDAP sign in against, by their DN.`}
    >
      <FormField
        label={t`LDAP URL`}
        placeholder="ldaps://ldap.example.com"
        error={fieldError(i18n, form.formState.errors.LDAPURL)}
        {...form.register("LDAPURL")}
      />
      <CheckField label={t`Use StartTLS`} {...form.register("LDAPStartTLS")} />
      <CheckField label={t`Skip TLS certificate verification`} {...form.register("LDAPSkipVerifyTLS")} />
      <UploadField
        label={t`LDAP CA certificate`}
        accept=".pem,.crt,.cer"
        stored={auth.LDAPCACertificateSet}
        chosen={form.watch("LDAPCACertificate") !== ""}
        onFile={(text) => form.setValue("LDAPCACertificate", text, { shouldDirty: true })}
        remove={form.register("RemoveLDAPCACertificate")}
      />
    </SettingsSection>
  );
}

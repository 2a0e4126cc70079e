/**
 * The SAML tab (docs/reference.md admin-console §2 Settings "Authentication: tabs SAML and LDAP", §3 "SAML settings
 * exist for users and admins separately (metadata file or URL, cert file, key file, public URL,
 * generate keypair)", §5 URLs http or https): one form for both service providers and the public
 * URL, saved by POST /api/admin/settings/authentication; each provider's key pair regenerates
 * apart from it.
 */
import { useLingui } from "@lingui/react/macro";
import type { AuthenticationSettings } from "@postern/shared";
import type { UseFormReturn } from "react-hook-form";
import { FormField } from "../../../ui/kit/FormField.tsx";
import { useSaveAuthentication } from "../../queries/settings.ts";
import type { SamlAudience } from "../../queries/settings.ts";
import { SamlSchema, storedSaml } from "./auth-section.ts";
import type { SamlValues } from "./auth-section.ts";
import { SamlKeyPair } from "./SamlKeyPair.tsx";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";
import { UploadField } from "./UploadField.tsx";

type Form = UseFormReturn<SamlValues, unknown, SamlValues>;

/** One service provider's fields: metadata URL and file, key, certificate, key pair generation. */
function Provider({ form, audience, auth }: { form: Form; audience: SamlAudience; auth: AuthenticationSettings }) {
  const { t, i18n } = useLingui();
  const p = audience === "user" ? "" : "Admin";
  const name = <K extends string>(field: K) => `${p}${field}` as keyof SamlValues & `${string}${K}`;
  const upload = (field: "SAMLMetadataFile" | "SAMLKeyFile" | "SAMLCertFile", label: string, accept: string) => {
    const key = name(field);
    return (
      <UploadField
        label={label}
        accept={accept}
        stored={
          field === "SAMLMetadataFile"
            ? auth[name("SAMLMetadataFile") as "SAMLMetadataFile"] !== ""
            : auth[`${key}Set` as "SAMLKeyFileSet"]
        }
        chosen={form.watch(key) !== ""}
        onFile={(text) => form.setValue(key, text, { shouldDirty: true })}
        remove={form.register(`Remove${key}` as keyof SamlValues)}
      />
    );
  };
  return (
    <fieldset className="space-y-4 rounded-lg p-4 ring-1 ring-slate-200 dark:ring-slate-700">
      <legend className="px-1 text-sm font-semibold text-slate-900 dark:text-white">
        {audience === "user" ? t`Users (portal)` : t`Admins (console)`}
      </legend>
      <FormField
        label={audience === "user" ? t`Metadata URL` : t`Admin metadata URL`}
        placeholder="https://"
        error={fieldError(i18n, form.formState.errors[name("SAMLMetadataURL")])}
        {...form.register(name("SAMLMetadataURL"))}
      />
      {upload(
        "SAMLMetadataFile",
        audience === "user" ? t`Metadata file` : t`Admin metadata file`,
        ".xml,application/xml,text/xml",
      )}
      {upload("SAMLKeyFile", audience === "user" ? t`Key file` : t`Admin key file`, ".pem,.key")}
      {upload("SAMLCertFile", audience === "user" ? t`Certificate file` : t`Admin certificate file`, ".pem,.crt,.cer")}
      <SamlKeyPair audience={audience} />
    </fieldset>
  );
}

/** The SAML tab. */
export function SamlSettings({ auth }: { auth: AuthenticationSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(SamlSchema, storedSaml(auth));
  const frame = useSectionFrame(form, useSaveAuthentication(), (v) => v, t`Authentication updated`);
  return (
    <SettingsSection
      {...frame}
      title={t`SAML`}
      testId="settings-saml"
      description={t`Single sign-on through a SAML identity provider, set up separately for users and for admins.`}
    >
      <FormField
        label={t`Public URL`}
        placeholder="https://"
        hint={t`The address users reach this server at; the identity provider sends them back to it.`}
        error={fieldError(i18n, form.formState.errors.PublicURL)}
        {...form.register("PublicURL")}
      />
      <Provider form={form} audience="user" auth={auth} />
      <Provider form={form} audience="admin" auth={auth} />
    </SettingsSection>
  );
}

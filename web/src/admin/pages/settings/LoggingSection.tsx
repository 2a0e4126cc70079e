/**
 * Logging (docs/reference.md admin-console §2 Settings "Logging (debug mode, log listener)", §3 DebugMode /
 * GELFListenerURL, §5 "GELF URL udp, tcp or tls"): debug logging, the GELF listener the server
 * sends its log to and the CA certificate a tls:// listener is checked against. Saved by POST /api/admin/settings/config.
 */
import { useLingui } from "@lingui/react/macro";
import type { GeneralSettings } from "@postern/shared";
import { CheckField, FormField } from "../../../ui/kit/FormField.tsx";
import { useSaveConfig } from "../../queries/settings.ts";
import { LoggingSchema, loggingBody, storedConfig } from "./config-section.ts";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";
import { UploadField } from "./UploadField.tsx";

/** The logging section. */
export function LoggingSection({ settings }: { settings: GeneralSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(LoggingSchema, storedConfig.logging(settings));
  const frame = useSectionFrame(form, useSaveConfig(), loggingBody, t`Settings updated`);
  return (
    <SettingsSection
      {...frame}
      title={t`Logging`}
      testId="settings-logging"
      description={t`Debug mode logs every request in detail. A GELF listener (such as Graylog) receives the server's log.`}
    >
      <CheckField label={t`Debug mode`} {...form.register("DebugMode")} />
      <FormField
        label={t`GELF listener URL`}
        placeholder="udp://graylog.example.com:12201"
        error={fieldError(i18n, form.formState.errors.GELFListenerURL)}
        {...form.register("GELFListenerURL")}
      />
      <UploadField
        label={t`GELF CA certificate`}
        accept=".pem,.crt,.cer"
        stored={settings.GELFCACertificateSet}
        chosen={form.watch("GELFCACertificate") !== ""}
        onFile={(text) => form.setValue("GELFCACertificate", text, { shouldDirty: true })}
        remove={form.register("RemoveGELFCACertificate")}
      />
    </SettingsSection>
  );
}

/**
 * Kiosk (docs/reference.md admin-console §2 Settings "Kiosk", §3 KioskSessionDuration, §5 "KioskSessionDuration
 * required, numeric, 5 to 120"): how long a kiosk-mode session lasts, in minutes. Saved by POST
 * /api/admin/settings/config.
 */
import { useLingui } from "@lingui/react/macro";
import type { GeneralSettings } from "@postern/shared";
import { FormField } from "../../../ui/kit/FormField.tsx";
import { useSaveConfig } from "../../queries/settings.ts";
import { KioskSchema, storedConfig } from "./config-section.ts";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";

/** The kiosk section. */
export function KioskSection({ settings }: { settings: GeneralSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(KioskSchema, storedConfig.kiosk(settings));
  const frame = useSectionFrame(form, useSaveConfig(), (v) => v, t`Settings updated`);
  return (
    <SettingsSection
      {...frame}
      title={t`Kiosk`}
      testId="settings-kiosk"
      description={t`Sessions started in kiosk mode on a shared computer end after this time.`}
    >
      <FormField
        label={t`Kiosk session duration (minutes)`}
        type="number"
        required
        min={5}
        max={120}
        error={fieldError(i18n, form.formState.errors.KioskSessionDuration)}
        {...form.register("KioskSessionDuration", { valueAsNumber: true })}
      />
    </SettingsSection>
  );
}

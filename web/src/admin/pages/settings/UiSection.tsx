/**
 * UI (docs/reference.md admin-console §2 Settings "UI (new user dashboard switch)", §3 NewUserDashboard): whether
 * users see the new dashboard. Saved by POST /api/admin/settings/customize.
 */
import { useLingui } from "@lingui/react/macro";
import { CustomizeSettingsSchema } from "@postern/shared";
import type { GeneralSettings } from "@postern/shared";
import { CheckField } from "../../../ui/kit/FormField.tsx";
import { useSaveCustomize } from "../../queries/settings.ts";
import { useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";

const UiSchema = CustomizeSettingsSchema.pick({ NewUserDashboard: true }).required();

/** The UI section. */
export function UiSection({ settings }: { settings: GeneralSettings }) {
  const { t } = useLingui();
  const form = useSettingsForm(UiSchema, { NewUserDashboard: settings.NewUserDashboard });
  const frame = useSectionFrame(form, useSaveCustomize(), (v) => v, t`Settings updated`);
  return (
    <SettingsSection {...frame} title={t`User interface`} testId="settings-ui">
      <CheckField label={t`New user dashboard`} {...form.register("NewUserDashboard")} />
    </SettingsSection>
  );
}

/**
 * Branding (docs/reference.md admin-console §2 Settings "Branding (accent colour, high-accessibility mode, dark and
 * light logos)", §3 Accent / HighAccessibility / Logo / LightModeLogo, §5 "logo PNG or JPEG only,
 * drag and drop, removable", §9 accents): saved by POST /api/admin/settings/customize, after which
 * the console takes the new theme at once.
 */
import { Controller } from "react-hook-form";
import { useLingui } from "@lingui/react/macro";
import type { I18n } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { AccentSchema, CustomizeSettingsSchema, LogoSchema } from "@postern/shared";
import type { GeneralSettings } from "@postern/shared";
import { serverCache } from "../../../ui/api/cached.ts";
import { CheckField, SelectField } from "../../../ui/kit/FormField.tsx";
import { applyTheme } from "../../../ui/theme.ts";
import { useSaveCustomize } from "../../queries/settings.ts";
import { LogoField } from "./LogoField.tsx";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";

/** A logo as the form holds it: "" or a PNG or JPEG data: URL (the server checks the bytes again). */
const FormLogo = LogoSchema.refine(
  (value) => value === "" || /^data:image\/(png|jpeg);base64,/.test(value),
  "The logo must be PNG or JPEG",
);

const BrandingSchema = CustomizeSettingsSchema.pick({ Accent: true, HighAccessibility: true })
  .required()
  .extend({ Logo: FormLogo, LightModeLogo: FormLogo });

/** The accents' names (§9). */
function accentLabel(i18n: I18n, accent: GeneralSettings["Accent"]): string {
  const labels = {
    teal: msg`Teal`,
    grape: msg`Grape`,
    iceberg: msg`Iceberg`,
    rose: msg`Rose`,
    offsite: msg`Offsite`,
  } as const;
  return i18n._(labels[accent]);
}

/** Forgets the cached theme and logos and applies the saved ones. */
function refreshTheme(): void {
  for (const key of ["theme", "logo.dark", "logo.light"]) serverCache.invalidate(key);
  void applyTheme();
}

/** The branding section. */
export function BrandingSection({ settings }: { settings: GeneralSettings }) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(BrandingSchema, {
    Accent: settings.Accent,
    HighAccessibility: settings.HighAccessibility,
    Logo: settings.Logo,
    LightModeLogo: settings.LightModeLogo,
  });
  const frame = useSectionFrame(form, useSaveCustomize(), (v) => v, t`Settings updated`, refreshTheme);
  const errors = form.formState.errors;
  return (
    <SettingsSection
      {...frame}
      title={t`Branding`}
      testId="settings-branding"
      description={t`The accent colour and logos of the user portal and this console.`}
    >
      <SelectField
        label={t`Accent colour`}
        options={AccentSchema.options.map((value) => ({ value, label: accentLabel(i18n, value) }))}
        {...form.register("Accent")}
      />
      <CheckField label={t`High accessibility mode`} {...form.register("HighAccessibility")} />
      <Controller
        control={form.control}
        name="Logo"
        render={({ field }) => (
          <LogoField
            label={t`Dark mode logo`}
            backdrop="dark"
            testId="logo-dark"
            value={field.value}
            onChange={field.onChange}
            inputRef={field.ref}
            error={fieldError(i18n, errors.Logo)}
          />
        )}
      />
      <Controller
        control={form.control}
        name="LightModeLogo"
        render={({ field }) => (
          <LogoField
            label={t`Light mode logo`}
            backdrop="light"
            testId="logo-light"
            value={field.value}
            onChange={field.onChange}
            inputRef={field.ref}
            error={fieldError(i18n, errors.LightModeLogo)}
          />
        )}
      />
    </SettingsSection>
  );
}

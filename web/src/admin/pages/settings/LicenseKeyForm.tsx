/**
 * The licence key form (docs/reference.md admin-console §2 Settings "License: unlicensed shows a key form", §4 "after
 * saving a key the license and server status are refetched and the licensed summary appears"): one
 * key field on the shared InstallLicenseRequestSchema, saved by POST /api/admin/settings/license.
 * A key the server refuses (malformed, untrusted signature, expired) opens the error dialog.
 */
import { Trans, useLingui } from "@lingui/react/macro";
import type { UseMutationResult } from "@tanstack/react-query";
import { InstallLicenseRequestSchema } from "@postern/shared";
import type { InstallLicenseRequest, LicenseStatus } from "@postern/shared";
import { FormField } from "../../../ui/kit/FormField.tsx";
import { fieldError, useSectionFrame, useSettingsForm } from "./settings-form.ts";
import { SettingsSection } from "./SettingsSection.tsx";

const EMPTY = { License: "" };

/** Props of LicenseKeyForm. */
export interface LicenseKeyFormProps {
  /** Names the section (installing or replacing the licence). */
  title: string;
  /**
   * The install mutation (useInstallLicense), held by the licence section: the form goes away
   * once the licence is installed, and the success toast must still follow.
   */
  install: UseMutationResult<LicenseStatus, Error, InstallLicenseRequest>;
  onInstalled?: () => void;
}

/** The key form. */
export function LicenseKeyForm({ title, install, onInstalled }: LicenseKeyFormProps) {
  const { t, i18n } = useLingui();
  const form = useSettingsForm(InstallLicenseRequestSchema, EMPTY);
  const frame = useSectionFrame(
    form,
    install,
    (v) => v,
    t`License installed`,
    () => onInstalled?.(),
  );
  return (
    <SettingsSection
      {...frame}
      title={title}
      testId="settings-license-key"
      description={
        <Trans>
          Paste the license key you received. The key <code>free</code> installs the free single-user license.
        </Trans>
      }
    >
      <FormField
        label={t`License key`}
        required
        error={fieldError(i18n, form.formState.errors.License)}
        {...form.register("License")}
      />
    </SettingsSection>
  );
}

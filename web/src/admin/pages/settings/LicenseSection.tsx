/**
 * The licence section (docs/reference.md admin-console §2 Settings "License", §3 "License status", §4 "License"):
 * unlicensed, the key form; licensed, a summary — server version, users against the limit, days
 * until expiry (or "Expired" once the expiry passed, with the key form for a new key) — with a
 * detail dialog (ID, limits, machines, expiry) whose Refresh asks the server again, and a way to
 * replace the key.
 */
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import type { LicenseStatus } from "@postern/shared";
import { Button } from "../../../ui/kit/Button.tsx";
import { Dialog } from "../../../ui/kit/Dialog.tsx";
import { useToast } from "../../../ui/kit/Toasts.tsx";
import { daysUntil } from "../../../ui/lib/format.ts";
import { useShowError } from "../../components/ErrorDialog.tsx";
import { licenseQueries, useInstallLicense } from "../../queries/license.ts";
import { statusQueries } from "../../queries/status.ts";
import { adminErrorText } from "../../lib/errors.ts";
import { LicenseKeyForm } from "./LicenseKeyForm.tsx";
import type { LicenseKeyFormProps } from "./LicenseKeyForm.tsx";
import { SectionHeading } from "./SettingsSection.tsx";

/** One term of the summary or the dialog. */
function Term({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div>
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-400">{label}</dt>
      <dd data-testid={testId} className="mt-1 text-base font-semibold text-slate-900 dark:text-white">
        {value}
      </dd>
    </div>
  );
}

/** "Expired", "Never expires" or "N days". */
function useExpiryText(license: LicenseStatus): string {
  const { t } = useLingui();
  if (license.State === "expired") return t`Expired`;
  const days = daysUntil(license.Expires, Date.now());
  if (days === undefined) return t`Never expires`;
  return days === 1 ? t`1 day` : t`${days} days`;
}

/** The detail dialog: every term of the licence and Refresh. */
function LicenseDetails({ license, onClose }: { license: LicenseStatus; onClose: () => void }) {
  const { t, i18n } = useLingui();
  const client = useQueryClient();
  const toast = useToast();
  const showError = useShowError();
  const [busy, setBusy] = useState(false);
  const expiry = useExpiryText(license);
  const refresh = async (): Promise<void> => {
    setBusy(true);
    try {
      await client.fetchQuery({ ...licenseQueries.status(), staleTime: 0 });
      await client.invalidateQueries({ queryKey: statusQueries.all });
      toast(t`License status refreshed`);
    } catch (failure) {
      showError(failure);
    } finally {
      setBusy(false);
    }
  };
  const expires = license.Expires === null ? t`Never` : new Date(license.Expires).toLocaleDateString(i18n.locale);
  return (
    <Dialog
      open
      onClose={onClose}
      title={t`License details`}
      footer={
        <>
          <Button busy={busy} onClick={() => void refresh()}>
            <Trans>Refresh</Trans>
          </Button>
          <Button variant="primary" onClick={onClose}>
            <Trans>Close</Trans>
          </Button>
        </>
      }
    >
      <dl className="grid grid-cols-2 gap-4">
        <Term label={t`License ID`} value={license.ID} testId="license-id" />
        <Term label={t`Users`} value={String(license.UserLimit)} testId="license-user-limit" />
        <Term label={t`Sessions per user`} value={String(license.SessionLimit)} testId="license-session-limit" />
        <Term
          label={t`Machines`}
          value={t`${license.MachineCount} of ${license.MaxMachines}`}
          testId="license-machines"
        />
        <Term label={t`Expires`} value={expires} testId="license-expires" />
        <Term label={t`Time left`} value={expiry} testId="license-days-detail" />
      </dl>
    </Dialog>
  );
}

/** The summary of an installed licence. */
function LicenseSummary({ license, install }: { license: LicenseStatus; install: LicenseKeyFormProps["install"] }) {
  const { t } = useLingui();
  const status = useQuery(statusQueries.header());
  const [open, setOpen] = useState<"none" | "details" | "replace">("none");
  const expiry = useExpiryText(license);
  const userCount = status.data?.UserCount;
  return (
    <>
      <section
        aria-labelledby="settings-license-heading"
        data-testid="settings-license"
        className="rounded-xl bg-white p-6 shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700"
      >
        <SectionHeading id="settings-license-heading" title={t`License`} />
        <dl className="mt-4 grid gap-4 sm:grid-cols-3">
          <Term label={t`Server version`} value={status.data?.ServerVersion ?? "–"} testId="license-server-version" />
          <Term
            label={t`Users`}
            value={userCount === undefined ? "–" : t`${userCount} of ${license.UserLimit}`}
            testId="license-users"
          />
          <Term
            label={license.State === "expired" ? t`Status` : t`Days until expiry`}
            value={expiry}
            testId="license-days"
          />
        </dl>
        <div className="mt-4 flex justify-end gap-2">
          <Button onClick={() => setOpen(open === "replace" ? "none" : "replace")}>
            <Trans>Replace license key</Trans>
          </Button>
          <Button variant="primary" onClick={() => setOpen("details")}>
            <Trans>License details</Trans>
          </Button>
        </div>
      </section>
      {open === "replace" || license.State === "expired" ? (
        <LicenseKeyForm title={t`New license key`} install={install} onInstalled={() => setOpen("none")} />
      ) : null}
      {open === "details" ? <LicenseDetails license={license} onClose={() => setOpen("none")} /> : null}
    </>
  );
}

/** The licence section: the key form or the summary (or why the status cannot be read). */
export function LicenseSection() {
  const { t, i18n } = useLingui();
  const license = useQuery(licenseQueries.status());
  const install = useInstallLicense();
  if (license.error)
    return (
      <p role="alert" data-testid="settings-license-error" className="text-sm text-red-700 dark:text-red-300">
        {adminErrorText(i18n, license.error)}
      </p>
    );
  if (license.data === undefined) return null;
  return license.data.State === "unlicensed" ? (
    <LicenseKeyForm title={t`License`} install={install} />
  ) : (
    <LicenseSummary license={license.data} install={install} />
  );
}

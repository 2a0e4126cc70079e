/**
 * The page of /admin/knocs/new/{kind} (docs/reference.md admin-console §2 "New Knoc chooser": "Without a license each
 * wizard shows an alert ('you do not have a license', with a link to the licensing site) and no
 * steps"): the licence alert, or the wizard of the path's kind on the current draft (a fresh one when
 * the draft is of another kind, e.g. when the page is opened directly).
 */
import { useEffect } from "react";
import { useAtom } from "jotai";
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { Errors } from "@postern/shared";
import { PageHeader } from "../../../components/PageHeader.tsx";
import { translateAdminMessage } from "../../../lib/errors.ts";
import { statusQueries } from "../../../queries/status.ts";
import { ApplicationWizard } from "./ApplicationWizard.tsx";
import { LinuxWizard } from "./LinuxWizard.tsx";
import { ProxyWizard } from "./ProxyWizard.tsx";
import { ScriptWizard } from "./ScriptWizard.tsx";
import { isWizardKind } from "./wizard-defaults.ts";
import type { WizardKind } from "./wizard-defaults.ts";
import { initialDraft, wizardAtom } from "./wizard-state.ts";

/** The first step of each wizard (the Application wizard starts with its settings). */
export const FIRST_STEP: Record<WizardKind, string> = {
  linux: "agent",
  application: "settings",
  proxy: "agent",
  script: "agent",
};

/** The licence alert a wizard shows instead of its steps. */
function UnlicensedAlert() {
  const { t, i18n } = useLingui();
  return (
    <>
      <PageHeader title={t`New Knoc`} />
      <div
        role="alert"
        data-testid="wizard-unlicensed"
        className="rounded-md bg-red-50 p-4 text-sm text-red-900 ring-1 ring-red-200 dark:bg-red-950 dark:text-red-100 dark:ring-red-800"
      >
        {translateAdminMessage(i18n, Errors.youDoNotHaveALicense.err)}.{" "}
        <Link to="/admin/settings" className="font-semibold underline">
          <Trans>Install a license</Trans>
        </Link>
      </div>
    </>
  );
}

/** The wizard route's page. */
export function WizardPage() {
  const { kind: param = "" } = useParams({ strict: false }) as { kind?: string };
  const kind: WizardKind = isWizardKind(param) ? param : "proxy";
  const status = useQuery(statusQueries.header());
  const [draft, setDraft] = useAtom(wizardAtom);
  useEffect(() => {
    if (draft?.kind !== kind) setDraft(initialDraft(kind, FIRST_STEP[kind]));
  }, [draft?.kind, kind, setDraft]);
  if (!status.data) return null;
  const licensing = status.data.Licensing;
  if (licensing === null || (licensing.Expires !== null && Date.parse(licensing.Expires) < Date.now()))
    return <UnlicensedAlert />;
  if (draft?.kind !== kind) return null;
  switch (kind) {
    case "linux":
      return <LinuxWizard draft={draft} />;
    case "application":
      return <ApplicationWizard draft={draft} />;
    case "proxy":
      return <ProxyWizard draft={draft} />;
    case "script":
      return <ScriptWizard draft={draft} />;
  }
}

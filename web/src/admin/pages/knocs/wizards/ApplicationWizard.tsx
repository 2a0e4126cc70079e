/**
 * The Application wizard (docs/reference.md admin-console §2 "Application wizard"): 1 settings, 2 Knoc options, 3.1 API
 * key (skipped for active), 3.2 agent (skipped for passive), 4 users and groups, 5 review and submit.
 * The navigation rules are the Stepper's disabled steps (WizardFrame skips them). When the answer
 * carries a one-time API key or an allowlist URL a dialog shows them; closing it — or a creation
 * without either — resets the wizard and goes to /admin/knocs.
 */
import { useState } from "react";
import { useLingui } from "@lingui/react/macro";
import { msg } from "@lingui/core/macro";
import { ApiKeyStep } from "./ApiKeyStep.tsx";
import { agentStep, assignmentsStep, optionsStep, reviewStep, settingsStep, useFinishWizard } from "./common-steps.tsx";
import { CreatedDialog } from "./CreatedDialog.tsx";
import { WizardFrame } from "./WizardFrame.tsx";
import type { WizardStep } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

/** The Application wizard on `draft`. */
export function ApplicationWizard({ draft }: { draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const finish = useFinishWizard();
  const [created, setCreated] = useState<{ key: string | undefined; url: string | undefined }>();
  const applicationType = draft.settings.ApplicationType ?? "passive";
  const apiKeyStep: WizardStep = {
    id: "apiKey",
    number: "3.1",
    label: i18n._(msg`API key`),
    disabled: applicationType === "active",
    render: (nav, d) => <ApiKeyStep nav={nav} draft={d} />,
  };
  const onCreated = (result: string[]): void => {
    // [id, PlaintextKey?, AllowlistURL?]: a key starts pst_, the URL with the scheme.
    const rest = result.slice(1);
    const url = rest.find((r) => /^https?:\/\//.test(r));
    const key = rest.find((r) => r !== url);
    if (key || url) setCreated({ key, url });
    else finish();
  };
  const steps = [
    settingsStep(i18n, "1"),
    optionsStep(i18n, "2"),
    apiKeyStep,
    agentStep(i18n, "3.2", applicationType === "passive"),
    assignmentsStep(i18n, "4"),
    reviewStep(i18n, "5", onCreated),
  ];
  return (
    <>
      <WizardFrame title={t`New application Knoc`} steps={steps} draft={draft} />
      {created ? (
        <CreatedDialog plaintextKey={created.key} allowlistUrl={created.url} onClose={() => finish()} />
      ) : null}
    </>
  );
}

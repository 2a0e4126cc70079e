/**
 * The Script wizard (docs/reference.md admin-console §2 "Script wizard", §9 "script wizard 6" steps): 1 agent (the
 * script capability and agent 1.6.0 or later), 2 settings, 3 Knoc options, 4 environment variables,
 * 5 users and groups, 6 review. Submit goes to /admin/knocs with viewKnocId like the Proxy wizard.
 */
import { useLingui } from "@lingui/react/macro";
import {
  agentStep,
  assignmentsStep,
  envVarsStep,
  optionsStep,
  reviewStep,
  settingsStep,
  useFinishWizard,
} from "./common-steps.tsx";
import { WizardFrame } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

/** The Script wizard on `draft`. */
export function ScriptWizard({ draft }: { draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const finish = useFinishWizard();
  const steps = [
    agentStep(i18n, "1"),
    settingsStep(i18n, "2"),
    optionsStep(i18n, "3"),
    envVarsStep(i18n, "4"),
    assignmentsStep(i18n, "5"),
    reviewStep(i18n, "6", ([id]) => finish(id)),
  ];
  return <WizardFrame title={t`New script Knoc`} steps={steps} draft={draft} />;
}

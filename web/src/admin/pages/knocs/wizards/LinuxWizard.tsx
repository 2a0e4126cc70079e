/**
 * The Linux wizard (docs/reference.md admin-console §2 "Linux wizard (5 steps)"): 1 agent (only agents with the ipset
 * command and sudo are capable; the only capable one is chosen by itself; Next disabled until one is
 * chosen; Back goes to the previous page), 2 settings, 3 Knoc options, 4 users and groups, 5 review
 * and submit. Submit goes to /admin/knocs with viewKnocId like the Proxy wizard.
 */
import { useLingui } from "@lingui/react/macro";
import { agentStep, assignmentsStep, optionsStep, reviewStep, settingsStep, useFinishWizard } from "./common-steps.tsx";
import { WizardFrame } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

/** The Linux wizard on `draft`. */
export function LinuxWizard({ draft }: { draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const finish = useFinishWizard();
  const steps = [
    agentStep(i18n, "1"),
    settingsStep(i18n, "2"),
    optionsStep(i18n, "3"),
    assignmentsStep(i18n, "4"),
    reviewStep(i18n, "5", ([id]) => finish(id)),
  ];
  return <WizardFrame title={t`New Linux Knoc`} steps={steps} draft={draft} />;
}

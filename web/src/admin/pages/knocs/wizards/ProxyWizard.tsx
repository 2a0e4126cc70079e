/**
 * The Proxy wizard (docs/reference.md admin-console §2 "Proxy wizard"): 1 agent (Next disabled until chosen; only agents
 * with the haproxy capability), 2 settings, 3 Knoc options, 4 users and groups, 5 review. Submit goes
 * to /admin/knocs with viewKnocId set to the new id.
 */
import { useLingui } from "@lingui/react/macro";
import { agentStep, assignmentsStep, optionsStep, reviewStep, settingsStep, useFinishWizard } from "./common-steps.tsx";
import { WizardFrame } from "./WizardFrame.tsx";
import type { WizardDraft } from "./wizard-state.ts";

/** The Proxy wizard on `draft`. */
export function ProxyWizard({ draft }: { draft: WizardDraft }) {
  const { t, i18n } = useLingui();
  const finish = useFinishWizard();
  const steps = [
    agentStep(i18n, "1"),
    settingsStep(i18n, "2"),
    optionsStep(i18n, "3"),
    assignmentsStep(i18n, "4"),
    reviewStep(i18n, "5", ([id]) => finish(id)),
  ];
  return <WizardFrame title={t`New proxy Knoc`} steps={steps} draft={draft} />;
}

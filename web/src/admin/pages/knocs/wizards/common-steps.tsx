/**
 * The steps the wizards share (docs/reference.md admin-console §2 "Common wizard parts"), as Stepper entries with what
 * they show, and how a finished wizard leaves: the Proxy, Script and Linux wizards go to /admin/knocs
 * with viewKnocId set to the new id; every exit resets the wizard state.
 */
import { useCallback } from "react";
import { useSetAtom } from "jotai";
import { useNavigate } from "@tanstack/react-router";
import type { I18n } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { AgentStep } from "./AgentStep.tsx";
import { AssignmentsStep } from "./AssignmentsStep.tsx";
import { EnvVarsStep } from "./EnvVarsStep.tsx";
import { OptionsStep } from "./OptionsStep.tsx";
import { ReviewStep } from "./ReviewStep.tsx";
import { SettingsStep } from "./SettingsStep.tsx";
import type { WizardStep } from "./WizardFrame.tsx";
import { wizardAtom } from "./wizard-state.ts";

/** The agent step numbered `number`. */
export const agentStep = (i18n: I18n, number: string, disabled = false): WizardStep => ({
  id: "agent",
  number,
  disabled,
  label: i18n._(msg`Agent`),
  render: (nav, draft) => <AgentStep nav={nav} draft={draft} />,
});
/** The settings step numbered `number`. */
export const settingsStep = (i18n: I18n, number: string): WizardStep => ({
  id: "settings",
  number,
  label: i18n._(msg`Settings`),
  render: (nav, draft) => <SettingsStep nav={nav} draft={draft} />,
});
/** The Knoc options step numbered `number`. */
export const optionsStep = (i18n: I18n, number: string): WizardStep => ({
  id: "options",
  number,
  label: i18n._(msg`Knoc options`),
  render: (nav, draft) => <OptionsStep nav={nav} draft={draft} />,
});
/** The Script wizard's environment variables step numbered `number`. */
export const envVarsStep = (i18n: I18n, number: string): WizardStep => ({
  id: "envVars",
  number,
  label: i18n._(msg`Environment variables`),
  render: (nav, draft) => <EnvVarsStep nav={nav} draft={draft} />,
});
/** The users and groups step numbered `number`. */
export const assignmentsStep = (i18n: I18n, number: string): WizardStep => ({
  id: "assignments",
  number,
  label: i18n._(msg`Users and groups`),
  render: (nav, draft) => <AssignmentsStep nav={nav} draft={draft} />,
});
/** The review and submit step numbered `number`; `onCreated` receives `[id, PlaintextKey?, AllowlistURL?]`. */
export const reviewStep = (i18n: I18n, number: string, onCreated: (result: string[]) => void): WizardStep => ({
  id: "review",
  number,
  label: i18n._(msg`Review and submit`),
  render: (nav, draft) => <ReviewStep nav={nav} draft={draft} onCreated={onCreated} />,
});

/**
 * How a wizard ends: `toKnocs(viewKnocId?)` goes to the Knocs list (opening the new Knoc's detail when
 * given) and resets the wizard state.
 */
export function useFinishWizard(): (viewKnocId?: string) => void {
  const navigate = useNavigate();
  const setDraft = useSetAtom(wizardAtom);
  return useCallback(
    (viewKnocId?: string) => {
      void navigate({ to: "/admin/knocs", search: (viewKnocId ? { viewKnocId } : {}) as never }).then(() =>
        setDraft(undefined),
      );
    },
    [navigate, setDraft],
  );
}

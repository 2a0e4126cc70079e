/**
 * The frame of every wizard (docs/reference.md admin-console §2 "Common wizard parts"): the page heading, the Stepper
 * (steps that do not apply shown disabled), the current step, and the live card preview beside it.
 * Moving between steps skips the disabled ones (the Application wizard's navigation rules are exactly
 * that: 3.1 is disabled for active, 3.2 for passive); Back from the first step goes to the chooser.
 * Each step is a form whose submit is Next (`StepButtons`), so a step validates before moving on.
 */
import { useAtom } from "jotai";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import type { ReactNode } from "react";
import { Button } from "../../../../ui/kit/Button.tsx";
import { Stepper } from "../../../../ui/kit/Stepper.tsx";
import type { StepperStep } from "../../../../ui/kit/Stepper.tsx";
import { PageHeader } from "../../../components/PageHeader.tsx";
import { CardPreview } from "./CardPreview.tsx";
import { wizardAtom } from "./wizard-state.ts";
import type { WizardDraft } from "./wizard-state.ts";

/** How a step moves the wizard. */
export interface StepNav {
  /** To the next step that applies. */
  next: () => void;
  /** To the previous step that applies, or the chooser from the first. */
  back: () => void;
}

/** One step of a wizard: the Stepper's entry and what it shows. */
export interface WizardStep extends StepperStep {
  render: (nav: StepNav, draft: WizardDraft) => ReactNode;
}

/** The wizard page around the current step of `draft`. */
export function WizardFrame({
  title,
  steps,
  draft,
}: {
  title: string;
  steps: readonly WizardStep[];
  draft: WizardDraft;
}) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const [, setDraft] = useAtom(wizardAtom);
  const index = Math.max(
    0,
    steps.findIndex((s) => s.id === draft.step),
  );
  const step = steps[index]!;
  const go = (to: number | undefined): void => {
    const target = to === undefined ? undefined : steps[to];
    if (target) setDraft((d) => (d ? { ...d, step: target.id } : d));
    window.scrollTo({ top: 0 });
  };
  const nav: StepNav = {
    next: () => go(steps.findIndex((s, i) => i > index && !s.disabled)),
    back: () => {
      const previous = steps.findLastIndex((s, i) => i < index && !s.disabled);
      if (previous < 0) void navigate({ to: "/admin/knocs/new" });
      else go(previous);
    },
  };
  return (
    <>
      <PageHeader title={title} />
      <Stepper label={t`Wizard steps`} steps={steps} current={step.id} />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]">
        <section aria-labelledby="wizard-step-title" className="min-w-0">
          <h2 id="wizard-step-title" className="mb-4 text-lg font-semibold text-slate-900 dark:text-white">
            {step.label}
          </h2>
          {step.render(nav, draft)}
        </section>
        <CardPreview draft={draft} />
      </div>
    </>
  );
}

/**
 * The buttons under a step: Back, and Next as the step form's submit button (disabled with
 * `nextDisabled`, e.g. until an agent is chosen; `nextLabel` on the last step; `busy` while creating).
 */
export function StepButtons({
  onBack,
  nextDisabled = false,
  nextLabel,
  busy = false,
}: {
  onBack: () => void;
  nextDisabled?: boolean;
  nextLabel?: string;
  busy?: boolean;
}) {
  return (
    <div className="mt-6 flex justify-between gap-2">
      <Button onClick={onBack}>
        <Trans>Back</Trans>
      </Button>
      <Button type="submit" variant="primary" disabled={nextDisabled} busy={busy}>
        {nextLabel ?? <Trans>Next</Trans>}
      </Button>
    </div>
  );
}

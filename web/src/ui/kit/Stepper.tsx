/**
 * The step indicator of a wizard (docs/reference.md admin-console §2 "Linux wizard (5 steps)", "Application wizard",
 * §9 "Stepper of the Linux wizard has 5 steps; script wizard 6"): an ordered list in a labelled
 * navigation landmark, the current step marked `aria-current="step"`, finished steps ticked, and
 * steps that do not apply to this run (the Application wizard's 3.1 for active, 3.2 for passive)
 * shown disabled (`aria-disabled`, struck through). The steps are not links: a wizard moves with its
 * Back and Next buttons, whose rules (validation, skipped steps) the stepper does not know.
 */
import type { ReactNode } from "react";

/** One step: its id, its number as shown ("1", "3.1"), its label, and whether it is skipped in this run. */
export interface StepperStep {
  id: string;
  number: string;
  label: ReactNode;
  disabled?: boolean;
}

/** Props of Stepper: the steps in order, the current step's id, and the landmark's accessible name. */
export interface StepperProps {
  steps: readonly StepperStep[];
  current: string;
  label: string;
}

/** The wizard's steps, the current one highlighted. */
export function Stepper({ steps, current, label }: StepperProps) {
  const currentIndex = steps.findIndex((s) => s.id === current);
  return (
    <nav aria-label={label} className="mb-6">
      <ol className="flex flex-wrap gap-2" data-testid="stepper">
        {steps.map((step, index) => {
          const isCurrent = step.id === current;
          const done = !step.disabled && index < currentIndex;
          const tone = step.disabled
            ? "text-slate-500 line-through ring-slate-200 dark:text-slate-400 dark:ring-slate-700"
            : isCurrent
              ? "bg-accent-700 text-white ring-accent-700"
              : done
                ? "text-accent-900 ring-accent-300 dark:text-accent-200 dark:ring-accent-700"
                : "text-slate-700 ring-slate-300 dark:text-slate-300 dark:ring-slate-600";
          return (
            <li
              key={step.id}
              aria-current={isCurrent ? "step" : undefined}
              aria-disabled={step.disabled || undefined}
              data-step={step.id}
              className={`flex items-center gap-2 rounded-full px-3 py-1 text-sm font-medium ring-1 ring-inset ${tone}`}
            >
              <span aria-hidden="true" className="tabular-nums">
                {done ? "✓" : step.number}
              </span>
              <span>{step.label}</span>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

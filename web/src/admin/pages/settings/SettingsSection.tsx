/**
 * The frame of one Settings section (docs/reference.md admin-console §2 "Settings: sections, each with its own save
 * button", §4 "forms track a dirty state; Cancel and Save are enabled only when values differ; a
 * changed section has a highlighted border"): a titled region holding a `noValidate` form (the
 * shared zod schemas validate) with the section's fields, and Cancel (back to the stored values)
 * and Save (spinner while the write runs). An invalid submit focuses the first error
 * (react-hook-form's shouldFocusError).
 */
import { useId } from "react";
import type { FormEvent, ReactNode } from "react";
import { Trans } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";

/** Props of SettingsSection. */
export interface SettingsSectionProps {
  /** The section's heading (h2) and the region's accessible name. */
  title: string;
  /** One or two sentences under the heading. */
  description?: ReactNode;
  /** Whether the values differ from the stored ones (enables Cancel and Save, highlights the border). */
  dirty: boolean;
  /** Whether the section's write is running (Save shows its spinner). */
  busy: boolean;
  /** Puts the stored values back. */
  onCancel: () => void;
  onSubmit: (event: FormEvent<HTMLFormElement>) => Promise<void> | void;
  /** The test id of the region (`settings-<section>`). */
  testId: string;
  children: ReactNode;
}

/** A settings section with its own Cancel and Save. */
export function SettingsSection({
  title,
  description,
  dirty,
  busy,
  onCancel,
  onSubmit,
  testId,
  children,
}: SettingsSectionProps) {
  const headingId = useId();
  return (
    <section
      aria-labelledby={headingId}
      data-testid={testId}
      data-dirty={dirty ? "true" : undefined}
      className={`rounded-xl bg-white p-6 shadow-sm ring-1 dark:bg-slate-900 ${
        dirty ? "ring-2 ring-accent-600 dark:ring-accent-400" : "ring-slate-200 dark:ring-slate-700"
      }`}
    >
      <SectionHeading id={headingId} title={title} description={description} />
      <form noValidate onSubmit={(event) => void onSubmit(event)} className="mt-4 space-y-4">
        {children}
        <div className="flex justify-end gap-2">
          <Button disabled={!dirty || busy} onClick={onCancel}>
            <Trans>Cancel</Trans>
          </Button>
          <Button type="submit" variant="primary" disabled={!dirty} busy={busy}>
            <Trans>Save</Trans>
          </Button>
        </div>
      </form>
    </section>
  );
}

/** The heading of a settings section (h2 with `id`) and its description. */
export function SectionHeading({ id, title, description }: { id: string; title: string; description?: ReactNode }) {
  return (
    <>
      <h2 id={id} className="text-lg font-semibold text-slate-900 dark:text-white">
        {title}
      </h2>
      {description ? <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{description}</p> : null}
    </>
  );
}

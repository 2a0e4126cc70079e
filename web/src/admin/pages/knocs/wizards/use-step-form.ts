/**
 * The form of one wizard step: react-hook-form with the step's zod schema (wizard-schemas.ts),
 * starting from the draft's values for that step and writing every change back to the draft, so the
 * live card preview follows the typing and Back shows the values again.
 */
import { useEffect } from "react";
import { useSetAtom } from "jotai";
import { useForm } from "react-hook-form";
import type { FieldValues, UseFormReturn } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import type { z } from "zod";
import { wizardAtom } from "./wizard-state.ts";
import type { WizardDraft } from "./wizard-state.ts";

/** The parts of the draft a step form edits. */
export type StepKey = "settings" | "options" | "apiKey" | "envVars";

/** The form of the draft's `key`, validated by `schema`. */
export function useStepForm<K extends StepKey>(
  key: K,
  schema: z.ZodType,
  draft: WizardDraft,
): UseFormReturn<WizardDraft[K] & FieldValues> {
  const setDraft = useSetAtom(wizardAtom);
  const form = useForm<WizardDraft[K] & FieldValues>({
    resolver: zodResolver(schema as never) as never,
    defaultValues: structuredClone(draft[key]) as never,
  });
  useEffect(() => {
    const subscription = form.watch(() => {
      const values = structuredClone(form.getValues()) as WizardDraft[K];
      setDraft((d) => (d ? { ...d, [key]: values } : d));
    });
    return () => subscription.unsubscribe();
  }, [form, key, setDraft]);
  return form;
}

/** The watched value at a dotted `path` of a step form (paths are built at run time from the backend type). */
export function watchPath<T>(form: { watch: unknown }, path: string): T {
  return (form.watch as (p: string) => T)(path);
}

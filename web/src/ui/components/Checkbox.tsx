/**
 * A labelled checkbox (the kiosk option, docs/reference.md user-portal §2 "This is a public computer"), built on
 * Headless UI's accessible Checkbox: role checkbox, label association, keyboard (Space) and a hidden
 * form input named `name`.
 */
import type { ReactNode } from "react";
import { Checkbox as HeadlessCheckbox, Field, Label } from "@headlessui/react";

/** A labelled checkbox; `name` is the form field name. */
export function Checkbox({
  label,
  name,
  checked,
  onChange,
}: {
  label: ReactNode;
  name: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <Field className="flex items-center gap-2">
      <HeadlessCheckbox
        name={name}
        checked={checked}
        onChange={onChange}
        className="group flex size-4 shrink-0 cursor-pointer items-center justify-center rounded border border-slate-400 bg-white focus:outline-none data-checked:border-accent-700 data-checked:bg-accent-700 data-focus:outline-2 data-focus:outline-offset-2 data-focus:outline-accent-600 dark:border-slate-500 dark:bg-slate-900"
      >
        <svg
          viewBox="0 0 14 14"
          fill="none"
          aria-hidden="true"
          className="size-3 stroke-white opacity-0 group-data-checked:opacity-100"
        >
          <path d="M3 8l3 3 5-7" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </HeadlessCheckbox>
      <Label className="cursor-pointer text-sm text-slate-700 dark:text-slate-300">{label}</Label>
    </Field>
  );
}

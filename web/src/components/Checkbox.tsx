/**
 * A native checkbox with its label (the kiosk option, user-portal §2 "This is a public computer").
 */
import { useId } from "react";
import type { ReactNode } from "react";

/** A labelled checkbox; `name` is the form field name. */
export function Checkbox({ label, name, checked, onChange }: { label: ReactNode; name: string; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <div className="flex items-center gap-2">
      <input
        id={id}
        name={name}
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        className="size-4 rounded border-slate-300 accent-accent-700 dark:border-slate-600"
      />
      <label htmlFor={id} className="text-sm text-slate-700 dark:text-slate-300">
        {label}
      </label>
    </div>
  );
}

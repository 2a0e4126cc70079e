/**
 * A labelled, required text input (user-portal §5: required fields show a red asterisk;
 * autocomplete is off on fields).
 */
import { useId } from "react";
import type { ReactNode } from "react";

/** Props of TextField: `label` is the visible (and accessible) name; `value` is controlled. */
export interface TextFieldProps {
  label: ReactNode;
  name: string;
  type: "text" | "password";
  value: string;
  onChange: (value: string) => void;
  autoFocus?: boolean;
}

const inputClass =
  "block w-full rounded-md border-0 bg-white px-3 py-2 text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-accent-600 sm:text-sm dark:bg-slate-900 dark:text-white dark:ring-slate-700";

/** A required text field with its label and a red asterisk. */
export function TextField({ label, name, type, value, onChange, autoFocus }: TextFieldProps) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
        <span aria-hidden="true" className="ml-0.5 text-red-600">
          *
        </span>
      </label>
      <input
        id={id}
        name={name}
        type={type}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        required
        aria-required="true"
        autoFocus={autoFocus}
        className={inputClass}
      />
    </div>
  );
}

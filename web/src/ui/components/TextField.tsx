/**
 * A labelled, required text input (docs/reference.md user-portal §5: required fields show a red asterisk;
 * autocomplete is off on fields). A field error is shown under the input and tied to it with
 * aria-describedby / aria-invalid.
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
  /** "numeric" for codes (mobile keyboards show digits). */
  inputMode?: "text" | "numeric";
  maxLength?: number;
  /** Text under the field in red; marks the input invalid. */
  error?: string | undefined;
  /** Content under the field (e.g. a strength meter), described by it. */
  children?: ReactNode;
}

const inputClass =
  "block w-full rounded-md border-0 bg-white px-3 py-2 text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-inset focus:ring-accent-600 aria-invalid:ring-red-500 sm:text-sm dark:bg-slate-950 dark:text-white dark:ring-slate-600";

/** A required text field with its label and a red asterisk. */
export function TextField({
  label,
  name,
  type,
  value,
  onChange,
  autoFocus,
  inputMode,
  maxLength,
  error,
  children,
}: TextFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const extraId = `${id}-extra`;
  const describedBy = [error ? errorId : "", children ? extraId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
        <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
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
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        autoFocus={autoFocus}
        inputMode={inputMode}
        maxLength={maxLength}
        className={inputClass}
      />
      {children ? <div id={extraId}>{children}</div> : null}
      {error ? (
        <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}

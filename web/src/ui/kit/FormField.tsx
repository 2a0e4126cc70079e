/**
 * A labelled input for react-hook-form forms (admin console): the label, a red asterisk when
 * required, the input (`register`'s props spread in), an optional hint and the field's error tied to
 * the input with aria-describedby / aria-invalid.
 */
import { useId } from "react";
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

/** Props: the visible label, the error text (already translated), a hint, and the input's own props. */
export interface FormFieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
}

/** Shared look of text inputs. */
export const inputClass =
  "block w-full rounded-md border-0 bg-white px-3 py-2 text-slate-900 shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-500 focus:ring-2 focus:ring-inset focus:ring-accent-600 aria-invalid:ring-red-500 disabled:bg-slate-100 disabled:text-slate-600 sm:text-sm dark:bg-slate-950 dark:text-white dark:ring-slate-600 dark:disabled:bg-slate-800 dark:disabled:text-slate-300";

/** A text-like input with its label, hint and error. */
export function FormField({ label, error, hint, required, id: givenId, ...input }: FormFieldProps) {
  const generated = useId();
  const id = givenId ?? generated;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : "", hint ? hintId : ""].filter(Boolean).join(" ") || undefined;
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
        {required ? (
          <span aria-hidden="true" className="ml-0.5 text-red-600 dark:text-red-400">
            *
          </span>
        ) : null}
      </label>
      <input
        id={id}
        autoComplete="off"
        spellCheck={false}
        aria-required={required || undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={inputClass}
        {...input}
      />
      {hint ? (
        <p id={hintId} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** Props of SelectField: the label, the options (value → visible text) and the select's own props. */
export interface SelectFieldProps extends SelectHTMLAttributes<HTMLSelectElement> {
  label: ReactNode;
  options: readonly { value: string; label: string }[];
  error?: string | undefined;
}

/** A labelled select. */
export function SelectField({ label, options, error, id: givenId, ...select }: SelectFieldProps) {
  const generated = useId();
  const id = givenId ?? generated;
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium text-slate-700 dark:text-slate-200">
        {label}
      </label>
      <select id={id} aria-invalid={error ? true : undefined} className={inputClass} {...select}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error ? <p className="mt-1 text-sm text-red-700 dark:text-red-300">{error}</p> : null}
    </div>
  );
}

/** A labelled checkbox (the label after the box). */
export function CheckField({
  label,
  id: givenId,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & { label: ReactNode }) {
  const generated = useId();
  const id = givenId ?? generated;
  return (
    <div className="flex items-center gap-2">
      <input id={id} type="checkbox" className="size-4 rounded border-slate-400 accent-accent-700" {...input} />
      <label htmlFor={id} className="text-sm text-slate-800 dark:text-slate-200">
        {label}
      </label>
    </div>
  );
}

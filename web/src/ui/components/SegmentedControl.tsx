/**
 * A row of radio buttons drawn as one segmented control (colour mode, view). Each option is a
 * real radio input inside its label, so it is announced as "Dark, radio, 2 of 3"; icons-only
 * segments keep their text for screen readers and show it as a tooltip (200 ms, docs/reference.md user-portal §9).
 */
import type { ReactNode } from "react";

/** One option: its value, text and optional icon. */
export interface SegmentOption<T extends string> {
  value: T;
  label: string;
  icon?: ReactNode;
}

/** Props: the group's legend, its name, the options, the value and the change handler. */
export interface SegmentedControlProps<T extends string> {
  legend: string;
  name: string;
  options: readonly SegmentOption<T>[];
  value: T;
  onChange: (value: T) => void;
  /** Show only the icons (the text stays for screen readers and in the tooltip). */
  iconsOnly?: boolean;
  testId?: string;
}

/** The segmented radio group. */
export function SegmentedControl<T extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  iconsOnly = false,
  testId,
}: SegmentedControlProps<T>) {
  return (
    <fieldset
      data-testid={testId}
      className="inline-flex shrink-0 rounded-lg bg-slate-100 p-0.5 ring-1 ring-inset ring-slate-200 dark:bg-slate-800 dark:ring-slate-700"
    >
      <legend className="sr-only">{legend}</legend>
      {options.map((option) => (
        <label
          key={option.value}
          data-tooltip={iconsOnly ? option.label : undefined}
          className="tooltip relative flex cursor-pointer items-center gap-1.5 rounded-md px-2 py-1 text-sm font-medium text-slate-600 hover:text-slate-900 has-checked:bg-white has-checked:text-accent-800 has-checked:shadow-sm has-focus-visible:outline-2 has-focus-visible:outline-offset-1 has-focus-visible:outline-accent-600 dark:text-slate-300 dark:hover:text-white dark:has-checked:bg-slate-950 dark:has-checked:text-accent-300"
        >
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
            className="absolute inset-0 m-0 size-full cursor-pointer appearance-none rounded-md opacity-0"
          />
          {option.icon}
          <span className={iconsOnly ? "sr-only" : undefined}>{option.label}</span>
        </label>
      ))}
    </fieldset>
  );
}

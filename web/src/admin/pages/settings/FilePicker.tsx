/**
 * The "Choose file" button of the settings' uploads (logos, certificates, keys, metadata): a
 * visually hidden file input inside a button-styled label, so the input keeps its accessible name
 * and focus. The chosen file goes to `onFile`; the input clears itself so the same file can be
 * chosen again.
 */
import type { Ref } from "react";
import { Trans } from "@lingui/react/macro";

/** Props: the input's accessible name, what it offers, its ref, whether its value was refused. */
export interface FilePickerProps {
  ariaLabel: string;
  accept: string;
  onFile: (file: File) => void;
  inputRef?: Ref<HTMLInputElement> | undefined;
  invalid?: boolean;
}

/** A file picker button. */
export function FilePicker({ ariaLabel, accept, onFile, inputRef, invalid = false }: FilePickerProps) {
  return (
    <label className="inline-flex cursor-pointer items-center rounded-md px-3 py-1.5 text-sm font-semibold text-slate-800 ring-1 ring-inset ring-slate-300 focus-within:ring-2 focus-within:ring-accent-600 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800">
      <Trans>Choose file</Trans>
      <input
        ref={inputRef}
        type="file"
        accept={accept}
        aria-label={ariaLabel}
        aria-invalid={invalid || undefined}
        className="sr-only"
        onChange={(event) => {
          const file = event.target.files?.[0];
          event.target.value = "";
          if (file) onFile(file);
        }}
      />
    </label>
  );
}

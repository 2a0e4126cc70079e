/**
 * A file the server keeps for a setting (docs/reference.md admin-console §3 "Uploads carry key, cert and metadata
 * file contents plus Remove flags"): whether one is stored, a file picker whose file is read as
 * text into the form (empty keeps the stored file), and, when one is stored, Remove. The contents
 * of a stored key are never shown.
 */
import type { Ref } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { CheckField } from "../../../ui/kit/FormField.tsx";
import { FilePicker } from "./FilePicker.tsx";

/** Props of UploadField. */
export interface UploadFieldProps {
  label: string;
  /** Whether the server holds such a file. */
  stored: boolean;
  /** What the picker offers, e.g. ".pem,.crt". */
  accept: string;
  /** Whether a new file was chosen (not saved yet). */
  chosen: boolean;
  /** Takes the chosen file's text. */
  onFile: (text: string) => void;
  /** The Remove checkbox's props (react-hook-form's register), shown when a file is stored. */
  remove: Record<string, unknown> & { ref: Ref<HTMLInputElement> };
}

/** One upload with its state and Remove. */
export function UploadField({ label, stored, accept, chosen, onFile, remove }: UploadFieldProps) {
  const { t } = useLingui();
  return (
    <div>
      <div className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">{label}</div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-slate-700 dark:text-slate-300">
        <span>{chosen ? <Trans>New file chosen</Trans> : stored ? <Trans>Stored</Trans> : <Trans>None</Trans>}</span>
        <FilePicker ariaLabel={t`Upload ${label}`} accept={accept} onFile={(file) => void file.text().then(onFile)} />
        {stored ? <CheckField label={t`Remove ${label}`} {...remove} /> : null}
      </div>
    </div>
  );
}

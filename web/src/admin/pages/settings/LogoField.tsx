/**
 * A logo field (docs/reference.md admin-console §3 Logo / LightModeLogo, §5 "logo PNG or JPEG only, drag and drop,
 * removable"): a drop zone that takes a PNG or JPEG file dropped on it or chosen with the file
 * picker, read as a data: URL (base64), the current logo's preview, and Remove. The value is the
 * data: URL, "" for none; the form's rule refuses other image types.
 */
import { useState } from "react";
import type { DragEvent, Ref } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../ui/kit/Button.tsx";
import { FilePicker } from "./FilePicker.tsx";

/** Props: the visible label, the value (data: URL or ""), its change, the error text, the preview backdrop. */
export interface LogoFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
  /** The preview's background: the colour mode the logo is shown in. */
  backdrop: "dark" | "light";
  /** The file input's ref (react-hook-form focuses it when the value is refused). */
  inputRef?: Ref<HTMLInputElement>;
  testId: string;
}

/** Reads a file as a data: URL. */
function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("unreadable file"));
    reader.readAsDataURL(file);
  });
}

/** The logo field. */
export function LogoField({ label, value, onChange, error, backdrop, inputRef, testId }: LogoFieldProps) {
  const { t } = useLingui();
  const [over, setOver] = useState(false);
  const take = (file: File | undefined): void => {
    if (file) void readAsDataUrl(file).then(onChange);
  };
  const drop = (event: DragEvent<HTMLDivElement>): void => {
    event.preventDefault();
    setOver(false);
    take(event.dataTransfer.files[0]);
  };
  return (
    <div>
      <div className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">{label}</div>
      <div
        data-testid={testId}
        data-drag-over={over ? "true" : undefined}
        onDragOver={(event) => {
          event.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={drop}
        className={`flex flex-wrap items-center gap-4 rounded-lg border-2 border-dashed p-4 ${
          over ? "border-accent-600 bg-accent-50 dark:bg-slate-800" : "border-slate-300 dark:border-slate-600"
        } ${error ? "border-red-500" : ""}`}
      >
        <div
          className={`flex h-16 w-40 items-center justify-center rounded-md ring-1 ring-slate-300 dark:ring-slate-600 ${
            backdrop === "dark" ? "bg-slate-900 text-slate-200" : "bg-white text-slate-700"
          }`}
        >
          {value ? (
            <img src={value} alt={t`${label} preview`} className="max-h-14 max-w-36 object-contain" />
          ) : (
            <span className="text-xs">
              <Trans>No logo</Trans>
            </span>
          )}
        </div>
        <div className="flex flex-1 flex-col gap-2 text-sm text-slate-700 dark:text-slate-300">
          <span>
            <Trans>Drop a PNG or JPEG file here, or choose one.</Trans>
          </span>
          <div className="flex flex-wrap gap-2">
            <FilePicker
              ariaLabel={label}
              accept="image/png,image/jpeg"
              inputRef={inputRef}
              invalid={error !== undefined}
              onFile={take}
            />
            {value ? (
              <Button onClick={() => onChange("")} aria-label={t`Remove ${label}`}>
                <Trans>Remove</Trans>
              </Button>
            ) : null}
          </div>
        </div>
      </div>
      {error ? <p className="mt-1 text-sm text-red-700 dark:text-red-300">{error}</p> : null}
    </div>
  );
}

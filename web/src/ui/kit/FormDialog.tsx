/**
 * The form dialog of both apps (the admin console's forms, the portal's approval decisions): a Dialog holding a `noValidate` form (the shared zod
 * schemas validate, not the browser) whose fields are the children, and Cancel plus the submit
 * button (Create, or Save when editing) with its spinner while the write runs.
 */
import type { FormEvent, ReactNode } from "react";
import { Trans } from "@lingui/react/macro";
import { Button } from "./Button.tsx";
import { Dialog } from "./Dialog.tsx";

/** Props of FormDialog. `layout` "grid" puts the fields in two columns from small screens up. */
export interface FormDialogProps {
  title: string;
  onClose: () => void;
  onSubmit: (event: FormEvent<HTMLFormElement>) => Promise<void> | void;
  busy: boolean;
  /** Whether the form edits something that exists (the button says Save) or creates (Create). */
  editing: boolean;
  /** The submit button's text when neither Create nor Save fits. */
  submitLabel?: string;
  size?: "md" | "lg";
  layout?: "stack" | "grid";
  children: ReactNode;
}

/** The open form dialog. */
export function FormDialog({
  title,
  onClose,
  onSubmit,
  busy,
  editing,
  submitLabel,
  size = "md",
  layout = "stack",
  children,
}: FormDialogProps) {
  return (
    <Dialog open onClose={onClose} title={title} size={size}>
      <form
        noValidate
        onSubmit={(event) => void onSubmit(event)}
        className={layout === "grid" ? "grid gap-4 sm:grid-cols-2" : "space-y-4"}
      >
        {children}
        <div className={`flex justify-end gap-2 ${layout === "grid" ? "sm:col-span-2" : ""}`}>
          <Button onClick={onClose}>
            <Trans>Cancel</Trans>
          </Button>
          <Button type="submit" variant="primary" busy={busy}>
            {submitLabel ?? (editing ? <Trans>Save</Trans> : <Trans>Create</Trans>)}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

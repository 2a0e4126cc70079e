/**
 * The one dialog of the admin console (issue #9 item 4): Headless UI's Dialog, which traps the
 * focus, closes on Escape and on a click outside, and returns the focus to what opened it. The
 * title is the dialog's heading and accessible name; `footer` holds its buttons. The portal keeps
 * its native <dialog> (portal/components/Modal.tsx): Headless UI would not fit its 150 KB budget.
 */
import { Dialog as HeadlessDialog, DialogPanel, DialogTitle } from "@headlessui/react";
import type { ReactNode } from "react";

/** Props of Dialog. `role` "alertdialog" for confirmations and errors. */
export interface DialogProps {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  role?: "dialog" | "alertdialog";
  /** Width: "md" (default) for forms and messages, "lg" for tables and code. */
  size?: "md" | "lg";
}

/** A modal dialog; renders nothing while closed. */
export function Dialog({ open, onClose, title, children, footer, role = "dialog", size = "md" }: DialogProps) {
  return (
    <HeadlessDialog
      open={open}
      onClose={onClose}
      role={role}
      className="fixed inset-0 z-50 flex items-start justify-center overflow-y-auto p-4 sm:items-center"
    >
      <div className="fixed inset-0 bg-slate-950/50" aria-hidden="true" />
      <DialogPanel
        className={`relative w-full ${size === "lg" ? "max-w-2xl" : "max-w-md"} rounded-xl bg-white p-6 shadow-xl ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-700`}
      >
        <DialogTitle as="h2" className="text-lg font-semibold text-slate-900 dark:text-white">
          {title}
        </DialogTitle>
        {children ? <div className="mt-4 text-sm text-slate-700 dark:text-slate-300">{children}</div> : null}
        {footer ? <div className="mt-6 flex flex-wrap justify-end gap-2">{footer}</div> : null}
      </DialogPanel>
    </HeadlessDialog>
  );
}

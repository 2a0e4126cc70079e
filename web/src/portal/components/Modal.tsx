/**
 * A modal dialog on the native <dialog> element (no dialog library: the budget of user-portal's
 * dashboard is 150 KB gzip). showModal() gives the focus trap, the inert background and the top
 * layer; Escape closes only when `onClose` is given (the unlicensed dialog cannot be dismissed).
 */
import { useEffect, useId, useRef } from "react";
import type { ReactNode } from "react";

/** Props: the title (heading and accessible name), the body, and how it may be closed. */
export interface ModalProps {
  title: ReactNode;
  children: ReactNode;
  /** Called on Escape; omit for a dialog that must not be dismissed. */
  onClose?: () => void;
  /** "alertdialog" for a dialog that interrupts with a message (the unlicensed dialog). */
  role?: "dialog" | "alertdialog";
  /** Extra attributes for tests and styling. */
  testId?: string;
}

/** Opens as a modal on mount and closes on unmount. */
export function Modal({ title, children, onClose, role = "dialog", testId }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (!dialog.open) dialog.showModal();
    return () => dialog.close();
  }, []);
  return (
    <dialog
      ref={ref}
      role={role === "alertdialog" ? "alertdialog" : undefined}
      aria-labelledby={titleId}
      aria-modal="true"
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose?.();
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-2xl bg-white p-6 text-slate-900 shadow-xl ring-1 ring-slate-200 backdrop:bg-slate-950/50 backdrop:backdrop-blur-sm dark:bg-slate-900 dark:text-slate-100 dark:ring-slate-700"
    >
      <h2 id={titleId} className="text-lg font-semibold tracking-tight">
        {title}
      </h2>
      {children}
    </dialog>
  );
}

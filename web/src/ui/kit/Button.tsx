/**
 * Buttons of the admin console: primary (accent), secondary (outlined), danger (red) and a quiet
 * link-like variant; `busy` shows a spinner and disables the button.
 */
import type { ButtonHTMLAttributes, ReactNode } from "react";
import { Spinner } from "../components/Spinner.tsx";

/** Visual variants. */
export type ButtonVariant = "primary" | "secondary" | "danger" | "quiet";

const VARIANTS: Record<ButtonVariant, string> = {
  primary: "bg-accent-700 text-white shadow-sm hover:bg-accent-800",
  secondary:
    "text-slate-800 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800",
  danger: "bg-red-700 text-white shadow-sm hover:bg-red-800",
  quiet: "text-accent-800 hover:bg-accent-50 dark:text-accent-300 dark:hover:bg-slate-800",
};

/** Props: the native button's, plus the variant and a busy flag. Default type "button". */
export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  busy?: boolean;
  children: ReactNode;
}

/** A button. */
export function Button({ variant = "secondary", busy = false, className = "", children, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      disabled={busy || rest.disabled}
      aria-busy={busy || undefined}
      className={`inline-flex items-center justify-center gap-2 rounded-md px-3 py-2 text-sm font-semibold disabled:cursor-not-allowed disabled:opacity-60 ${VARIANTS[variant]} ${className}`}
    >
      {busy ? <Spinner /> : null}
      {children}
    </button>
  );
}

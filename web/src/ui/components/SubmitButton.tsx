/**
 * The full-width primary submit button of the sign-in forms (login, 2FA): disabled with a spinner
 * while the request is under way.
 */
import type { ReactNode } from "react";
import { Spinner } from "./Spinner.tsx";

/** A submit button showing a spinner and `aria-busy` while `submitting`. */
export function SubmitButton({ submitting, children }: { submitting: boolean; children: ReactNode }) {
  return (
    <button
      type="submit"
      disabled={submitting}
      aria-busy={submitting || undefined}
      className="flex w-full items-center justify-center gap-2 rounded-md bg-accent-700 px-3 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-accent-800 disabled:cursor-wait disabled:opacity-70"
    >
      {submitting ? <Spinner /> : null}
      {children}
    </button>
  );
}

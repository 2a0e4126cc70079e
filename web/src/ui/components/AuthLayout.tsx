/**
 * The frame of the sign-in pages (Login, TwoFactor, TwoFactorOnboard): logo, a card with the
 * page's heading, and content below the card (links).
 */
import type { ReactNode } from "react";
import { Logo } from "./Logo.tsx";

/** `title` is the page's h1; `footer` goes under the card. */
export function AuthLayout({
  title,
  intro,
  children,
  footer,
  wide = false,
}: {
  title: ReactNode;
  intro?: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
}) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-gradient-to-b from-accent-50 to-slate-50 px-4 py-12 dark:from-slate-900 dark:to-slate-950">
      <div className={`w-full ${wide ? "max-w-md" : "max-w-sm"}`}>
        <div className="mb-8 flex justify-center text-xl">
          <Logo />
        </div>
        <div className="rounded-2xl bg-white p-6 shadow-lg ring-1 ring-slate-200 sm:p-8 dark:bg-slate-900 dark:ring-slate-800">
          <h1 className="text-xl font-semibold tracking-tight text-slate-900 dark:text-white">{title}</h1>
          {intro ? <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{intro}</p> : null}
          {children}
        </div>
        {footer ? <div className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">{footer}</div> : null}
      </div>
    </main>
  );
}

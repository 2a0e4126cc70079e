/**
 * The dashboard's top bar: brand on the left, session countdown and Logout on the right (user-portal §2).
 */
import { Trans } from "@lingui/react/macro";
import { BrandMark } from "./BrandMark.tsx";
import { SessionCountdown } from "./SessionCountdown.tsx";

/** `ends`: session end (ISO); `onExpired`: countdown reached 0; `onLogout`: Logout pressed. */
export function TopBar({ ends, onExpired, onLogout, loggingOut }: { ends: string; onExpired: () => void; onLogout: () => void; loggingOut: boolean }) {
  return (
    <header className="sticky top-0 z-10 border-b border-slate-200 bg-white/85 backdrop-blur dark:border-slate-800 dark:bg-slate-950/85">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
        <BrandMark compact />
        <div className="flex items-center gap-3">
          <SessionCountdown ends={ends} onExpired={onExpired} />
          <button
            type="button"
            onClick={onLogout}
            disabled={loggingOut}
            className="rounded-md px-3 py-1.5 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 disabled:opacity-60 dark:text-slate-200 dark:ring-slate-700 dark:hover:bg-slate-900"
          >
            <Trans>Logout</Trans>
          </button>
        </div>
      </div>
    </header>
  );
}

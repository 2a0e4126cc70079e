/**
 * The non-licensed message (user-portal §2, §6): "User Not Licensed" with only Logout available.
 */
import { Trans } from "@lingui/react/macro";

/** Shown instead of the ACL cards when Licensed or UserLicensed is false. */
export function UnlicensedNotice({ onLogout }: { onLogout: () => void }) {
  return (
    <section role="alertdialog" aria-labelledby="unlicensed-title" aria-describedby="unlicensed-text" className="mx-auto max-w-md rounded-xl bg-white p-6 text-center shadow-sm ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800">
      <h2 id="unlicensed-title" className="text-lg font-semibold text-slate-900 dark:text-white">
        <Trans>User Not Licensed</Trans>
      </h2>
      <p id="unlicensed-text" className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        <Trans>A valid license is required. Contact your administrator.</Trans>
      </p>
      <button type="button" onClick={onLogout} className="mt-5 rounded-md bg-accent-700 px-4 py-2 text-sm font-semibold text-white hover:bg-accent-800">
        <Trans>Logout</Trans>
      </button>
    </section>
  );
}

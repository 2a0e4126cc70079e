/**
 * The unlicensed dialog (docs/reference.md user-portal §2 "An unlicensed dialog ("User Not Licensed") with only
 * Logout", §6 "Unlicensed users see a dialog and can only log out"). Modal and not dismissible.
 */
import { Trans } from "@lingui/react/macro";
import { Modal } from "./Modal.tsx";

/** Shown when the status has Licensed or UserLicensed false. */
export function UnlicensedDialog({ onLogout, loggingOut }: { onLogout: () => void; loggingOut: boolean }) {
  return (
    <Modal title={<Trans>User Not Licensed</Trans>} role="alertdialog" testId="unlicensed-dialog">
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">
        <Trans>A valid license is required. Contact your administrator.</Trans>
      </p>
      <div className="mt-6 flex justify-end">
        <button
          type="button"
          onClick={onLogout}
          disabled={loggingOut}
          className="rounded-md bg-accent-700 px-4 py-2 text-sm font-semibold text-white hover:bg-accent-800 disabled:opacity-60"
        >
          <Trans>Logout</Trans>
        </button>
      </div>
    </Modal>
  );
}

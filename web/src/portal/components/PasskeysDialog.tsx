/**
 * The Passkeys dialog of the dashboard (issue #14 item 2; docs/decisions.md "Passkeys"): the user's
 * passkeys with add and remove (PasskeyManager) in a modal. Loaded on demand with the WebAuthn client.
 */
import { Trans } from "@lingui/react/macro";
import { PasskeyManager } from "../../ui/components/PasskeyManager.tsx";
import { Modal } from "./Modal.tsx";

/** The dialog; opens as a modal when mounted, `onClose` on Escape or Close. */
export function PasskeysDialog({ onClose }: { onClose: () => void }) {
  return (
    <Modal title={<Trans>Passkeys</Trans>} onClose={onClose} testId="passkeys-dialog">
      <PasskeyManager audience="user" />
      <div className="mt-6 flex justify-end">
        <button
          type="button"
          onClick={onClose}
          className="rounded-md px-3 py-2 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-700 dark:hover:bg-slate-900"
        >
          <Trans>Close</Trans>
        </button>
      </div>
    </Modal>
  );
}

/**
 * The one-time dialog after an Application Knoc is created (docs/reference.md admin-console §2 "if a key was created a
 * dialog shows the one-time plaintext API key and the allowlist URL (when an allowlist applies), each
 * copyable; closing it resets the wizard and goes to /admin/knocs").
 */
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../../../ui/kit/Button.tsx";
import { Dialog } from "../../../../ui/kit/Dialog.tsx";
import { Copyable } from "../../../components/Copyable.tsx";

/** Props: the plaintext key (if one was created), the allowlist URL (if any), and what closing does. */
export function CreatedDialog({
  plaintextKey,
  allowlistUrl,
  onClose,
}: {
  plaintextKey: string | undefined;
  allowlistUrl: string | undefined;
  onClose: () => void;
}) {
  const { t } = useLingui();
  return (
    <Dialog
      open
      onClose={onClose}
      size="lg"
      title={t`Knoc created`}
      footer={
        <Button variant="primary" onClick={onClose}>
          <Trans>Close</Trans>
        </Button>
      }
    >
      {plaintextKey ? (
        <>
          <p>
            <Trans>Copy the API key now: it is shown only once.</Trans>
          </p>
          <Copyable id="created-api-key" label={t`API key`} what={t`API key`} value={plaintextKey} />
        </>
      ) : null}
      {allowlistUrl ? (
        <Copyable id="created-allowlist-url" label={t`Allowlist URL`} what={t`allowlist URL`} value={allowlistUrl} />
      ) : null}
    </Dialog>
  );
}

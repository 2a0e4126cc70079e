/**
 * The error dialog of the admin console (docs/reference.md admin-console §8 "Errors appear in a dismissible error
 * dialog titled 'Error'"): `useShowError()` opens it with a failure's display text (`Err`
 * translated, `Extra` after a colon).
 */
import { atom, useAtom, useSetAtom } from "jotai";
import { useCallback } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { Button } from "../../ui/kit/Button.tsx";
import { Dialog } from "../../ui/kit/Dialog.tsx";
import { adminErrorText } from "../lib/errors.ts";

const errorAtom = atom<string | undefined>(undefined);

/** The function that shows a failure in the error dialog. */
export function useShowError(): (failure: unknown) => void {
  const { i18n } = useLingui();
  const set = useSetAtom(errorAtom);
  return useCallback((failure: unknown) => set(adminErrorText(i18n, failure)), [i18n, set]);
}

/** The dialog itself (once, in the shell). */
export function ErrorDialog() {
  const { t } = useLingui();
  const [message, setMessage] = useAtom(errorAtom);
  const close = (): void => setMessage(undefined);
  return (
    <Dialog
      open={message !== undefined}
      onClose={close}
      role="alertdialog"
      title={t`Error`}
      footer={
        <Button variant="primary" onClick={close}>
          <Trans>Close</Trans>
        </Button>
      }
    >
      <p data-testid="error-text">{message}</p>
    </Dialog>
  );
}

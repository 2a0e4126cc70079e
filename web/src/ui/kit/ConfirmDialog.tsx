/**
 * A confirmation before a destructive action (docs/reference.md admin-console §8 "Delete confirmation uses
 * msg.confirmDelete with the name"): an alertdialog with Cancel and the confirming button, which
 * shows a spinner while `busy`.
 */
import type { ReactNode } from "react";
import { Trans } from "@lingui/react/macro";
import { Button } from "./Button.tsx";
import { Dialog } from "./Dialog.tsx";

/** Props: the question, what confirms, and the running state. */
export interface ConfirmDialogProps {
  open: boolean;
  title: ReactNode;
  children: ReactNode;
  confirmLabel: ReactNode;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/** The confirmation dialog. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busy = false,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      role="alertdialog"
      title={title}
      footer={
        <>
          <Button onClick={onClose}>
            <Trans>Cancel</Trans>
          </Button>
          <Button variant="danger" busy={busy} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}

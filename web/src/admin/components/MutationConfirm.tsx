/**
 * A confirmation that runs a write (docs/reference.md admin-console §8 "Delete confirmation uses msg.confirmDelete
 * with the name"): the ConfirmDialog whose button runs `mutation` with `variables`, shows its
 * spinner meanwhile, then toasts `success` and closes, or closes and opens the error dialog.
 */
import type { ReactNode } from "react";
import type { UseMutationResult } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { ConfirmDialog } from "../../ui/kit/ConfirmDialog.tsx";
import { useFeedback } from "../lib/feedback.ts";

/** Props of MutationConfirm; `onDone` replaces the plain close after success (a navigation). */
export interface MutationConfirmProps<V, R> {
  title: string;
  confirmLabel: string;
  /** The toast after success. */
  success: string;
  mutation: UseMutationResult<R, Error, V>;
  variables: V;
  onClose: () => void;
  onDone?: (result: R) => void;
  children: ReactNode;
}

/** The open confirmation (render it only while it should show). */
export function MutationConfirm<V, R>({
  title,
  confirmLabel,
  success,
  mutation,
  variables,
  onClose,
  onDone,
  children,
}: MutationConfirmProps<V, R>) {
  const feedback = useFeedback();
  return (
    <ConfirmDialog
      open
      title={title}
      confirmLabel={confirmLabel}
      busy={mutation.isPending}
      onClose={onClose}
      onConfirm={() => mutation.mutate(variables, feedback<R>(success, onDone ?? onClose, onClose))}
    >
      {children}
    </ConfirmDialog>
  );
}

/** Props of DeleteConfirm: the dialog's title, the toast after success, the name asked about. */
export type DeleteConfirmProps<V, R> = Omit<MutationConfirmProps<V, R>, "confirmLabel" | "children"> & {
  name: string;
};

/** The delete confirmation of every admin table (docs/reference.md admin-console §8 msg.confirmDelete). */
export function DeleteConfirm<V, R>({ name, ...props }: DeleteConfirmProps<V, R>) {
  const { t } = useLingui();
  return (
    <MutationConfirm {...props} confirmLabel={t`Delete`}>
      <Trans>Are you sure you want to delete {name}?</Trans>
    </MutationConfirm>
  );
}

/**
 * What follows a write in the admin console (issue #9 item 15, docs/reference.md admin-console §8): success shows a
 * confirmation toast and closes the dialog; failure opens the error dialog titled "Error" with the
 * spec's display rule for `Err` and `Extra`.
 */
import { useCallback } from "react";
import { useToast } from "../../ui/kit/Toasts.tsx";
import { useShowError } from "../components/ErrorDialog.tsx";

/** Callbacks for `mutation.mutate(vars, callbacks)`. */
export interface Feedback<R> {
  onSuccess: (result: R) => void;
  onError: (failure: unknown) => void;
}

/**
 * Returns `feedback(message, done, failed?)`: on success toast `message` and call `done` with the
 * server's answer; on failure call `failed` (confirmations close themselves; forms pass nothing and
 * stay open so the admin can correct them), then show the error dialog.
 */
export function useFeedback(): <R = unknown>(
  message: string,
  done: (result: R) => void,
  failed?: () => void,
) => Feedback<R> {
  const toast = useToast();
  const showError = useShowError();
  return useCallback(
    <R>(message: string, done: (result: R) => void, failed?: () => void): Feedback<R> => ({
      onSuccess: (result: R) => {
        toast(message);
        done(result);
      },
      onError: (failure: unknown) => {
        failed?.();
        showError(failure);
      },
    }),
    [toast, showError],
  );
}

/**
 * Confirmations after a successful action (docs/reference.md admin-console §4 "Dialog success reloads the list and
 * shows a confirmation"): a stack of short messages in a polite live region, each gone after 5 s
 * or when dismissed. `useToast()` returns the function that shows one.
 */
import { atom, useAtomValue, useSetAtom } from "jotai";
import { useCallback } from "react";
import { useLingui } from "@lingui/react/macro";

/** How long a confirmation stays, in ms. */
export const TOAST_MS = 5_000;

interface Toast {
  id: number;
  text: string;
}

const toastsAtom = atom<Toast[]>([]);
let nextId = 1;

/** The function that shows a confirmation. */
export function useToast(): (text: string) => void {
  const set = useSetAtom(toastsAtom);
  return useCallback(
    (text: string) => {
      const id = nextId++;
      set((list) => [...list, { id, text }]);
      window.setTimeout(() => set((list) => list.filter((t) => t.id !== id)), TOAST_MS);
    },
    [set],
  );
}

/** Where confirmations appear (bottom right). */
export function Toaster() {
  const { t } = useLingui();
  const toasts = useAtomValue(toastsAtom);
  const set = useSetAtom(toastsAtom);
  return (
    <div role="status" aria-live="polite" className="fixed bottom-4 right-4 z-50 flex w-80 flex-col gap-2">
      {toasts.map((toast) => (
        <div
          key={toast.id}
          data-testid="toast"
          className="flex items-start justify-between gap-3 rounded-lg bg-slate-900 px-4 py-3 text-sm text-white shadow-lg dark:bg-slate-100 dark:text-slate-900"
        >
          <span>{toast.text}</span>
          <button
            type="button"
            aria-label={t`Dismiss`}
            onClick={() => set((list) => list.filter((x) => x.id !== toast.id))}
            className="shrink-0 font-semibold"
          >
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

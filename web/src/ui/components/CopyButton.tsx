/**
 * A Copy button that writes a text to the clipboard and reads "Copied" for 750 ms (docs/reference.md user-portal §9,
 * docs/reference.md admin-console §9 "Copy confirmation 750 ms"). Without clipboard access the target element's text
 * is selected for a manual copy instead.
 */
import { useEffect, useRef, useState } from "react";
import { Trans } from "@lingui/react/macro";
import { CopyIcon } from "./icons.tsx";

/** How long "Copied" shows after a copy, in ms. */
export const COPY_CONFIRMATION_MS = 750;

/**
 * Props: the text to copy; `selectId` names the element to select when the clipboard is refused;
 * `what` completes the button's accessible name ("Copy <what>") when several copy buttons share a
 * page (visually hidden: the visible text stays part of the name).
 */
export function CopyButton({ text, selectId, what }: { text: string; selectId?: string; what?: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const node = selectId === undefined ? null : document.getElementById(selectId);
      if (node) window.getSelection()?.selectAllChildren(node);
      return;
    }
    setCopied(true);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setCopied(false), COPY_CONFIRMATION_MS);
  }

  return (
    <>
      <button
        type="button"
        onClick={() => void copy()}
        className="inline-flex shrink-0 items-center gap-1.5 rounded-md px-3 py-2 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
      >
        <CopyIcon className="size-4" />
        {copied ? <Trans>Copied</Trans> : <Trans>Copy</Trans>}
        {what ? <span className="sr-only"> {what}</span> : null}
      </button>
      <span role="status" className="sr-only">
        {copied ? <Trans>Copied to the clipboard</Trans> : ""}
      </span>
    </>
  );
}

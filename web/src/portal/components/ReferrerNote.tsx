/**
 * The home pages' note about the return address the portal was opened with (issue #14 item 3,
 * docs/decisions.md "Back to the protected page"): waiting for a grant, waiting for the user's Grant
 * click, on the way back, or not followed. The address itself is never shown (it came from a link
 * anyone could write).
 */
import { Trans } from "@lingui/react/macro";
import type { ReferrerNote as Note } from "../hooks/useReferrer.ts";

/** One short `role="status"` line for `note` (nothing when undefined); `data-referrer` carries its kind. */
export function ReferrerNote({ note }: { note: Note | undefined }) {
  if (note === undefined) return null;
  const ignored = note.kind === "ignored";
  const tone = ignored
    ? "bg-amber-50 text-amber-900 ring-amber-200 dark:bg-amber-950/50 dark:text-amber-100 dark:ring-amber-900"
    : "bg-sky-50 text-sky-900 ring-sky-200 dark:bg-sky-950/50 dark:text-sky-100 dark:ring-sky-900";
  return (
    <p role="status" data-referrer={note.kind} className={`rounded-md px-3 py-2 text-sm ring-1 ${tone}`}>
      <NoteText note={note} />
    </p>
  );
}

function NoteText({ note }: { note: Note }) {
  switch (note.kind) {
    case "leaving":
      return <Trans>Access granted. Taking you back to the page you came from…</Trans>;
    case "waiting": {
      const description = note.description;
      return note.needsClick ? (
        <Trans>Grant access to {description} to go back to the page you came from.</Trans>
      ) : (
        <Trans>You will be taken back to the page you came from as soon as access to {description} is granted.</Trans>
      );
    }
    case "ignored": {
      const description = note.description ?? "";
      return note.reason === "failed" ? (
        <Trans>
          Access to {description} could not be granted, so you were not taken back to the page you came from.
        </Trans>
      ) : (
        <Trans>The return address in your link was not followed: it does not belong to any of your resources.</Trans>
      );
    }
  }
}

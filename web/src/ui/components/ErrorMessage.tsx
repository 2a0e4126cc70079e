/**
 * An error line in red, "Error: …" (docs/reference.md user-portal §8: login and 2FA errors show in red as "Error: ...").
 */
import { Trans } from "@lingui/react/macro";

/** Renders nothing for an empty message; otherwise a live alert with the translated "Error:" prefix. */
export function ErrorMessage({ message, className = "" }: { message: string | undefined; className?: string }) {
  if (message === undefined || message === "") return null;
  return (
    <p
      role="alert"
      className={`rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200 dark:bg-red-950/50 dark:text-red-300 dark:ring-red-900 ${className}`}
    >
      <Trans>Error: {message}</Trans>
    </p>
  );
}

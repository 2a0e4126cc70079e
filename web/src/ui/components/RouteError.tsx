/**
 * Shown when a route cannot load (e.g. the server is unreachable while checking the session).
 */
import { useRouter } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { errorText } from "../api/error-messages.ts";
import { ErrorMessage } from "./ErrorMessage.tsx";

/** The error and a "Try again" button that reloads the route. */
export function RouteError({ error }: { error: unknown }) {
  const { i18n } = useLingui();
  const router = useRouter();
  return (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col justify-center gap-4 px-4">
      <ErrorMessage message={errorText(i18n, error)} />
      <button
        type="button"
        onClick={() => void router.invalidate()}
        className="self-start rounded-md bg-accent-700 px-4 py-2 text-sm font-semibold text-white hover:bg-accent-800"
      >
        <Trans>Try again</Trans>
      </button>
    </main>
  );
}

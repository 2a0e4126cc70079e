/**
 * The passkey choice of the two-factor pages of both apps (issue #14 item 2; docs/decisions.md
 * "Passkeys"): `usePasskeyFactor` asks the server which second factors the pending sign-in can give
 * (a passkey, a TOTP code, or both); `PasskeyButton` runs the passkey ceremony and completes the
 * sign-in. A sign-in that no longer owes a factor goes back to login (`onInvalidSession`) when the
 * user acts, as the code form does.
 */
import { useEffect, useState } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { msg } from "@lingui/core/macro";
import { ApiError } from "../api/client.ts";
import { errorText } from "../api/error-messages.ts";
import { isPasskeyCancel, passkeySignInOptions, signInWithPasskey } from "../api/passkeys.ts";
import type { PasskeyAudience } from "../api/passkeys.ts";
import { ErrorMessage } from "./ErrorMessage.tsx";
import { Spinner } from "./Spinner.tsx";

/** What the pending sign-in can answer with: `loading` until known; `passkey` and `totp` then. */
export interface SecondFactors {
  loading: boolean;
  passkey: boolean;
  totp: boolean;
}

/**
 * The second factors of the pending sign-in (POST …/otp/passkeys/authentication/options). When the
 * server cannot say (no pending sign-in, or any other error), the code form is offered: submitting it
 * then shows why.
 */
export function usePasskeyFactor(audience: PasskeyAudience): SecondFactors {
  const [factors, setFactors] = useState<SecondFactors>({ loading: true, passkey: false, totp: true });
  useEffect(() => {
    let live = true;
    passkeySignInOptions(audience)
      .then((answer) => {
        if (live) setFactors({ loading: false, passkey: answer.Options !== null, totp: answer.Totp });
      })
      .catch(() => {
        if (live) setFactors({ loading: false, passkey: false, totp: true });
      });
    return () => {
      live = false;
    };
  }, [audience]);
  return factors;
}

/** Props: whose sign-in, what to do when it completed or was lost, and whether an "or" line follows. */
export interface PasskeyButtonProps {
  audience: PasskeyAudience;
  onSignedIn: () => Promise<void>;
  onInvalidSession: () => void;
  /** Show "or enter a code" under the button (the account has TOTP too). */
  orCode?: boolean;
}

/** "Use a passkey": fetches a fresh challenge, runs the browser's ceremony, completes the sign-in. */
export function PasskeyButton({ audience, onSignedIn, onInvalidSession, orCode = false }: PasskeyButtonProps) {
  const { i18n } = useLingui();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  async function run(): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      const { Options } = await passkeySignInOptions(audience);
      if (Options === null) throw new ApiError(401, { Err: "Passkey not accepted" }, "Passkey not accepted");
      await signInWithPasskey(audience, Options);
      await onSignedIn();
    } catch (failure) {
      if (failure instanceof ApiError && failure.isInvalidSession) {
        onInvalidSession();
        return;
      }
      setError(
        isPasskeyCancel(failure)
          ? i18n._(msg`The passkey prompt was cancelled or timed out.`)
          : errorText(i18n, failure),
      );
      setBusy(false);
    }
  }

  return (
    <div className="mt-6 space-y-4">
      <button
        type="button"
        onClick={() => void run()}
        disabled={busy}
        aria-busy={busy || undefined}
        className="flex w-full items-center justify-center gap-2 rounded-md bg-accent-700 px-3 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-accent-800 disabled:cursor-wait disabled:opacity-70"
      >
        {busy ? <Spinner /> : null}
        <Trans>Use a passkey</Trans>
      </button>
      <ErrorMessage message={error} />
      {orCode ? (
        <p className="text-center text-sm text-slate-600 dark:text-slate-400">
          <Trans>or enter a code from your authenticator app</Trans>
        </p>
      ) : null}
    </div>
  );
}

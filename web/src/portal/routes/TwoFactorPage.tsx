/**
 * TwoFactor (docs/reference.md user-portal §2 "Two-factor page: one code field, a Login button and a back-to-login
 * link"): shown after POST /api/login answered err.totpVerificationRequired. Loaded on demand. An
 * account with a passkey also gets "Use a passkey" (docs/decisions.md "Passkeys"); an account with
 * only passkeys gets no code field.
 */
import { useCallback } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { ApiError } from "../../ui/api/client.ts";
import { AuthLayout } from "../../ui/components/AuthLayout.tsx";
import { PasskeyButton, usePasskeyFactor } from "../../ui/components/PasskeySignIn.tsx";
import { Spinner } from "../../ui/components/Spinner.tsx";
import { BackToLogin, OtpCodeForm } from "../components/OtpCodeForm.tsx";
import { forgetSession, homePathFor, loadSession } from "../api/session.ts";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";

/** The 2FA verification page. */
export function TwoFactorPage() {
  const { t } = useLingui();
  useDocumentHead(t`Two-factor verification`);
  const navigate = useNavigate();
  const lost = useCallback(() => {
    void navigate({ to: "/", search: { error: "err.invalidSession" } });
  }, [navigate]);
  const factors = usePasskeyFactor("user");
  const signedIn = useCallback(async () => {
    forgetSession();
    const session = await loadSession(0);
    if (session === null) throw new ApiError(401, undefined, "");
    await navigate({ to: homePathFor(session) });
  }, [navigate]);
  const passkeyOnly = factors.passkey && !factors.totp;
  return (
    <AuthLayout
      title={<Trans>Two-factor verification</Trans>}
      intro={
        passkeyOnly ? (
          <Trans>Confirm your sign-in with your passkey.</Trans>
        ) : (
          <Trans>Enter the 6-digit code from your authenticator app.</Trans>
        )
      }
      footer={<BackToLogin />}
    >
      {factors.loading ? (
        <div className="mt-6 flex justify-center py-4" aria-busy="true">
          <Spinner />
        </div>
      ) : (
        <>
          {factors.passkey ? (
            <PasskeyButton audience="user" onSignedIn={signedIn} onInvalidSession={lost} orCode={factors.totp} />
          ) : null}
          {passkeyOnly ? null : <OtpCodeForm submitLabel={<Trans>Log in</Trans>} autoFocus={!factors.passkey} />}
        </>
      )}
    </AuthLayout>
  );
}

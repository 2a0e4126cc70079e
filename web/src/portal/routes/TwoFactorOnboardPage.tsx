/**
 * TwoFactorOnboard (docs/reference.md user-portal §2 "Shows a QR code to scan, a copyable secret (copy confirmation
 * lasts 750 ms), a code field and a Verify button, plus a back-to-login link"): shown after POST
 * /api/login answered err.totpEnrolmentRequired; GET /api/otp/generate gives the secret and its
 * otpauth:// URL, drawn as a QR code (ui/components/OtpSecret.tsx). Loaded on demand.
 */
import { useCallback, useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { ApiError } from "../../ui/api/client.ts";
import { errorText } from "../../ui/api/error-messages.ts";
import { generateOtp } from "../api/user.ts";
import { AuthLayout } from "../../ui/components/AuthLayout.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { OtpSecret, useOtpEnrolment } from "../../ui/components/OtpSecret.tsx";
import { BackToLogin, OtpCodeForm } from "../components/OtpCodeForm.tsx";
import { Spinner } from "../../ui/components/Spinner.tsx";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";

/** The 2FA enrolment page. */
export function TwoFactorOnboardPage() {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Set up two-factor authentication`);
  const navigate = useNavigate();
  const [error, setError] = useState<string | undefined>(undefined);
  const onError = useCallback(
    (failure: unknown) => {
      if (failure instanceof ApiError && failure.isInvalidSession) {
        void navigate({ to: "/", search: { error: "err.invalidSession" } });
        return;
      }
      setError(errorText(i18n, failure));
    },
    [i18n, navigate],
  );
  const enrolment = useOtpEnrolment(generateOtp, onError);

  return (
    <AuthLayout
      wide
      title={<Trans>Set up two-factor authentication</Trans>}
      intro={
        <Trans>
          Scan the QR code with your authenticator app, or enter the secret by hand. Then enter the code it shows.
        </Trans>
      }
      footer={<BackToLogin />}
    >
      <ErrorMessage message={error} className="mt-4" />
      {enrolment ? (
        <OtpSecret otp={enrolment.otp} qr={enrolment.qr} />
      ) : error === undefined ? (
        <div className="mt-6 flex justify-center py-8" aria-busy="true">
          <Spinner />
        </div>
      ) : null}
      {enrolment ? <OtpCodeForm submitLabel={<Trans>Verify</Trans>} autoFocus={false} /> : null}
    </AuthLayout>
  );
}

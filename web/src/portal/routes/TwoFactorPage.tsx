/**
 * TwoFactor (docs/reference.md user-portal §2 "Two-factor page: one code field, a Login button and a back-to-login
 * link"): shown after POST /api/login answered err.totpVerificationRequired. Loaded on demand.
 */
import { Trans, useLingui } from "@lingui/react/macro";
import { AuthLayout } from "../../ui/components/AuthLayout.tsx";
import { BackToLogin, OtpCodeForm } from "../components/OtpCodeForm.tsx";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";

/** The 2FA verification page. */
export function TwoFactorPage() {
  const { t } = useLingui();
  useDocumentHead(t`Two-factor verification`);
  return (
    <AuthLayout
      title={<Trans>Two-factor verification</Trans>}
      intro={<Trans>Enter the 6-digit code from your authenticator app.</Trans>}
      footer={<BackToLogin />}
    >
      <OtpCodeForm submitLabel={<Trans>Log in</Trans>} />
    </AuthLayout>
  );
}

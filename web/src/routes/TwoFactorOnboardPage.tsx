/**
 * TwoFactorOnboard (user-portal §2 "Shows a QR code to scan, a copyable secret (copy confirmation
 * lasts 750 ms), a code field and a Verify button, plus a back-to-login link"): shown after POST
 * /api/login answered err.totpEnrolmentRequired; GET /api/otp/generate gives the secret and its
 * otpauth:// URL, drawn as a QR code by the `qrcode` library. Loaded on demand.
 */
import { useEffect, useRef, useState } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { toString as qrSvg } from "qrcode";
import type { OtpGenerateResponse } from "@postern/shared";
import { ApiError } from "../api/client.ts";
import { errorText } from "../api/error-messages.ts";
import { generateOtp } from "../api/user.ts";
import { AuthLayout } from "../components/AuthLayout.tsx";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { CopyIcon } from "../components/icons.tsx";
import { BackToLogin, OtpCodeForm } from "../components/OtpCodeForm.tsx";
import { Spinner } from "../components/Spinner.tsx";
import { useDocumentHead } from "../hooks/useDocumentHead.ts";

/** How long "Copied" shows after copying the secret (user-portal §9: 750 ms). */
export const COPY_CONFIRMATION_MS = 750;

/** The secret in groups of four for reading and typing. */
function groupSecret(secret: string): string {
  return secret.replace(/(.{4})/g, "$1 ").trim();
}

/** The 2FA enrolment page. */
export function TwoFactorOnboardPage() {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Set up two-factor authentication`);
  const navigate = useNavigate();
  const [otp, setOtp] = useState<OtpGenerateResponse | undefined>(undefined);
  const [qr, setQr] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [copied, setCopied] = useState(false);
  const copyTimer = useRef<number | undefined>(undefined);

  useEffect(() => {
    let live = true;
    generateOtp()
      .then(async (generated) => {
        const svg = await qrSvg(generated.URL, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
        if (!live) return;
        setOtp(generated);
        setQr(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch((failure: unknown) => {
        if (!live) return;
        if (failure instanceof ApiError && failure.isInvalidSession) {
          void navigate({ to: "/", search: { error: "err.invalidSession" } });
          return;
        }
        setError(errorText(i18n, failure));
      });
    return () => {
      live = false;
      window.clearTimeout(copyTimer.current);
    };
  }, [i18n, navigate]);

  async function copySecret(secret: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(secret);
    } catch {
      // No clipboard access (insecure context, permission): select the text for a manual copy.
      const node = document.getElementById("otp-secret");
      if (node) window.getSelection()?.selectAllChildren(node);
      return;
    }
    setCopied(true);
    window.clearTimeout(copyTimer.current);
    copyTimer.current = window.setTimeout(() => setCopied(false), COPY_CONFIRMATION_MS);
  }

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
      {otp && qr ? (
        <div className="mt-6 flex flex-col items-center gap-4">
          <img
            src={qr}
            alt={t`QR code for your authenticator app`}
            data-testid="otp-qr"
            className="size-48 rounded-lg bg-white p-1 ring-1 ring-slate-200"
          />
          <div className="w-full">
            <div className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
              <Trans>Secret</Trans>
            </div>
            <div className="flex items-center gap-2">
              <code
                id="otp-secret"
                data-testid="otp-secret"
                data-secret={otp.Secret}
                className="min-w-0 flex-1 break-words rounded-md bg-slate-100 px-3 py-2 font-mono text-sm text-slate-900 dark:bg-slate-800 dark:text-slate-100"
              >
                {groupSecret(otp.Secret)}
              </code>
              <button
                type="button"
                onClick={() => void copySecret(otp.Secret)}
                className="inline-flex shrink-0 items-center gap-1.5 rounded-md px-3 py-2 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
              >
                <CopyIcon className="size-4" />
                {copied ? <Trans>Copied</Trans> : <Trans>Copy</Trans>}
              </button>
            </div>
            <p role="status" className="sr-only">
              {copied ? <Trans>Secret copied to the clipboard</Trans> : ""}
            </p>
          </div>
        </div>
      ) : error === undefined ? (
        <div className="mt-6 flex justify-center py-8" aria-busy="true">
          <Spinner />
        </div>
      ) : null}
      {otp ? <OtpCodeForm submitLabel={<Trans>Verify</Trans>} autoFocus={false} /> : null}
    </AuthLayout>
  );
}

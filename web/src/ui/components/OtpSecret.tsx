/**
 * The enrolment part of the two-factor onboarding pages (docs/reference.md user-portal §2, docs/reference.md admin-console §2): the QR
 * code of the otpauth:// URL (drawn by the `qrcode` library, so this module is loaded on demand),
 * and the base32 secret in groups of four with a Copy button.
 */
import { useEffect, useState } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { toString as qrSvg } from "qrcode";
import type { OtpGenerateResponse } from "@postern/shared";
import { CopyButton } from "./CopyButton.tsx";

/** The secret in groups of four for reading and typing. */
function groupSecret(secret: string): string {
  return secret.replace(/(.{4})/g, "$1 ").trim();
}

/** Draws the otpauth:// URL as an SVG data URL. */
export async function qrDataUrl(url: string): Promise<string> {
  const svg = await qrSvg(url, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** QR code and secret of a generated enrolment; `qr` is the data URL from qrDataUrl. */
export function OtpSecret({ otp, qr }: { otp: OtpGenerateResponse; qr: string }) {
  const { t } = useLingui();
  return (
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
          <CopyButton text={otp.Secret} selectId="otp-secret" />
        </div>
      </div>
    </div>
  );
}

/** Loads the generated secret and its QR code; `generate` is the app's GET …/otp/generate. */
export function useOtpEnrolment(
  generate: () => Promise<OtpGenerateResponse>,
  onError: (failure: unknown) => void,
): { otp: OtpGenerateResponse; qr: string } | undefined {
  const [state, setState] = useState<{ otp: OtpGenerateResponse; qr: string } | undefined>(undefined);
  useEffect(() => {
    let live = true;
    generate()
      .then(async (otp) => {
        const qr = await qrDataUrl(otp.URL);
        if (live) setState({ otp, qr });
      })
      .catch((failure: unknown) => {
        if (live) onError(failure);
      });
    return () => {
      live = false;
    };
  }, [generate, onError]);
  return state;
}

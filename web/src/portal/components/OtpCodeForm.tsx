/**
 * The code form of the two-factor pages (docs/reference.md user-portal §2, §5 "2FA code required on onboarding and on
 * the 2FA page", §8 "Login and 2FA errors show in red as 'Error: ...'"): one code field and a
 * submit button; POST /api/otp/verify, then on to the home page. A session that no longer owes a
 * code (expired, or none) goes back to Login with its error.
 */
import { useState } from "react";
import type { FormEvent, ReactNode } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { ApiError } from "../../ui/api/client.ts";
import { errorText } from "../../ui/api/error-messages.ts";
import { forgetSession, homePathFor, loadSession } from "../api/session.ts";
import { verifyOtp } from "../api/user.ts";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { TextField } from "../../ui/components/TextField.tsx";
import { SubmitButton } from "../../ui/components/SubmitButton.tsx";

/** Longest code accepted by the field (shared OTP_CODE_MAX_LENGTH; a literal to keep zod out). */
const CODE_MAX_LENGTH = 16;

/** `submitLabel` is the button text ("Log in" on TwoFactor, "Verify" on onboarding). */
export function OtpCodeForm({ submitLabel, autoFocus = true }: { submitLabel: ReactNode; autoFocus?: boolean }) {
  const { t, i18n } = useLingui();
  const navigate = useNavigate();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | undefined>(undefined);
  const [submitting, setSubmitting] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const trimmed = code.replace(/\s+/g, "");
    if (trimmed === "") {
      setError(t`Code is required`);
      return;
    }
    setSubmitting(true);
    setError(undefined);
    try {
      await verifyOtp(trimmed);
      forgetSession();
      const session = await loadSession(0);
      if (session === null) throw new ApiError(401, undefined, "");
      await navigate({ to: homePathFor(session) });
    } catch (failure) {
      if (failure instanceof ApiError && failure.isInvalidSession) {
        await navigate({ to: "/", search: { error: "err.invalidSession" } });
        return;
      }
      setError(errorText(i18n, failure));
      setSubmitting(false);
    }
  }

  return (
    <form className="mt-6 space-y-4" onSubmit={(event) => void submit(event)} autoComplete="off" noValidate>
      <TextField
        label={<Trans>Code</Trans>}
        name="code"
        type="text"
        inputMode="numeric"
        maxLength={CODE_MAX_LENGTH}
        value={code}
        onChange={setCode}
        autoFocus={autoFocus}
      />
      <ErrorMessage message={error} />
      <SubmitButton submitting={submitting}>{submitLabel}</SubmitButton>
    </form>
  );
}

/** The "Back to login" link under the two-factor pages. */
export function BackToLogin() {
  return (
    <a href="/" className="font-medium text-accent-700 hover:underline dark:text-accent-300">
      <Trans>Back to login</Trans>
    </a>
  );
}

/**
 * Admin two-factor pages (docs/reference.md admin-console §2, §6, §7), loaded on demand: /admin/otp/verify asks for
 * the code of an enrolled admin; /admin/otp/onboard shows the QR code and the copyable secret of
 * GET /api/admin/otp/generate, then asks for the first code, or defers the enrolment ("Set up
 * later") where the server allows it. Both POST /api/admin/otp/verify and go to /admin/home; a
 * sign-in that no longer owes a code goes back to admin login with "Invalid session".
 */
import { useCallback, useState } from "react";
import type { ReactNode } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useNavigate } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { OtpVerifyRequestSchema, Errors } from "@postern/shared";
import type { AdminOtpVerifyRequest, OtpVerifyRequest } from "@postern/shared";
import { ApiError } from "../../ui/api/client.ts";
import { AuthLayout } from "../../ui/components/AuthLayout.tsx";
import { Button } from "../../ui/kit/Button.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { FormField } from "../../ui/kit/FormField.tsx";
import { OtpSecret, useOtpEnrolment } from "../../ui/components/OtpSecret.tsx";
import { PasskeyButton, usePasskeyFactor } from "../../ui/components/PasskeySignIn.tsx";
import { Spinner } from "../../ui/components/Spinner.tsx";
import { SubmitButton } from "../../ui/components/SubmitButton.tsx";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";
import { generateAdminOtp, verifyAdminOtp } from "../api/auth.ts";
import { ADMIN_FAVICON } from "../components/PageHeader.tsx";
import { adminErrorText } from "../lib/errors.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { statusQueries } from "../queries/status.ts";

/** Runs a verify request: home on success, admin login on a lost sign-in, else the error text. */
function useVerify(setError: (text: string | undefined) => void): (request: AdminOtpVerifyRequest) => Promise<void> {
  const { i18n } = useLingui();
  const navigate = useNavigate();
  const client = useQueryClient();
  return useCallback(
    async (request: AdminOtpVerifyRequest) => {
      setError(undefined);
      try {
        await verifyAdminOtp(request);
        await client.invalidateQueries({ queryKey: statusQueries.all });
        await navigate({ to: "/admin/home" });
      } catch (failure) {
        if (failure instanceof ApiError && failure.isInvalidSession) {
          await navigate({ to: "/admin", search: { error: Errors.invalidSession.err } });
          return;
        }
        setError(adminErrorText(i18n, failure));
      }
    },
    [client, i18n, navigate, setError],
  );
}

/** The code field and its submit button. */
function CodeForm({
  submitLabel,
  autoFocus,
  children,
}: {
  submitLabel: ReactNode;
  autoFocus: boolean;
  children?: ReactNode;
}) {
  const { i18n } = useLingui();
  const [error, setError] = useState<string | undefined>(undefined);
  const verify = useVerify(setError);
  const form = useForm<OtpVerifyRequest>({
    resolver: zodResolver(OtpVerifyRequestSchema),
    defaultValues: { Code: "" },
  });
  const submit = form.handleSubmit(async ({ Code }) => verify({ Code: Code.replace(/\s+/g, "") }));
  return (
    <form className="mt-6 space-y-4" onSubmit={(event) => void submit(event)} noValidate autoComplete="off">
      <FormField
        label={<Trans>Code</Trans>}
        required
        inputMode="numeric"
        autoFocus={autoFocus}
        error={fieldErrorText(i18n, form.formState.errors.Code)}
        {...form.register("Code")}
      />
      <ErrorMessage message={error} />
      <SubmitButton submitting={form.formState.isSubmitting}>{submitLabel}</SubmitButton>
      {children}
    </form>
  );
}

function BackToLogin() {
  return (
    <a href="/admin" className="font-medium text-accent-700 hover:underline dark:text-accent-300">
      <Trans>Back to login</Trans>
    </a>
  );
}

/** /admin/otp/verify: the code field, "Use a passkey" for an admin with passkeys, or both (docs/decisions.md "Passkeys"). */
export function OtpVerifyPage() {
  const { t } = useLingui();
  useDocumentHead(t`Two-factor authentication`, ADMIN_FAVICON);
  const navigate = useNavigate();
  const client = useQueryClient();
  const lost = useCallback(() => {
    void navigate({ to: "/admin", search: { error: Errors.invalidSession.err } });
  }, [navigate]);
  const signedIn = useCallback(async () => {
    await client.invalidateQueries({ queryKey: statusQueries.all });
    await navigate({ to: "/admin/home" });
  }, [client, navigate]);
  const factors = usePasskeyFactor("admin");
  const passkeyOnly = factors.passkey && !factors.totp;
  return (
    <AuthLayout
      title={<Trans>Two-factor authentication</Trans>}
      intro={
        passkeyOnly ? (
          <Trans>Confirm your sign-in with your passkey.</Trans>
        ) : (
          <Trans>Enter the code from your authenticator app.</Trans>
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
            <PasskeyButton audience="admin" onSignedIn={signedIn} onInvalidSession={lost} orCode={factors.totp} />
          ) : null}
          {passkeyOnly ? null : <CodeForm submitLabel={<Trans>Log in</Trans>} autoFocus={!factors.passkey} />}
        </>
      )}
    </AuthLayout>
  );
}

/** /admin/otp/onboard. */
export function OtpOnboardPage() {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Set up two-factor authentication`, ADMIN_FAVICON);
  const navigate = useNavigate();
  const [error, setError] = useState<string | undefined>(undefined);
  const [deferring, setDeferring] = useState(false);
  const verify = useVerify(setError);
  const onError = useCallback(
    (failure: unknown) => {
      if (failure instanceof ApiError && failure.isInvalidSession) {
        void navigate({ to: "/admin", search: { error: Errors.invalidSession.err } });
        return;
      }
      setError(adminErrorText(i18n, failure));
    },
    [i18n, navigate],
  );
  const enrolment = useOtpEnrolment(generateAdminOtp, onError);

  async function defer(): Promise<void> {
    setDeferring(true);
    await verify({ deferEnrolment: true });
    setDeferring(false);
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
      {enrolment ? (
        <>
          <OtpSecret otp={enrolment.otp} qr={enrolment.qr} />
          <CodeForm submitLabel={<Trans>Verify</Trans>} autoFocus={false}>
            <Button variant="quiet" className="w-full" busy={deferring} onClick={() => void defer()}>
              <Trans>Set up later</Trans>
            </Button>
          </CodeForm>
        </>
      ) : error === undefined ? (
        <div className="mt-6 flex justify-center py-8" aria-busy="true">
          <Spinner />
        </div>
      ) : null}
    </AuthLayout>
  );
}

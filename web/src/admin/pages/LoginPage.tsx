/**
 * Admin login (docs/reference.md admin-console §2, §7): Username and Password checked with the shared
 * AdminLoginRequestSchema, POST /api/admin/login; 204 goes to /admin/home, 401
 * err.totpVerificationRequired to /admin/otp/verify, 401 err.totpEnrolmentRequired to
 * /admin/otp/onboard; anything else shows the server's error. `?error=` shows a key or message.
 */
import { useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useNavigate } from "@tanstack/react-router";
import { useQueryClient } from "@tanstack/react-query";
import { Trans, useLingui } from "@lingui/react/macro";
import { AdminLoginRequestSchema, Errors } from "@postern/shared";
import type { AdminLoginRequest } from "@postern/shared";
import { ApiError } from "../../ui/api/client.ts";
import { AuthLayout } from "../../ui/components/AuthLayout.tsx";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { FormField } from "../../ui/kit/FormField.tsx";
import { SubmitButton } from "../../ui/components/SubmitButton.tsx";
import { adminLogin } from "../api/auth.ts";
import { ADMIN_FAVICON } from "../components/PageHeader.tsx";
import { adminErrorText, translateAdminMessage } from "../lib/errors.ts";
import { fieldErrorText } from "../lib/form-errors.ts";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";
import { statusQueries } from "../queries/status.ts";

/** The admin login page; `errorParam` is the `?error=` value. */
export function LoginPage({ errorParam }: { errorParam?: string | undefined }) {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Admin login`, ADMIN_FAVICON);
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<string | undefined>(
    errorParam === undefined ? undefined : (translateAdminMessage(i18n, errorParam) ?? t`Authentication failed`),
  );
  const form = useForm<AdminLoginRequest>({
    resolver: zodResolver(AdminLoginRequestSchema),
    defaultValues: { UserName: "", Password: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    setError(undefined);
    try {
      await adminLogin(values);
      await client.invalidateQueries({ queryKey: statusQueries.all });
      await navigate({ to: "/admin/home" });
    } catch (failure) {
      const err = failure instanceof ApiError ? failure.body?.Err : undefined;
      if (err === Errors.totpVerificationRequired.err) await navigate({ to: "/admin/otp/verify" });
      else if (err === Errors.totpEnrolmentRequired.err) await navigate({ to: "/admin/otp/onboard" });
      else setError(adminErrorText(i18n, failure));
    }
  });

  return (
    <AuthLayout
      title={<Trans>Admin login</Trans>}
      footer={
        <a href="/" className="font-medium text-accent-700 hover:underline dark:text-accent-300">
          <Trans>User login</Trans>
        </a>
      }
    >
      <form className="mt-6 space-y-4" onSubmit={(event) => void submit(event)} noValidate autoComplete="off">
        <FormField
          label={<Trans>Username</Trans>}
          required
          autoFocus
          autoCapitalize="none"
          error={fieldErrorText(i18n, errors.UserName)}
          {...form.register("UserName")}
        />
        <FormField
          label={<Trans>Password</Trans>}
          type="password"
          required
          error={fieldErrorText(i18n, errors.Password)}
          {...form.register("Password")}
        />
        <ErrorMessage message={error} />
        <SubmitButton submitting={isSubmitting}>
          <Trans>Log in</Trans>
        </SubmitButton>
      </form>
    </AuthLayout>
  );
}

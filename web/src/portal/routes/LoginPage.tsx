/**
 * Login page (docs/reference.md user-portal §2 "Login page", §4 "Login outcomes", §5, §8): an SSO button when SAML
 * metadata is available (GET /api/saml/metadata, cached 300 s) followed by an "or" divider; the
 * expandable local form (username, password) with "This is a public computer" (kiosk mode);
 * POST /api/login and its outcomes (2FA, enrolment, admin, home); an error from the `error` query
 * parameter; Enter starts SSO while no field has the focus; a link to /admin.
 */
import { useCallback, useEffect, useState } from "react";
import type { FormEvent } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { cachedSamlAvailable } from "../api/saml-cached.ts";
import { ApiError } from "../../ui/api/client.ts";
import { errorText, translateServerMessage } from "../../ui/api/error-messages.ts";
import { forgetSession, homePathFor, loadSession } from "../api/session.ts";
import { login, samlLoginUrl } from "../api/user.ts";
import { AuthLayout } from "../../ui/components/AuthLayout.tsx";
import { Checkbox } from "../../ui/components/Checkbox.tsx";
import { Disclosure, DisclosureButton, DisclosurePanel } from "@headlessui/react";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { ShieldIcon } from "../../ui/components/icons.tsx";
import { Spinner } from "../../ui/components/Spinner.tsx";
import { TextField } from "../../ui/components/TextField.tsx";
import { useDocumentHead } from "../../ui/hooks/useDocumentHead.ts";
import { loginOutcome, noFieldFocused } from "../lib/login-outcome.ts";
import { SubmitButton } from "../../ui/components/SubmitButton.tsx";

/** `errorParam`: the `error` query parameter; only known keys/messages are shown (no free text from URLs). */
export function LoginPage({ errorParam }: { errorParam: string | undefined }) {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Log in`);
  const navigate = useNavigate();
  const [userName, setUserName] = useState("");
  const [password, setPassword] = useState("");
  const [kioskMode, setKioskMode] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [sso, setSso] = useState<boolean | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(() =>
    errorParam === undefined || errorParam === ""
      ? undefined
      : (translateServerMessage(i18n, errorParam) ?? t`Authentication failed`),
  );

  useEffect(() => {
    let live = true;
    void cachedSamlAvailable()
      .catch(() => false)
      .then((available) => {
        if (live) setSso(available);
      });
    return () => {
      live = false;
    };
  }, []);

  const startSso = useCallback(() => {
    setSubmitting(true);
    window.location.assign(samlLoginUrl(kioskMode));
  }, [kioskMode]);

  // docs/reference.md user-portal §2: "Pressing Enter triggers SSO when no field is focused."
  useEffect(() => {
    if (sso !== true) return;
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== "Enter" || event.defaultPrevented || event.isComposing) return;
      if (!noFieldFocused(document.activeElement, document.body)) return;
      event.preventDefault();
      startSso();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [sso, startSso]);

  async function submit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    if (userName.trim() === "" || password === "") {
      setError(t`Username and password are required`);
      return;
    }
    setSubmitting(true);
    setError(undefined);
    try {
      try {
        await login({ UserName: userName, Password: password, KioskMode: kioskMode });
      } catch (failure) {
        const outcome =
          failure instanceof ApiError && failure.status === 401 && failure.body !== undefined
            ? loginOutcome(failure.body.Err, failure.body.Extra)
            : { kind: "error" as const };
        switch (outcome.kind) {
          case "admin":
            // An admin session was started: the admin console takes over (docs/reference.md user-portal §4).
            window.location.assign(outcome.path);
            return;
          case "totpVerify":
            await navigate({ to: "/otp/verify" });
            return;
          case "totpEnrol":
            await navigate({ to: "/otp/onboard" });
            return;
          default:
            throw failure;
        }
      }
      forgetSession();
      const session = await loadSession(0);
      if (session === null) throw new ApiError(401, undefined, "");
      await navigate({ to: homePathFor(session) });
    } catch (failure) {
      setError(errorText(i18n, failure));
      setSubmitting(false);
    }
  }

  const kiosk = (
    <Checkbox
      name="kioskMode"
      label={<Trans>This is a public computer</Trans>}
      checked={kioskMode}
      onChange={setKioskMode}
    />
  );
  const form = (
    <form className="mt-4 space-y-4" onSubmit={(event) => void submit(event)} autoComplete="off" noValidate>
      <TextField
        label={<Trans>Username</Trans>}
        name="username"
        type="text"
        value={userName}
        onChange={setUserName}
        autoFocus={sso === false}
      />
      <TextField
        label={<Trans>Password</Trans>}
        name="password"
        type="password"
        value={password}
        onChange={setPassword}
      />
      {sso ? null : kiosk}
      {sso ? null : <ErrorMessage message={error} />}
      <SubmitButton submitting={submitting}>
        <Trans>Log in</Trans>
      </SubmitButton>
    </form>
  );

  return (
    <AuthLayout
      title={<Trans>Sign in for network access</Trans>}
      intro={<Trans>Your current IP address is granted access for as long as your session lasts.</Trans>}
      footer={
        <a href="/admin" className="font-medium text-accent-700 hover:underline dark:text-accent-300">
          <Trans>Administrator login</Trans>
        </a>
      }
    >
      {sso ? (
        <div className="mt-6 space-y-4" data-testid="sso">
          <ErrorMessage message={error} />
          {kiosk}
          <button
            type="button"
            onClick={startSso}
            disabled={submitting}
            className="flex w-full items-center justify-center gap-2 rounded-md bg-accent-700 px-3 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-accent-800 disabled:cursor-wait disabled:opacity-70"
          >
            <ShieldIcon className="size-4" />
            <Trans>Sign in with SSO</Trans>
          </button>
          <div
            className="flex items-center gap-3 text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400"
            role="separator"
            aria-label={t`or`}
          >
            <span aria-hidden="true" className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
            <span aria-hidden="true">
              <Trans>or</Trans>
            </span>
            <span aria-hidden="true" className="h-px flex-1 bg-slate-200 dark:bg-slate-700" />
          </div>
          {/* The local form is expandable (docs/reference.md user-portal §2); collapsed while SSO is offered. */}
          <Disclosure as="div">
            <DisclosureButton className="group flex w-full cursor-pointer items-center justify-between rounded-md px-1 py-1 text-left text-sm font-medium text-slate-700 hover:text-accent-700 dark:text-slate-200">
              <Trans>Sign in with username and password</Trans>
              <span aria-hidden="true" className="text-slate-500 transition-transform group-data-open:rotate-180">
                ▾
              </span>
            </DisclosureButton>
            <DisclosurePanel>{form}</DisclosurePanel>
          </Disclosure>
        </div>
      ) : sso === false ? (
        <div className="mt-2">{form}</div>
      ) : (
        <div className="mt-6 flex justify-center py-8" aria-busy="true">
          <Spinner />
        </div>
      )}
    </AuthLayout>
  );
}

/**
 * Login page (user-portal §2 "Login page", §4 "Login outcomes", §5): username, password and the
 * "This is a public computer" (kiosk) checkbox; POST /api/login; errors in red as "Error: …";
 * a link to /admin. The SSO button (GET /api/saml/metadata) will go above the form in LoginSso.
 */
import { useState } from "react";
import type { FormEvent } from "react";
import { useNavigate } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { Checkbox, Disclosure, DisclosureButton, DisclosurePanel, Field, Label } from "@headlessui/react";
import { ApiError } from "../api/client.ts";
import { errorText, translateServerMessage } from "../api/error-messages.ts";
import { forgetSession, homePathFor, loadSession } from "../api/session.ts";
import { login } from "../api/user.ts";
import { BrandMark } from "../components/BrandMark.tsx";
import { ErrorMessage } from "../components/ErrorMessage.tsx";
import { TextField } from "../components/TextField.tsx";
import { useDocumentHead } from "../hooks/useDocumentHead.ts";
import { loginOutcome } from "../lib/login-outcome.ts";

/** `errorParam`: the `error` query parameter; only known keys/messages are shown (no free text from URLs). */
export function LoginPage({ errorParam }: { errorParam: string | undefined }) {
  const { t, i18n } = useLingui();
  useDocumentHead(t`Log in`);
  const navigate = useNavigate();
  const [userName, setUserName] = useState("");
  const [password, setPassword] = useState("");
  const [kioskMode, setKioskMode] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | undefined>(() =>
    errorParam === undefined || errorParam === "" ? undefined : (translateServerMessage(i18n, errorParam) ?? t`Authentication failed`),
  );

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
        const outcome = failure instanceof ApiError && failure.body !== undefined ? loginOutcome(failure.body.Err) : { kind: "error" };
        if (outcome.kind === "admin") {
          // An admin session: the admin area decides between its 2FA, onboarding and home (user-portal §4).
          window.location.assign("/admin");
          return;
        }
        // "totpVerify" and "totpEnrol" will navigate to /otp/verify and /otp/onboard once those pages
        // exist; until then their message is shown like any other error.
        throw failure;
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

  return (
    <main className="flex min-h-dvh flex-col items-center justify-center bg-gradient-to-b from-accent-50 to-slate-50 px-4 py-12 dark:from-slate-900 dark:to-slate-950">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex justify-center text-xl">
          <BrandMark />
        </div>
        <div className="rounded-2xl bg-white p-6 shadow-lg ring-1 ring-slate-200 sm:p-8 dark:bg-slate-900 dark:ring-slate-800">
          <h1 className="text-xl font-semibold tracking-tight text-slate-900 dark:text-white">
            <Trans>Sign in for network access</Trans>
          </h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            <Trans>Your current IP address is granted access for as long as your session lasts.</Trans>
          </p>
          {/* The local form is expandable (user-portal §2); open while no SSO button stands above it. */}
          <Disclosure defaultOpen>
            <DisclosureButton className="group mt-6 flex w-full items-center justify-between rounded-md px-1 py-1 text-left text-sm font-medium text-slate-700 hover:text-accent-700 dark:text-slate-200">
              <Trans>Sign in with username and password</Trans>
              <span aria-hidden="true" className="text-slate-400 transition-transform group-data-open:rotate-180">
                ▾
              </span>
            </DisclosureButton>
            <DisclosurePanel>
              <form className="mt-4 space-y-4" onSubmit={(event) => void submit(event)} autoComplete="off" noValidate>
                <TextField label={<Trans>Username</Trans>} name="username" type="text" value={userName} onChange={setUserName} autoFocus />
                <TextField label={<Trans>Password</Trans>} name="password" type="password" value={password} onChange={setPassword} />
                <Field className="flex items-center gap-2">
                  <Checkbox
                    name="kioskMode"
                    checked={kioskMode}
                    onChange={setKioskMode}
                    className="group flex size-4 items-center justify-center rounded border border-slate-300 bg-white data-checked:border-accent-700 data-checked:bg-accent-700 dark:border-slate-600 dark:bg-slate-900"
                  >
                    <svg viewBox="0 0 14 14" fill="none" aria-hidden="true" className="size-3 stroke-white opacity-0 group-data-checked:opacity-100">
                      <path d="M3 8l3 3 5-7" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" />
                    </svg>
                  </Checkbox>
                  <Label className="text-sm text-slate-700 dark:text-slate-300">
                    <Trans>This is a public computer</Trans>
                  </Label>
                </Field>
                <ErrorMessage message={error} />
                <button
                  type="submit"
                  disabled={submitting}
                  aria-busy={submitting || undefined}
                  className="flex w-full items-center justify-center gap-2 rounded-md bg-accent-700 px-3 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-accent-800 disabled:cursor-wait disabled:opacity-70"
                >
                  {submitting ? <span aria-hidden="true" className="size-3.5 animate-spin rounded-full border-2 border-current border-r-transparent" /> : null}
                  <Trans>Log in</Trans>
                </button>
              </form>
            </DisclosurePanel>
          </Disclosure>
        </div>
        <p className="mt-6 text-center text-sm text-slate-600 dark:text-slate-400">
          <a href="/admin" className="font-medium text-accent-700 hover:underline dark:text-accent-300">
            <Trans>Administrator login</Trans>
          </a>
        </p>
      </div>
    </main>
  );
}

/**
 * The change-password dialog of the new dashboard (docs/reference.md user-portal §2 "change-password (local accounts
 * only)", §5 "Change password", §8 "Password change errors show under the form"): current
 * password, new password (8–64, strength meter 0–4) and its confirmation; PUT /api/password.
 * Loaded on demand with the strength estimator.
 */
import { useEffect, useState } from "react";
import type { FormEvent } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { Limits } from "@postern/shared";
import { errorText } from "../../ui/api/error-messages.ts";
import { changePassword } from "../api/user.ts";
import { passwordFormProblems } from "../lib/password.ts";
import type { PasswordFormProblem, StrengthScore } from "../lib/password.ts";
import { ErrorMessage } from "../../ui/components/ErrorMessage.tsx";
import { Modal } from "./Modal.tsx";
import { PasswordStrengthMeter } from "./PasswordStrengthMeter.tsx";
import { Spinner } from "../../ui/components/Spinner.tsx";
import { TextField } from "../../ui/components/TextField.tsx";

type Scorer = (password: string, userInputs: readonly string[]) => StrengthScore;

/** Props: the user's display name (a known word for the meter), and the close/success handlers. */
export interface PasswordDialogProps {
  userDisplayName: string;
  onClose: () => void;
  onChanged: () => void;
}

/** The dialog; opens as a modal when mounted. */
export function PasswordDialog({ userDisplayName, onClose, onChanged }: PasswordDialogProps) {
  const { t, i18n } = useLingui();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [confirm, setConfirm] = useState("");
  const [problems, setProblems] = useState<PasswordFormProblem[]>([]);
  const [serverError, setServerError] = useState<string | undefined>(undefined);
  const [submitting, setSubmitting] = useState(false);
  const [scorer, setScorer] = useState<Scorer | undefined>(undefined);

  useEffect(() => {
    let live = true;
    import("../lib/password-strength.ts")
      .then((module) => {
        if (live) setScorer(() => module.scorePassword);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);

  const score = scorer !== undefined && next !== "" ? scorer(next, [userDisplayName]) : undefined;
  const problemText = (field: PasswordFormProblem["field"]): string | undefined => {
    const problem = problems.find((p) => p.field === field);
    if (problem === undefined) return undefined;
    const min = Limits.passwordMinLength;
    const max = Limits.passwordMaxLength;
    switch (problem.problem) {
      case "required":
        return field === "current" ? t`Current password is required` : t`New password is required`;
      case "length":
        return t`Must be between ${min} and ${max} characters`;
      case "mismatch":
        return t`Passwords don't match`;
    }
  };

  async function submit(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault();
    const found = passwordFormProblems({ current, next, confirm });
    setProblems(found);
    setServerError(undefined);
    if (found.length > 0) return;
    setSubmitting(true);
    try {
      await changePassword({ CurrentPassword: current, NewPassword: next, ConfirmPassword: confirm });
      onChanged();
    } catch (failure) {
      setServerError(errorText(i18n, failure));
      setSubmitting(false);
    }
  }

  return (
    <Modal title={<Trans>Change password</Trans>} onClose={onClose} testId="password-dialog">
      <form className="mt-4 space-y-4" onSubmit={(event) => void submit(event)} autoComplete="off" noValidate>
        <TextField
          label={<Trans>Current password</Trans>}
          name="currentPassword"
          type="password"
          value={current}
          onChange={setCurrent}
          autoFocus
          error={problemText("current")}
        />
        <TextField
          label={<Trans>New password</Trans>}
          name="newPassword"
          type="password"
          value={next}
          onChange={setNext}
          maxLength={Limits.passwordMaxLength * 2}
          error={problemText("next")}
        >
          <PasswordStrengthMeter score={score} empty={next === ""} />
        </TextField>
        <TextField
          label={<Trans>Confirm new password</Trans>}
          name="confirmPassword"
          type="password"
          value={confirm}
          onChange={setConfirm}
          error={problemText("confirm")}
        />
        <ErrorMessage message={serverError} />
        <div className="flex justify-end gap-3 pt-2">
          <button
            type="button"
            onClick={onClose}
            className="rounded-md px-4 py-2 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800"
          >
            <Trans>Cancel</Trans>
          </button>
          <button
            type="submit"
            disabled={submitting}
            aria-busy={submitting || undefined}
            className="inline-flex items-center gap-2 rounded-md bg-accent-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-accent-800 disabled:cursor-wait disabled:opacity-70"
          >
            {submitting ? <Spinner /> : null}
            <Trans>Change password</Trans>
          </button>
        </div>
      </form>
    </Modal>
  );
}

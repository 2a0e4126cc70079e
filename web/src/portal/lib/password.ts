/**
 * Change-password rules checked in the browser before PUT /api/password (docs/reference.md user-portal §5 "Change
 * password: current password required; new password required, 8 to 64 characters; confirmation
 * must match ("Passwords don't match"); a strength meter scores 0 to 4"). The server checks them
 * again, with the strength floor (shared MIN_PASSWORD_SCORE).
 */
import { Limits } from "@postern/shared";

/** A problem of one field of the change-password form. */
export type PasswordFormProblem =
  | { field: "current"; problem: "required" }
  | { field: "next"; problem: "required" | "length" }
  | { field: "confirm"; problem: "mismatch" };

/** The form's problems in field order; empty when it may be sent. Lengths count code points. */
export function passwordFormProblems(form: { current: string; next: string; confirm: string }): PasswordFormProblem[] {
  const problems: PasswordFormProblem[] = [];
  if (form.current === "") problems.push({ field: "current", problem: "required" });
  const length = Array.from(form.next).length;
  if (form.next === "") problems.push({ field: "next", problem: "required" });
  else if (length < Limits.passwordMinLength || length > Limits.passwordMaxLength)
    problems.push({ field: "next", problem: "length" });
  if (form.confirm !== form.next) problems.push({ field: "confirm", problem: "mismatch" });
  return problems;
}

/** A strength score of the meter: 0 very weak … 4 very strong (docs/reference.md user-portal §4). */
export type StrengthScore = 0 | 1 | 2 | 3 | 4;

/** The meter's filled segments (1–4) for a score: very weak still shows one segment. */
export function strengthSegments(score: StrengthScore): number {
  return Math.max(1, score);
}

/**
 * The strength meter of the change-password dialog (docs/reference.md user-portal §4: 0 Very weak, 1 Weak,
 * 2 Acceptable, 3 Strong, 4 Very strong). Four segments and the level's word; `score` undefined
 * while the estimator loads (or when it could not load: the server still decides).
 */
import { useLingui } from "@lingui/react/macro";
import { strengthSegments } from "../lib/password.ts";
import type { StrengthScore } from "../lib/password.ts";

const COLOURS = ["bg-red-600", "bg-red-600", "bg-amber-500", "bg-lime-600", "bg-emerald-600"] as const;

/** The meter for `score`; nothing for an empty password. */
export function PasswordStrengthMeter({ score, empty }: { score: StrengthScore | undefined; empty: boolean }) {
  const { t } = useLingui();
  if (empty) return null;
  const words = [t`Very weak`, t`Weak`, t`Acceptable`, t`Strong`, t`Very strong`];
  const filled = score === undefined ? 0 : strengthSegments(score);
  const word = score === undefined ? "…" : words[score];
  return (
    <div className="mt-2" data-testid="strength" data-score={score}>
      <div
        role="meter"
        aria-label={t`Password strength`}
        aria-valuemin={0}
        aria-valuemax={4}
        aria-valuenow={score ?? 0}
        aria-valuetext={word}
        className="flex gap-1"
      >
        {[1, 2, 3, 4].map((segment) => (
          <span
            key={segment}
            className={`h-1.5 flex-1 rounded-full ${segment <= filled && score !== undefined ? COLOURS[score] : "bg-slate-200 dark:bg-slate-700"}`}
          />
        ))}
      </div>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {t`Strength:`} <span className="font-medium text-slate-900 dark:text-white">{word}</span>
      </p>
    </div>
  );
}

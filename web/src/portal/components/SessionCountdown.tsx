/**
 * Session countdown in hh:mm:ss, ticking every second (docs/reference.md user-portal §2, §9). Calls `onExpired` once
 * when it reaches 0 (docs/reference.md user-portal §4: the user then goes to Login). `hidden` (high-accessibility
 * mode, docs/reference.md user-portal §2) removes it from view and from assistive technology but keeps it counting.
 */
import { useEffect, useRef } from "react";
import { useAtomValue } from "jotai";
import { useLingui } from "@lingui/react/macro";
import { Limits } from "@postern/shared";
import { formatHms, isExpiringSoon, secondsUntil } from "../../ui/lib/format.ts";
import { nowAtom } from "../state/atoms.ts";

/** `ends` is the session's end (ISO time, `Ends` of GET /api/status). */
export function SessionCountdown({
  ends,
  onExpired,
  hidden = false,
}: {
  ends: string;
  onExpired: () => void;
  hidden?: boolean;
}) {
  const { t } = useLingui();
  const now = useAtomValue(nowAtom);
  const left = secondsUntil(ends, now);
  const expired = !Number.isNaN(left) && left <= 0;
  const fired = useRef(false);

  useEffect(() => {
    if (expired && !fired.current) {
      fired.current = true;
      onExpired();
    }
  }, [expired, onExpired]);

  if (hidden) return null;
  const soon = isExpiringSoon(left, Limits.expiringSoonSeconds);
  return (
    <span
      role="timer"
      aria-label={t`Session time remaining`}
      data-testid="session-countdown"
      data-expiring={soon ? "true" : undefined}
      className={`inline-flex items-center gap-1.5 rounded-full px-3 py-1 font-mono text-sm tabular-nums ring-1 ${
        soon
          ? "bg-orange-50 text-orange-800 ring-orange-200 dark:bg-orange-950/60 dark:text-orange-200 dark:ring-orange-800"
          : "bg-white text-slate-700 ring-slate-200 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-700"
      }`}
    >
      <svg viewBox="0 0 20 20" aria-hidden="true" className="size-4 fill-current opacity-70">
        <path
          fillRule="evenodd"
          clipRule="evenodd"
          d="M10 2a8 8 0 1 0 0 16 8 8 0 0 0 0-16Zm.75 4a.75.75 0 0 0-1.5 0v4c0 .2.08.39.22.53l2.5 2.5a.75.75 0 1 0 1.06-1.06l-2.28-2.28V6Z"
        />
      </svg>
      {formatHms(left)}
    </span>
  );
}

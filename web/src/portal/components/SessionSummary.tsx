/**
 * The greeting block of the dashboard (docs/reference.md user-portal §2): "Hello, Name", the current IP address,
 * the account expiry in days, and the note to keep the page open.
 */
import { useAtomValue } from "jotai";
import { Plural, Trans } from "@lingui/react/macro";
import type { SessionStatus } from "@postern/shared";
import { daysUntil } from "../../ui/lib/format.ts";
import { nowAtom } from "../state/atoms.ts";

/** Longest account validity still shown as "expires in N days" (longer means effectively unlimited). */
const MAX_EXPIRY_DAYS_SHOWN = 365;

/** Shows Name, CurrentAddress and ValidUntil of the session status. */
export function SessionSummary({ status }: { status: Pick<SessionStatus, "Name" | "CurrentAddress" | "ValidUntil"> }) {
  const now = useAtomValue(nowAtom);
  const days = daysUntil(status.ValidUntil, now);
  const name = status.Name;
  const address = status.CurrentAddress;
  return (
    <div className="space-y-3">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl dark:text-white">
        <Trans>Hello, {name}</Trans>
      </h1>
      <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm text-slate-600 dark:text-slate-300">
        <div className="flex gap-1.5">
          <dt>
            <Trans>Your IP address:</Trans>
          </dt>
          <dd data-testid="current-address" className="font-mono font-medium text-slate-900 dark:text-white">
            {address}
          </dd>
        </div>
        {days !== undefined && days >= 0 && days <= MAX_EXPIRY_DAYS_SHOWN ? (
          <div className="flex gap-1.5">
            <dt>
              <Trans>Account:</Trans>
            </dt>
            <dd data-testid="account-expiry">
              <Plural value={days} one="expires in # day" other="expires in # days" />
            </dd>
          </div>
        ) : null}
      </dl>
      <p className="flex items-start gap-2 rounded-lg bg-accent-50 px-3 py-2 text-sm text-accent-900 ring-1 ring-accent-200 dark:bg-accent-950/40 dark:text-accent-100 dark:ring-accent-900">
        <svg viewBox="0 0 20 20" aria-hidden="true" className="mt-0.5 size-4 shrink-0 fill-current">
          <path
            fillRule="evenodd"
            clipRule="evenodd"
            d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm-.75-11.25a.75.75 0 1 1 1.5 0 .75.75 0 0 1-1.5 0ZM9.25 9.5a.75.75 0 0 1 1.5 0v4a.75.75 0 0 1-1.5 0v-4Z"
          />
        </svg>
        <Trans>Keep this page open: your access lasts only while your session is running.</Trans>
      </p>
    </div>
  );
}

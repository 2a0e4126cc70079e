/**
 * The home pages' top bar (docs/reference.md user-portal §2): brand or logo on the left; on the right the session
 * countdown (hideable in high-accessibility mode), the colour-mode choice and Change password
 * (new dashboard; the latter for local accounts only), and Logout.
 */
import { useAtom, useAtomValue } from "jotai";
import { Trans, useLingui } from "@lingui/react/macro";
import { themeAtom } from "../../ui/state/appearance.ts";
import { timerHiddenAtom } from "../state/atoms.ts";
import { ColorModeSwitch } from "../../ui/components/ColorModeSwitch.tsx";
import { EyeIcon, KeyIcon, LogoutIcon } from "../../ui/components/icons.tsx";
import { Logo } from "../../ui/components/Logo.tsx";
import { SessionCountdown } from "./SessionCountdown.tsx";

/** Props of the top bar. */
export interface TopBarProps {
  /** Session end (ISO). */
  ends: string;
  /** The countdown reached 0. */
  onExpired: () => void;
  onLogout: () => void;
  loggingOut: boolean;
  /** Show the colour-mode choice (new dashboard). */
  colorMode?: boolean;
  /** Opens the change-password dialog; the button is shown only when given (local accounts). */
  onChangePassword?: (() => void) | undefined;
  /** Opens the passkeys dialog; the button is shown only when given (not SAML or API-key accounts). */
  onPasskeys?: (() => void) | undefined;
}

const buttonClass =
  "tooltip inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 text-sm font-semibold text-slate-700 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 disabled:opacity-60 dark:text-slate-200 dark:ring-slate-700 dark:hover:bg-slate-900";

/** The sticky header of Home and NewUserDashboard. */
export function TopBar({
  ends,
  onExpired,
  onLogout,
  loggingOut,
  colorMode = false,
  onChangePassword,
  onPasskeys,
}: TopBarProps) {
  const { t } = useLingui();
  const highAccessibility = useAtomValue(themeAtom)?.HighAccessibility ?? false;
  const [timerHidden, setTimerHidden] = useAtom(timerHiddenAtom);
  const hidden = highAccessibility && timerHidden;
  return (
    <header className="sticky top-0 z-10 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <div className="mx-auto flex min-h-16 max-w-6xl flex-wrap items-center justify-between gap-x-4 gap-y-2 px-4 py-2 sm:px-6">
        <Logo compact />
        <div className="flex flex-wrap items-center justify-end gap-2 sm:gap-3">
          {/* The countdown keeps running while hidden: its end still sends the user to Login. */}
          <SessionCountdown ends={ends} onExpired={onExpired} hidden={hidden} />
          {highAccessibility ? (
            <button
              type="button"
              className={buttonClass}
              aria-pressed={timerHidden}
              data-tooltip={timerHidden ? t`Show timer` : t`Hide timer`}
              onClick={() => setTimerHidden(!timerHidden)}
            >
              <EyeIcon open={!timerHidden} className="size-4" />
              <span className="sr-only">
                <Trans>Hide timer</Trans>
              </span>
            </button>
          ) : null}
          {colorMode ? <ColorModeSwitch /> : null}
          {onChangePassword ? (
            <button type="button" onClick={onChangePassword} className={buttonClass} data-tooltip={t`Change password`}>
              <KeyIcon className="size-4" />
              <span className="sr-only lg:not-sr-only">
                <Trans>Change password</Trans>
              </span>
            </button>
          ) : null}
          {onPasskeys ? (
            <button type="button" onClick={onPasskeys} className={buttonClass} data-tooltip={t`Passkeys`}>
              <KeyIcon className="size-4" />
              <span className="sr-only lg:not-sr-only">
                <Trans>Passkeys</Trans>
              </span>
            </button>
          ) : null}
          <button type="button" onClick={onLogout} disabled={loggingOut} className={buttonClass}>
            <LogoutIcon className="size-4" />
            <span className="sr-only sm:not-sr-only">
              <Trans>Logout</Trans>
            </span>
          </button>
        </div>
      </div>
    </header>
  );
}

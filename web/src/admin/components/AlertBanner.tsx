/**
 * The global alert banner of the admin pages (docs/reference.md admin-console §2, §4, §8): one alert at a time, the
 * first in priority order (unlicensed, err, agentIncompatible, userLimitExceeded, serverUpdate)
 * that applies and was not dismissed; dismissing it shows the next. Reads the header status and
 * agents (every 180 s) and the users list (SAML users present).
 */
import { atom, useAtom } from "jotai";
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Trans, useLingui } from "@lingui/react/macro";
import { Errors } from "@postern/shared";
import type { ReactNode } from "react";
import { pickBanner } from "../lib/banner.ts";
import type { Banner, BannerKind } from "../lib/banner.ts";
import { adminErrorText, translateAdminMessage } from "../lib/errors.ts";
import { agentQueries } from "../queries/agents.ts";
import { statusQueries } from "../queries/status.ts";
import { userQueries } from "../queries/users.ts";

/** Banner kinds dismissed in this page's life. */
const dismissedAtom = atom<ReadonlySet<BannerKind>>(new Set<BannerKind>());

const linkClass = "font-semibold underline";
const buttonClass =
  "rounded-md bg-white/80 px-2.5 py-1 text-xs font-semibold text-slate-900 ring-1 ring-inset ring-slate-300 hover:bg-white";

function BannerText({ banner }: { banner: Banner }) {
  const { i18n } = useLingui();
  switch (banner.kind) {
    case "unlicensed":
      return (
        <>
          {translateAdminMessage(i18n, Errors.unlicensedDescription.err)}{" "}
          <Link to="/admin/settings" className={linkClass}>
            <Trans>Install a license</Trans>
          </Link>
        </>
      );
    case "err":
      return <>{adminErrorText(i18n, banner.error)}</>;
    case "agentIncompatible": {
      const names = banner.agents.join(", ");
      const required = banner.required;
      return (
        <Trans>
          Incompatible agent version: {names} must be updated to version {required} or later.
        </Trans>
      );
    }
    case "userLimitExceeded": {
      const { remaining, percentage, userCount, limit } = banner;
      return (
        <span className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <strong>
            <Trans>User License Limit Exceeded</Trans>
          </strong>
          <span>
            <Trans>
              {userCount} users for a license of {limit}.
            </Trans>{" "}
            {banner.blocked ? (
              <Trans>Creating new users is blocked. Access is denied until the license is upgraded.</Trans>
            ) : (
              <Trans>
                {remaining} more users may be created within the grace allowance of {percentage}%. Beyond it the service
                is disabled.
              </Trans>
            )}
          </span>
          <Link to="/admin/settings" className={buttonClass}>
            <Trans>Upgrade License</Trans>
          </Link>
          <Link to="/admin/users" className={buttonClass}>
            <Trans>Manage Users</Trans>
          </Link>
        </span>
      );
    }
    case "serverUpdate": {
      const version = banner.version;
      const text: ReactNode =
        banner.urgency === "critical" ? (
          <Trans>A critical server update ({version}) is available. Update now.</Trans>
        ) : banner.urgency === "high" ? (
          <Trans>An important server update ({version}) is available. Update soon.</Trans>
        ) : banner.urgency === "medium" ? (
          <Trans>A server update ({version}) is available with improvements and fixes.</Trans>
        ) : banner.urgency === "low" ? (
          <Trans>A minor server update ({version}) is available.</Trans>
        ) : (
          <Trans>A server update ({version}) is available.</Trans>
        );
      return (
        <>
          {text}{" "}
          {banner.link ? (
            <a href={banner.link} target="_blank" rel="noreferrer" className={linkClass}>
              <Trans>What's new</Trans>
            </a>
          ) : null}
        </>
      );
    }
  }
}

/** The banner (nothing when no alert applies). */
export function AlertBanner() {
  const { t } = useLingui();
  const status = useQuery(statusQueries.header());
  const agents = useQuery(agentQueries.header());
  const users = useQuery(userQueries.list());
  const [dismissed, setDismissed] = useAtom(dismissedAtom);
  const banner = pickBanner({
    status: status.data,
    statusError: status.error,
    agents: agents.data,
    users: users.data,
    dismissed,
  });
  if (banner === undefined) return null;
  const severe =
    banner.kind === "unlicensed" || banner.kind === "err" || (banner.kind === "userLimitExceeded" && banner.blocked);
  return (
    <div
      role="alert"
      data-banner={banner.kind}
      className={`flex items-start justify-between gap-4 px-6 py-3 text-sm ${
        severe
          ? "bg-red-100 text-red-950 dark:bg-red-950 dark:text-red-50"
          : "bg-amber-100 text-amber-950 dark:bg-amber-950 dark:text-amber-50"
      }`}
    >
      <div>
        <BannerText banner={banner} />
      </div>
      <button
        type="button"
        aria-label={t`Dismiss alert`}
        onClick={() => setDismissed((set) => new Set([...set, banner.kind]))}
        className="shrink-0 rounded px-1 text-lg leading-none"
      >
        ×
      </button>
    </div>
  );
}

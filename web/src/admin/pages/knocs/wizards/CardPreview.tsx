/**
 * The live card preview beside every wizard step (docs/reference.md admin-console §2 "A live card preview shows the Knoc
 * as users see it, a variant for outside the allowed IP range, a note when hidden from users, and a
 * warning when auto-browse is enabled"): the portal's card look (icon — an image as the portal shows `data:image/…` icons, else the first letter — description, URL, Grant), drawn
 * from the draft as it is typed; the outside-range variant appears once an IP restriction is set.
 */
import { Trans, useLingui } from "@lingui/react/macro";
import type { WizardDraft } from "./wizard-state.ts";

function Card({
  description,
  url,
  icon,
  outside,
}: {
  description: string;
  url: string;
  icon: string;
  outside: boolean;
}) {
  return (
    <div
      className={`rounded-xl p-4 ring-1 ${outside ? "border border-dashed border-slate-300 bg-slate-50 ring-transparent dark:border-slate-700 dark:bg-slate-900/40" : "bg-white shadow-sm ring-slate-200 dark:bg-slate-900 dark:ring-slate-800"}`}
    >
      <div className="flex items-start gap-3">
        {icon.startsWith("data:image/") ? (
          <img src={icon} alt="" className="size-10 shrink-0 rounded-lg bg-white object-contain p-1" />
        ) : (
          <span
            aria-hidden="true"
            className="grid size-10 shrink-0 place-items-center rounded-lg bg-accent-100 font-semibold text-accent-800"
          >
            {Array.from(description.trim())[0]?.toUpperCase() ?? "?"}
          </span>
        )}
        <div className="min-w-0 flex-1">
          <p className="truncate font-semibold text-slate-900 dark:text-white">{description}</p>
          {url ? <p className="truncate text-xs text-accent-800 dark:text-accent-300">{url}</p> : null}
        </div>
      </div>
      <div className="mt-4 flex items-center justify-between gap-2">
        <span className="text-xs text-slate-600 dark:text-slate-400">
          {outside ? <Trans>Outside the allowed IP range</Trans> : <Trans>Not granted</Trans>}
        </span>
        <span
          aria-hidden="true"
          className={`rounded-md px-3 py-1.5 text-sm font-semibold ${outside ? "bg-slate-200 text-slate-600 dark:bg-slate-800 dark:text-slate-400" : "bg-accent-700 text-white"}`}
        >
          <Trans>Grant</Trans>
        </span>
      </div>
    </div>
  );
}

/** The preview of `draft`'s card. */
export function CardPreview({ draft }: { draft: WizardDraft }) {
  const { t } = useLingui();
  const description = draft.settings.Description?.trim() || t`New Knoc`;
  const url = draft.settings.URL ?? "";
  const icon = draft.settings.Icon ?? "";
  const restricted = (draft.options.IpExclusions?.RestrictionType ?? "none") !== "none";
  return (
    <aside aria-label={t`Card preview`} data-testid="card-preview" className="space-y-3">
      <h2 className="text-sm font-semibold text-slate-700 dark:text-slate-200">
        <Trans>What users see</Trans>
      </h2>
      <Card description={description} url={url} icon={icon} outside={false} />
      {restricted ? <Card description={description} url={url} icon={icon} outside /> : null}
      {draft.options.HideFromUsers ? (
        <p role="note" className="text-sm text-slate-700 dark:text-slate-300">
          <Trans>Hidden from users: this card does not appear on their dashboard.</Trans>
        </p>
      ) : null}
      {draft.options.AutoBrowseUsers ? (
        <p role="note" className="text-sm text-amber-900 dark:text-amber-200">
          <Trans>Auto-browse is on: users are taken to the URL as soon as access is granted.</Trans>
        </p>
      ) : null}
    </aside>
  );
}

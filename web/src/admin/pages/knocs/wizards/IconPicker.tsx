/**
 * The icon picker of the settings step (docs/reference.md admin-console §2 "an icon picker (searchable grid, 4 columns,
 * default a server icon)", §9 "Icon grid 4 columns"): a search box filtering on the icons' names and
 * words, and a radio group of icons in four columns; the chosen one is the Knoc's Icon (a data URL).
 */
import { useState } from "react";
import { Trans, useLingui } from "@lingui/react/macro";
import { msg } from "@lingui/core/macro";
import type { MessageDescriptor } from "@lingui/core";
import { KNOC_ICONS, knocIconUrl } from "../../../lib/knoc-icons.ts";

const LABELS: Record<string, MessageDescriptor> = {
  server: msg`Server`,
  database: msg`Database`,
  globe: msg`Website`,
  lock: msg`Lock`,
  terminal: msg`Terminal`,
  cloud: msg`Cloud`,
  shield: msg`Shield`,
  key: msg`Key`,
  mail: msg`Mail`,
  desktop: msg`Desktop`,
  network: msg`Network`,
  code: msg`Code`,
  chart: msg`Chart`,
  folder: msg`Folder`,
  document: msg`Document`,
  cog: msg`Settings`,
  users: msg`Users`,
  phone: msg`Phone`,
  printer: msg`Printer`,
  camera: msg`Camera`,
  wifi: msg`Wireless`,
  bolt: msg`Power`,
  building: msg`Building`,
  box: msg`Container`,
};

/** Props: the chosen Icon (data URL) and the setter. */
export function IconPicker({ value, onChange }: { value: string; onChange: (url: string) => void }) {
  const { t, i18n } = useLingui();
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const label = (id: string): string => (LABELS[id] ? i18n._(LABELS[id]) : id);
  const shown = KNOC_ICONS.filter(
    (icon) => q === "" || icon.words.includes(q) || label(icon.id).toLowerCase().includes(q),
  );
  return (
    <fieldset className="sm:col-span-2">
      <legend className="mb-1 text-sm font-medium text-slate-700 dark:text-slate-200">
        <Trans>Icon</Trans>
      </legend>
      <input
        type="search"
        aria-label={t`Search icons`}
        placeholder={t`Search icons`}
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        className="mb-2 block w-full max-w-xs rounded-md border-0 bg-white px-3 py-2 text-sm text-slate-900 ring-1 ring-inset ring-slate-300 focus:ring-2 focus:ring-accent-600 dark:bg-slate-950 dark:text-white dark:ring-slate-600"
      />
      <div role="radiogroup" aria-label={t`Icon`} data-testid="icon-grid" className="grid max-w-sm grid-cols-4 gap-2">
        {shown.map((icon) => {
          const url = knocIconUrl(icon);
          const chosen = url === value;
          return (
            <button
              key={icon.id}
              type="button"
              role="radio"
              aria-checked={chosen}
              aria-label={label(icon.id)}
              title={label(icon.id)}
              onClick={() => onChange(url)}
              className={`flex flex-col items-center gap-1 rounded-md p-2 text-xs ring-1 ring-inset ${chosen ? "bg-accent-50 text-accent-900 ring-2 ring-accent-700 dark:bg-slate-800 dark:text-white" : "text-slate-700 ring-slate-200 hover:bg-slate-50 dark:text-slate-300 dark:ring-slate-700 dark:hover:bg-slate-800"}`}
            >
              <img src={url} alt="" className="size-7 rounded bg-white p-0.5" />
              <span aria-hidden="true" className="truncate">
                {label(icon.id)}
              </span>
            </button>
          );
        })}
      </div>
      {shown.length === 0 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          <Trans>No icon matches the search.</Trans>
        </p>
      ) : null}
    </fieldset>
  );
}

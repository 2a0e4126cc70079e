/**
 * The product mark: a gate glyph and the name "Postern".
 */
import { Trans } from "@lingui/react/macro";

/** Logo and product name; `compact` hides the name on small screens. */
export function BrandMark({ compact = false }: { compact?: boolean }) {
  return (
    <span className="inline-flex items-center gap-2 font-semibold tracking-tight text-slate-900 dark:text-white">
      <svg viewBox="0 0 32 32" aria-hidden="true" className="size-8 shrink-0">
        <rect width="32" height="32" rx="8" className="fill-accent-700" />
        <path d="M10 25V13a6 6 0 0 1 12 0v12" fill="none" stroke="white" strokeWidth="2.5" strokeLinecap="round" />
        <path d="M16 17v4" stroke="white" strokeWidth="2.5" strokeLinecap="round" />
      </svg>
      <span className={compact ? "hidden sm:inline" : undefined}>
        <Trans>Postern</Trans>
      </span>
    </span>
  );
}

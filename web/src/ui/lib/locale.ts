/**
 * Locale choice (docs/reference.md user-portal §1: locales en and de, fallback en-AU).
 */

/** The message catalogs that exist. */
export type AppLocale = "en" | "de";

/** The English formatting locale used when the browser names no English variant. */
export const FALLBACK_LOCALE = "en-AU";

/**
 * Picks the catalog from the browser's preferred languages (first match of de or en wins; anything
 * else is English) and the Intl locales for dates and numbers (the browser's variant, else en-AU / de).
 */
export function pickLocale(languages: readonly string[]): { locale: AppLocale; formatLocales: string[] } {
  for (const tag of languages) {
    const primary = tag.toLowerCase().split("-")[0];
    if (primary === "de") return { locale: "de", formatLocales: tag.toLowerCase() === "de" ? ["de"] : [tag, "de"] };
    if (primary === "en")
      return { locale: "en", formatLocales: tag.includes("-") ? [tag, FALLBACK_LOCALE] : [FALLBACK_LOCALE] };
  }
  return { locale: "en", formatLocales: [FALLBACK_LOCALE] };
}

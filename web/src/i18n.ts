/**
 * Lingui runtime set-up: both compiled catalogs are bundled (they are small) and the locale is
 * picked from the browser's languages (user-portal §1).
 */
import { i18n } from "@lingui/core";
import { messages as de } from "./locales/de/messages.js";
import { messages as en } from "./locales/en/messages.js";
import { pickLocale } from "./lib/locale.ts";

/** Loads the catalogs and activates the browser's locale; sets `<html lang>`. Returns the i18n instance. */
export function setupI18n(languages: readonly string[] = navigator.languages): typeof i18n {
  const { locale, formatLocales } = pickLocale(languages.length > 0 ? languages : [navigator.language]);
  i18n.load({ en, de });
  i18n.activate(locale, formatLocales);
  document.documentElement.lang = locale;
  return i18n;
}

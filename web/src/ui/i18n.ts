/**
 * Lingui runtime set-up (docs/reference.md user-portal §1: locales en and de, fallback en-AU). Each app passes its
 * catalog loader: the English catalog is bundled, the German one is loaded on demand (its own
 * chunk), so English pages carry no German.
 */
import { i18n } from "@lingui/core";
import type { Messages } from "@lingui/core";
import { pickLocale } from "./lib/locale.ts";
import type { AppLocale } from "./lib/locale.ts";

/** Loads an app's messages for a locale ("en" must not fail). */
export type CatalogLoader = (locale: AppLocale) => Promise<Messages>;

/**
 * Loads the catalog of the browser's locale and activates it; sets `<html lang>`. A German catalog
 * that cannot be loaded leaves the page in English. Resolves with the i18n instance.
 */
export async function setupI18n(
  load: CatalogLoader,
  languages: readonly string[] = navigator.languages,
): Promise<typeof i18n> {
  const { locale, formatLocales } = pickLocale(languages.length > 0 ? languages : [navigator.language]);
  let active: AppLocale = locale;
  let messages: Messages;
  try {
    messages = await load(locale);
  } catch {
    active = "en";
    messages = await load("en");
  }
  i18n.load(active, messages);
  i18n.activate(active, active === locale ? formatLocales : ["en-AU"]);
  document.documentElement.lang = active;
  return i18n;
}

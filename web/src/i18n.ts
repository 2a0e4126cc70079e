/**
 * Lingui runtime set-up (user-portal §1: locales en and de, fallback en-AU). The English catalog is
 * bundled; the German one is loaded on demand (its own chunk), so English pages carry no German.
 */
import { i18n } from "@lingui/core";
import type { Messages } from "@lingui/core";
import { messages as en } from "./locales/en/messages.js";
import { pickLocale } from "./lib/locale.ts";
import type { AppLocale } from "./lib/locale.ts";

async function catalog(locale: AppLocale): Promise<Messages> {
  if (locale === "en") return en;
  return (await import("./locales/de/messages.js")).messages;
}

/**
 * Loads the catalog of the browser's locale and activates it; sets `<html lang>`. A German catalog
 * that cannot be loaded leaves the page in English. Resolves with the i18n instance.
 */
export async function setupI18n(languages: readonly string[] = navigator.languages): Promise<typeof i18n> {
  const { locale, formatLocales } = pickLocale(languages.length > 0 ? languages : [navigator.language]);
  let active: AppLocale = locale;
  let messages: Messages;
  try {
    messages = await catalog(locale);
  } catch {
    active = "en";
    messages = en;
  }
  i18n.load(active, messages);
  i18n.activate(active, active === locale ? formatLocales : ["en-AU"]);
  document.documentElement.lang = active;
  return i18n;
}

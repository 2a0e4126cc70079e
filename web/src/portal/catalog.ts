/** The portal's message catalog (src/locales: the portal's and the UI kit's messages). */
import type { Messages } from "@lingui/core";
import type { AppLocale } from "../ui/lib/locale.ts";
import { messages as en } from "../locales/en/messages.js";

/** English is bundled; German is its own chunk, loaded on demand. */
export async function portalCatalog(locale: AppLocale): Promise<Messages> {
  if (locale === "en") return en;
  return (await import("../locales/de/messages.js")).messages;
}

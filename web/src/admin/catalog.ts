/**
 * The admin console's messages: the portal catalog (src/locales: the UI kit's and the shared
 * error messages) merged with the admin catalog (src/admin/locales). English is bundled; German is
 * loaded on demand.
 */
import type { Messages } from "@lingui/core";
import type { AppLocale } from "../ui/lib/locale.ts";
import { messages as enShared } from "../locales/en/messages.js";
import { messages as enAdmin } from "./locales/en/messages.js";

/** Both catalogs of a locale, the admin's messages winning. */
export async function adminCatalog(locale: AppLocale): Promise<Messages> {
  if (locale === "en") return { ...enShared, ...enAdmin };
  const [shared, admin] = await Promise.all([import("../locales/de/messages.js"), import("./locales/de/messages.js")]);
  return { ...shared.messages, ...admin.messages };
}

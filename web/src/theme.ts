/**
 * Applies the theme of GET /api/theme (user-portal §1, §3): `data-accent` on <html> picks the
 * accent variables of styles.css; `data-high-accessibility` is set for the high-accessibility flag.
 */
import { getTheme } from "./api/user.ts";

const ACCENTS = new Set(["teal", "grape", "iceberg", "rose", "offsite"]);

/** Fetches the theme once and applies it; failures keep the default (teal). */
export async function applyTheme(root: HTMLElement = document.documentElement): Promise<void> {
  try {
    const theme = await getTheme();
    if (ACCENTS.has(theme.Accent)) root.dataset.accent = theme.Accent;
    if (theme.HighAccessibility) root.dataset.highAccessibility = "true";
    else delete root.dataset.highAccessibility;
  } catch {
    // The default theme is fine; the page must not fail over its colours.
  }
}

/**
 * Appearance (docs/reference.md user-portal §1): the theme of GET /api/theme (cached 600 s, docs/reference.md user-portal §9) —
 * `data-accent` on <html> picks the accent variables of styles.css, `data-high-accessibility`
 * switches on the high-accessibility styles — and the colour mode (light, dark, auto) as the
 * `dark` class on <html>.
 */
import { getDefaultStore } from "jotai";
import { cachedTheme } from "./api/cached.ts";
import { isDarkMode } from "./lib/colour-mode.ts";
import { colorModeAtom, darkAtom, themeAtom } from "./state/appearance.ts";

const ACCENTS = new Set(["teal", "grape", "iceberg", "rose", "offsite"]);

/**
 * Fetches the theme (or takes the cached one younger than 600 s) and applies it; failures keep the
 * current look (teal by default). Called at start and after each navigation.
 */
export async function applyTheme(root: HTMLElement = document.documentElement): Promise<void> {
  try {
    const theme = await cachedTheme();
    root.dataset.accent = ACCENTS.has(theme.Accent) ? theme.Accent : "teal";
    if (theme.HighAccessibility) root.dataset.highAccessibility = "true";
    else delete root.dataset.highAccessibility;
    getDefaultStore().set(themeAtom, theme);
  } catch {
    // The default theme is fine; the page must not fail over its colours.
  }
}

/**
 * Keeps the `dark` class of <html> (and darkAtom) in step with the stored colour mode and, for
 * "auto", the system's preference. Returns a function that stops following.
 */
export function followColorMode(root: HTMLElement = document.documentElement): () => void {
  const store = getDefaultStore();
  const media = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = (): void => {
    const dark = isDarkMode(store.get(colorModeAtom), media.matches);
    root.classList.toggle("dark", dark);
    store.set(darkAtom, dark);
  };
  apply();
  const unsubscribe = store.sub(colorModeAtom, apply);
  media.addEventListener("change", apply);
  return () => {
    unsubscribe();
    media.removeEventListener("change", apply);
  };
}

/**
 * Colour mode (docs/reference.md user-portal §1 "colour mode (light, dark, system; stored value names light, dark,
 * auto)", §2 "colour-mode choice").
 */

/** The stored colour mode: "auto" follows the system. */
export type ColorMode = "light" | "dark" | "auto";

/** The stored value as a mode; "auto" for anything else. */
export function parseColorMode(value: unknown): ColorMode {
  return value === "light" || value === "dark" ? value : "auto";
}

/** Whether the page is dark for `mode` when the system prefers dark (`systemDark`). */
export function isDarkMode(mode: ColorMode, systemDark: boolean): boolean {
  return mode === "dark" || (mode === "auto" && systemDark);
}

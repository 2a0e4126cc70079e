/**
 * Appearance state shared by the portal and the admin console (docs/reference.md user-portal §1): the colour mode
 * (localStorage `colorMode`), the theme of GET /api/theme and whether the page is shown dark.
 */
import { atom } from "jotai";
import type { Theme } from "@postern/shared";
import { parseColorMode } from "../lib/colour-mode.ts";
import type { ColorMode } from "../lib/colour-mode.ts";
import { StorageKey } from "../lib/storage.ts";
import { storedAtom } from "./stored-atom.ts";

/** The colour mode: light, dark or auto (localStorage `colorMode`). */
export const colorModeAtom = storedAtom<ColorMode>(StorageKey.colorMode, parseColorMode);

/** The theme of GET /api/theme once loaded (undefined before, or when it could not be read). */
export const themeAtom = atom<Theme | undefined>(undefined);

/** Whether the page is shown dark (resolved from colorModeAtom and the system preference by theme.ts). */
export const darkAtom = atom(false);

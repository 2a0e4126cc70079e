/**
 * Whether a CSS media query matches, kept up to date (for layouts that must render an element in
 * one place only, such as a table's status cell on narrow screens).
 */
import { useCallback, useSyncExternalStore } from "react";

/** True while `query` (e.g. "(min-width: 640px)") matches. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => true,
  );
}

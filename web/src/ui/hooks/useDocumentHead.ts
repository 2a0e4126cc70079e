/**
 * Per-route page title and favicon (docs/reference.md user-portal §2: "Page title and favicon come from the route").
 */
import { useEffect } from "react";

/** The user pages' favicon; admin pages pass their own. */
export const USER_FAVICON = "/favicon.svg";

/** Sets `document.title` to "`title` · Postern" and the favicon link while the component is mounted. */
export function useDocumentHead(title: string, favicon: string = USER_FAVICON): void {
  useEffect(() => {
    document.title = title === "" ? "Postern" : `${title} · Postern`;
    let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (link === null) {
      link = document.createElement("link");
      link.rel = "icon";
      document.head.append(link);
    }
    if (link.getAttribute("href") !== favicon) link.href = favicon;
  }, [title, favicon]);
}

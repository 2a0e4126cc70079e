/**
 * The icons a Knoc can carry (docs/reference.md admin-console §2 "an icon picker (searchable grid, 4 columns, default a
 * server icon)"). A Knoc's Icon is stored as an SVG `data:image/svg+xml` URL, which the user portal
 * shows as it shows any `data:image/…` icon (portal/components/AclIcon.tsx), so no icon font or
 * asset has to exist on the portal's side. Each icon has an id, English search words and the SVG
 * path data of a 24×24 outline drawing.
 */

/** One icon of the catalogue. */
export interface KnocIcon {
  id: string;
  /** Search words (English, lower case); the picker also matches the translated label. */
  words: string;
  /** SVG path data, 24×24, drawn with a 1.5 stroke. */
  paths: readonly string[];
}

/** The catalogue, the default (server) first. */
export const KNOC_ICONS: readonly KnocIcon[] = [
  {
    id: "server",
    words: "server rack host machine",
    paths: ["M4 4h16v6H4z", "M4 14h16v6H4z", "M8 7h.01", "M8 17h.01"],
  },
  {
    id: "database",
    words: "database sql storage db",
    paths: [
      "M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3z",
      "M4 6v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6",
      "M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3",
    ],
  },
  {
    id: "globe",
    words: "globe web internet website",
    paths: [
      "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z",
      "M3 12h18",
      "M12 3c2.5 2.7 3.8 5.7 3.8 9s-1.3 6.3-3.8 9c-2.5-2.7-3.8-5.7-3.8-9S9.5 5.7 12 3z",
    ],
  },
  { id: "lock", words: "lock secure vault", paths: ["M6 11h12v10H6z", "M8 11V7a4 4 0 0 1 8 0v4"] },
  { id: "terminal", words: "terminal ssh shell console", paths: ["M3 5h18v14H3z", "M7 9l3 3-3 3", "M12 15h5"] },
  { id: "cloud", words: "cloud aws azure saas", paths: ["M7 18a4 4 0 0 1-.5-8A6 6 0 0 1 18 9a4.5 4.5 0 0 1-.5 9z"] },
  { id: "shield", words: "shield firewall security", paths: ["M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"] },
  { id: "key", words: "key vpn credential", paths: ["M15 7a4 4 0 1 1-3.9 5H3v3h3v3h3v-3h2.1A4 4 0 0 1 15 7z"] },
  { id: "mail", words: "mail email smtp", paths: ["M3 6h18v12H3z", "M3 6l9 7 9-7"] },
  { id: "desktop", words: "desktop rdp remote screen", paths: ["M3 4h18v12H3z", "M8 20h8", "M12 16v4"] },
  {
    id: "network",
    words: "network switch router lan",
    paths: ["M10 3h4v4h-4z", "M3 17h4v4H3z", "M17 17h4v4h-4z", "M12 7v5", "M5 17v-5h14v5"],
  },
  { id: "code", words: "code git repository dev", paths: ["M8 8l-4 4 4 4", "M16 8l4 4-4 4", "M14 5l-4 14"] },
  {
    id: "chart",
    words: "chart monitoring dashboard grafana",
    paths: ["M4 20V4", "M4 20h16", "M8 16v-4", "M12 16V8", "M16 16v-6"],
  },
  { id: "folder", words: "folder files share nas", paths: ["M3 6h6l2 2h10v11H3z"] },
  { id: "document", words: "document wiki docs", paths: ["M6 3h8l4 4v14H6z", "M14 3v4h4", "M9 12h6", "M9 16h6"] },
  {
    id: "cog",
    words: "cog settings admin management",
    paths: [
      "M12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6z",
      "M12 2v3",
      "M12 19v3",
      "M2 12h3",
      "M19 12h3",
      "M4.9 4.9l2.1 2.1",
      "M17 17l2.1 2.1",
      "M4.9 19.1L7 17",
      "M17 7l2.1-2.1",
    ],
  },
  {
    id: "users",
    words: "users people team hr",
    paths: [
      "M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6z",
      "M3 20c0-3.3 2.7-6 6-6s6 2.7 6 6",
      "M16 5a3 3 0 0 1 0 6",
      "M18 14c1.8.8 3 2.6 3 4.6",
    ],
  },
  {
    id: "phone",
    words: "phone voip pbx",
    paths: ["M5 3h4l2 5-3 2a11 11 0 0 0 6 6l2-3 5 2v4a2 2 0 0 1-2 2A17 17 0 0 1 3 5a2 2 0 0 1 2-2z"],
  },
  { id: "printer", words: "printer print", paths: ["M7 8V3h10v5", "M4 8h16v8H4z", "M7 14h10v7H7z"] },
  {
    id: "camera",
    words: "camera cctv video",
    paths: ["M3 7h4l2-3h6l2 3h4v12H3z", "M12 10a3 3 0 1 0 0 6 3 3 0 0 0 0-6z"],
  },
  {
    id: "wifi",
    words: "wifi wireless access point",
    paths: ["M2 9a15 15 0 0 1 20 0", "M5 12.5a10 10 0 0 1 14 0", "M8.5 16a5 5 0 0 1 7 0", "M12 19.5h.01"],
  },
  { id: "bolt", words: "bolt power energy ups", paths: ["M13 2L4 14h7l-1 8 9-12h-7z"] },
  {
    id: "building",
    words: "building office site branch",
    paths: ["M4 21V3h10v18", "M14 9h6v12", "M2 21h20", "M8 7h2", "M8 11h2", "M8 15h2"],
  },
  {
    id: "box",
    words: "box container docker kubernetes",
    paths: ["M3 7l9-4 9 4v10l-9 4-9-4z", "M3 7l9 4 9-4", "M12 11v10"],
  },
];

/** The default icon (docs/reference.md admin-console §2: a server icon). */
export const DEFAULT_KNOC_ICON: KnocIcon = KNOC_ICONS[0]!;

/** The Icon value (an SVG data URL) of `icon`. */
export function knocIconUrl(icon: KnocIcon): string {
  const body = icon.paths.map((d) => `<path d="${d}"/>`).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#0f766e" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/** The catalogue icon whose data URL is `url`, if any. */
export function knocIconOf(url: string): KnocIcon | undefined {
  return KNOC_ICONS.find((icon) => knocIconUrl(icon) === url);
}

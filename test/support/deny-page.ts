/**
 * The HAProxy deny page of docs/admin-guide.md ("A deny page that brings users back"), taken from the
 * guide itself (the fenced blocks after `<!-- deny-page:haproxy -->` and `<!-- deny-page:html -->`) so
 * the test runs exactly what the documentation shows, and started in a real HAProxy (startHaproxy's
 * `frontendRules`) with its paths and portal address replaced by the test's.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHaproxy } from "./haproxy.ts";
import type { HaproxyInstance } from "./haproxy.ts";

/** The guide the snippet comes from. */
export const ADMIN_GUIDE = new URL("../../docs/admin-guide.md", import.meta.url);
/** The placeholders of the snippet: ACL file, page file, portal origin. */
export const DENY_PAGE_PLACEHOLDERS = {
  aclFile: "/etc/haproxy/postern.acl",
  pageFile: "/etc/haproxy/postern-deny.html",
  portal: "https://postern.example.com",
} as const;

/** The two blocks of the guide: frontend config lines and the HTML page template. */
export interface DenyPageSnippet {
  config: string[];
  html: string;
}

/**
 * Reads the snippet from the guide.
 * @throws Error when a marker or its fenced block is missing, or a placeholder is not used.
 */
export async function readDenyPageSnippet(): Promise<DenyPageSnippet> {
  const guide = await readFile(ADMIN_GUIDE, "utf8");
  const block = (marker: string): string => {
    const m = new RegExp(`<!-- ${marker} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``).exec(guide);
    if (!m?.[1]) throw new Error(`docs/admin-guide.md: no fenced block after <!-- ${marker} -->`);
    return m[1];
  };
  const config = block("deny-page:haproxy")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const html = block("deny-page:html") + "\n";
  const text = config.join("\n");
  for (const needle of [DENY_PAGE_PLACEHOLDERS.aclFile, DENY_PAGE_PLACEHOLDERS.pageFile])
    if (!text.includes(needle)) throw new Error(`the deny-page config does not use ${needle}`);
  if (!html.includes(DENY_PAGE_PLACEHOLDERS.portal))
    throw new Error(`the deny page does not link to ${DENY_PAGE_PLACEHOLDERS.portal}`);
  return { config, html };
}

/** A running HAProxy whose frontend serves the guide's deny page. `stop()` also removes the page's temp dir. */
export type DenyPageHaproxy = HaproxyInstance;

/**
 * Starts a real HAProxy whose frontend runs the guide's snippet (ACL file: the instance's `aclFile`,
 * so `aclId` and grants work as for any Knoc) and answers 200 `ok` to granted addresses.
 * `portalUrl`: the portal's origin written into the page (e.g. `http://127.0.0.1:PORT`).
 */
export async function startDenyPageHaproxy(portalUrl: string): Promise<DenyPageHaproxy> {
  const { config, html } = await readDenyPageSnippet();
  const dir = await mkdtemp(join(tmpdir(), `postern-deny-page-${process.pid}-`));
  const pageFile = join(dir, "postern-deny.html");
  await writeFile(pageFile, html.replaceAll(DENY_PAGE_PLACEHOLDERS.portal, portalUrl));
  try {
    const haproxy = await startHaproxy({
      frontendRules: (aclFile) =>
        config.map((line) =>
          line
            .replaceAll(DENY_PAGE_PLACEHOLDERS.aclFile, aclFile)
            .replaceAll(DENY_PAGE_PLACEHOLDERS.pageFile, pageFile),
        ),
    });
    return {
      ...haproxy,
      stop: async () => {
        await haproxy.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

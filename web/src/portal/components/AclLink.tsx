/**
 * The link to an ACL's URL (opened in a new tab), shown only for safe schemes (see isLinkableUrl).
 * Opening it counts as a use for the Top section (docs/reference.md user-portal §2).
 */
import { useSetAtom } from "jotai";
import { useLingui } from "@lingui/react/macro";
import type { StatusAcl } from "@postern/shared";
import { isLinkableUrl, linkLabel } from "../lib/acl.ts";
import { recordUse } from "../../ui/lib/storage.ts";
import { useCountsAtom } from "../state/atoms.ts";

/** The host of the URL as a link, or nothing when the ACL has no linkable URL. `wrap` breaks a long host (tables) instead of cutting it. */
export function AclLink({ acl, wrap = false }: { acl: StatusAcl; wrap?: boolean }) {
  const { t } = useLingui();
  const setUseCounts = useSetAtom(useCountsAtom);
  if (acl.URL === "" || !isLinkableUrl(acl.URL)) return null;
  const description = acl.Description;
  return (
    <a
      href={acl.URL}
      target="_blank"
      rel="noopener noreferrer"
      onClick={() => setUseCounts((counts) => recordUse(counts, acl.ACLID))}
      className={`mt-0.5 inline-flex max-w-full items-center gap-1 text-sm text-accent-700 hover:underline dark:text-accent-300 ${wrap ? "" : "truncate"}`}
    >
      <span className="sr-only">{t`Open ${description}:`} </span>
      <span className={wrap ? "break-all" : "truncate"}>{linkLabel(acl.URL)}</span>
      <svg viewBox="0 0 20 20" aria-hidden="true" className="size-3.5 shrink-0 fill-current">
        <path d="M11 3a1 1 0 1 0 0 2h2.59l-6.3 6.3a1 1 0 1 0 1.42 1.4L15 6.42V9a1 1 0 1 0 2 0V4a1 1 0 0 0-1-1h-5ZM5 5a2 2 0 0 0-2 2v8c0 1.1.9 2 2 2h8a2 2 0 0 0 2-2v-3a1 1 0 1 0-2 0v3H5V7h3a1 1 0 0 0 0-2H5Z" />
      </svg>
    </a>
  );
}

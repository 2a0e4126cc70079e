/**
 * The ACL search box, shown when more than 10 ACLs exist (user-portal §2, §9).
 */
import { useAtom } from "jotai";
import { useLingui } from "@lingui/react/macro";
import { aclSearchAtom } from "../state/atoms.ts";

/** A search field bound to aclSearchAtom. */
export function SearchBox() {
  const { t } = useLingui();
  const [query, setQuery] = useAtom(aclSearchAtom);
  return (
    <input
      type="search"
      value={query}
      onChange={(event) => setQuery(event.target.value)}
      aria-label={t`Search`}
      placeholder={t`Search resources`}
      autoComplete="off"
      className="w-full rounded-md border-0 bg-white px-3 py-2 text-sm shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-400 focus:ring-2 focus:ring-accent-600 sm:max-w-xs dark:bg-slate-900 dark:ring-slate-700"
    />
  );
}

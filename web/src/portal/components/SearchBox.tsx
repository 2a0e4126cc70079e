/**
 * The ACL search box, shown when more than 10 ACLs exist (docs/reference.md user-portal §2, §9).
 */
import { useAtom } from "jotai";
import { useLingui } from "@lingui/react/macro";
import { aclSearchAtom } from "../state/atoms.ts";
import { SearchIcon } from "../../ui/components/icons.tsx";

/** A search field bound to aclSearchAtom. */
export function SearchBox() {
  const { t } = useLingui();
  const [query, setQuery] = useAtom(aclSearchAtom);
  return (
    <div className="relative w-full sm:max-w-xs">
      <SearchIcon className="pointer-events-none absolute left-2.5 top-1/2 size-4 -translate-y-1/2 text-slate-500" />
      <input
        type="search"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
        aria-label={t`Search`}
        placeholder={t`Search resources`}
        autoComplete="off"
        className="w-full rounded-md border-0 bg-white py-2 pl-8 pr-3 text-sm shadow-sm ring-1 ring-inset ring-slate-300 placeholder:text-slate-500 focus:ring-2 focus:ring-accent-600 dark:bg-slate-900 dark:ring-slate-700 dark:placeholder:text-slate-400"
      />
    </div>
  );
}

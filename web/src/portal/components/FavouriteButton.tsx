/**
 * The favourite toggle of an ACL (docs/reference.md user-portal §2 Favourites; stored as favouriteAclIds).
 */
import { useLingui } from "@lingui/react/macro";
import { StarIcon } from "../../ui/components/icons.tsx";

/** A star button; `aria-pressed` tells whether the ACL is a favourite. */
export function FavouriteButton({
  description,
  favourite,
  onToggle,
}: {
  description: string;
  favourite: boolean;
  onToggle: () => void;
}) {
  const { t } = useLingui();
  return (
    <button
      type="button"
      aria-pressed={favourite}
      aria-label={t`Favourite: ${description}`}
      data-tooltip={favourite ? t`Remove from favourites` : t`Add to favourites`}
      onClick={onToggle}
      className={`tooltip -m-1 rounded-md p-1 ${favourite ? "text-amber-500 hover:text-amber-600" : "text-slate-400 hover:text-slate-600 dark:text-slate-500 dark:hover:text-slate-300"}`}
    >
      <StarIcon filled={favourite} className="size-5" />
    </button>
  );
}

/**
 * Icon of an ACL: an inline image for `data:image/…` icons, otherwise a tile with the first letter
 * of the description.
 */

/** `icon` is the ACL's Icon field; `label` its Description (for the placeholder letter); `small` for table rows. */
export function AclIcon({ icon, label, small = false }: { icon: string; label: string; small?: boolean }) {
  const size = small ? "size-8 text-base" : "size-10 text-lg";
  if (icon.startsWith("data:image/")) {
    return <img src={icon} alt="" className={`${size} shrink-0 rounded-lg object-contain`} />;
  }
  const letter = Array.from(label.trim())[0]?.toUpperCase() ?? "?";
  return (
    <span
      aria-hidden="true"
      className={`grid ${size} shrink-0 place-items-center rounded-lg bg-accent-100 font-semibold text-accent-800 dark:bg-accent-900/60 dark:text-accent-200`}
    >
      {letter}
    </span>
  );
}

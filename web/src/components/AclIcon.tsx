/**
 * Icon of an ACL card: an inline image for `data:image/…` icons, otherwise a placeholder tile
 * with the first letter of the description.
 */

/** `icon` is the ACL's Icon field; `label` its Description (for the placeholder letter). */
export function AclIcon({ icon, label }: { icon: string; label: string }) {
  if (icon.startsWith("data:image/")) {
    return <img src={icon} alt="" className="size-10 shrink-0 rounded-lg object-contain" />;
  }
  const letter = Array.from(label.trim())[0]?.toUpperCase() ?? "?";
  return (
    <span aria-hidden="true" className="grid size-10 shrink-0 place-items-center rounded-lg bg-accent-100 text-lg font-semibold text-accent-800 dark:bg-accent-900/60 dark:text-accent-200">
      {letter}
    </span>
  );
}

/**
 * A small spinning ring for buttons and loading states (decorative).
 */

/** The spinner; it inherits the text colour. */
export function Spinner() {
  return (
    <span
      aria-hidden="true"
      className="spinner size-3.5 animate-spin rounded-full border-2 border-current border-r-transparent"
    />
  );
}

/**
 * Where a Knoc is edited (docs/reference.md admin-console §2 "Update Knoc": "For a Passive+ Knoc the id is that of the
 * child firewall Knoc"): `/admin/knocs/{id}/update` with the hidden child's id for Passive+.
 */
import type { Knoc } from "@postern/shared";

/** The update page's path of `knoc`. */
export function updateKnocPath(knoc: Pick<Knoc, "ID" | "ApplicationType" | "Children">): string {
  const id = knoc.ApplicationType === "passive+" && knoc.Children[0] ? knoc.Children[0] : knoc.ID;
  return `/admin/knocs/${encodeURIComponent(id)}/update`;
}

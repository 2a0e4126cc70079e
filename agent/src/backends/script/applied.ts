/**
 * What a driver that cannot read its target back (script, webhook) applied since its last flush, per
 * ACL name: its `list` answers from here.
 */
export class AppliedRecord {
  readonly #byAcl = new Map<string, Set<string>>();

  /** Records a successful add or del of a normalised address. */
  note(acl: string, action: "add" | "del", ip: string): void {
    let set = this.#byAcl.get(acl);
    if (!set) this.#byAcl.set(acl, (set = new Set()));
    if (action === "add") set.add(ip);
    else set.delete(ip);
  }

  /** Forgets an ACL after a flush. */
  flushed(acl: string): void {
    this.#byAcl.delete(acl);
  }

  /** The addresses recorded for an ACL. */
  list(acl: string): string[] {
    return [...(this.#byAcl.get(acl) ?? [])];
  }
}

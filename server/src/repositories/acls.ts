/**
 * SQL of ACLs: rows, children of a Passive+ parent, insert/update/delete. No rules here.
 */
import { count, eq } from "drizzle-orm";
import type { Db, Tx } from "../db/index.ts";
import { acls } from "../db/schema.ts";

type Q = Db | Tx;
/** An ACL row. */
export type AclRow = typeof acls.$inferSelect;

/** Lists ACLs by description. */
export function listAcls(q: Q): AclRow[] {
  return q.select().from(acls).orderBy(acls.description).all();
}

/** Reads an ACL by id. */
export function getAcl(q: Q, id: string): AclRow | undefined {
  return q.select().from(acls).where(eq(acls.id, id)).get();
}

/** Ids of the ACLs whose parent is `id` (Passive+ children). */
export function childAclIds(q: Q, id: string): string[] {
  return q
    .select({ id: acls.id })
    .from(acls)
    .where(eq(acls.parentId, id))
    .all()
    .map((r) => r.id);
}

/** Inserts an ACL row. */
export function insertAcl(q: Q, row: typeof acls.$inferInsert): void {
  q.insert(acls).values(row).run();
}

/** Updates columns of an ACL. */
export function updateAcl(q: Q, id: string, set: Partial<Omit<AclRow, "id" | "createdAt">>): void {
  q.update(acls).set(set).where(eq(acls.id, id)).run();
}

/** Deletes an ACL. */
export function deleteAcl(q: Q, id: string): void {
  q.delete(acls).where(eq(acls.id, id)).run();
}

/** How many ACLs admins see (not hidden from admins: Passive+ children are). */
export function countVisibleAcls(q: Q): number {
  return q.select({ n: count() }).from(acls).where(eq(acls.hideFromAdmins, false)).get()?.n ?? 0;
}

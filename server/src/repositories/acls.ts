/**
 * SQL of ACLs: rows, children of a Passive+ parent, insert/update/delete. No rules here.
 */
import { count, eq, sql } from "drizzle-orm";
import { type Db, type Tx, tablesOf } from "../db/index.ts";
import { type acls } from "../db/schema.ts";
import { prepared } from "../db/prepared.ts";

type Q = Db | Tx;
/** An ACL row. */
export type AclRow = typeof acls.$inferSelect;

/** Lists ACLs by description. */
export async function listAcls(q: Q): Promise<AclRow[]> {
  const { acls } = tablesOf(q);
  return await q.select().from(acls).orderBy(acls.description);
}

/** Reads an ACL by id. */
export async function getAcl(q: Q, id: string): Promise<AclRow | undefined> {
  return (await aclById(q, { id }))[0];
}

/** getAcl's read, prepared (db/prepared.ts): the grant engine reads ACLs on every revoke and sweep. */
const aclById = prepared<{ id: string }, AclRow[]>("aclById", (q) => {
  const { acls } = tablesOf(q);
  return q
    .select()
    .from(acls)
    .where(eq(acls.id, sql.placeholder("id")))
    .limit(1);
});

/** Ids of the ACLs whose parent is `id` (Passive+ children). */
export async function childAclIds(q: Q, id: string): Promise<string[]> {
  const { acls } = tablesOf(q);
  return (await q.select({ id: acls.id }).from(acls).where(eq(acls.parentId, id))).map((r) => r.id);
}

/** Inserts an ACL row. */
export async function insertAcl(q: Q, row: typeof acls.$inferInsert): Promise<void> {
  const { acls } = tablesOf(q);
  await q.insert(acls).values(row);
}

/** Updates columns of an ACL. */
export async function updateAcl(q: Q, id: string, set: Partial<Omit<AclRow, "id" | "createdAt">>): Promise<void> {
  const { acls } = tablesOf(q);
  await q.update(acls).set(set).where(eq(acls.id, id));
}

/** Deletes an ACL. */
export async function deleteAcl(q: Q, id: string): Promise<void> {
  const { acls } = tablesOf(q);
  await q.delete(acls).where(eq(acls.id, id));
}

/** How many ACLs admins see (not hidden from admins: Passive+ children are). */
export async function countVisibleAcls(q: Q): Promise<number> {
  const { acls } = tablesOf(q);
  return (await q.select({ n: count() }).from(acls).where(eq(acls.hideFromAdmins, false)).limit(1))[0]?.n ?? 0;
}

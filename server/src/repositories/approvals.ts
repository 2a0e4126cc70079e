/**
 * SQL of approval requests (issue #14 item 1; docs/decisions.md "Approval requests"): insert, read, the
 * compare-and-set of a decision, and the reads of the approvers' list, the status entries and the expiry
 * sweep. Portable (SQLite and PostgreSQL): every query awaits its builder. No rules here.
 */
import { and, desc, eq, inArray, lte, ne, or, isNotNull, sql } from "drizzle-orm";
import { type Queryable, tablesOf, type Tables } from "../db/index.ts";
import { type approvalRequests } from "../db/schema.ts";
import { prepared } from "../db/prepared.ts";

/** An approval request row. */
export type ApprovalRow = typeof approvalRequests.$inferSelect;
/** A request with its Knoc's Description and approver groups (the approvers' view). */
export type ApprovalWithAcl = ApprovalRow & { aclDescription: string; approverGroupIds: string[] };

/** Inserts a request. */
export async function insertApproval(q: Queryable, row: typeof approvalRequests.$inferInsert): Promise<void> {
  const { approvalRequests } = tablesOf(q);
  await q.insert(approvalRequests).values(row);
}

const withAcl = ({ approvalRequests, acls }: Tables) => ({
  r: approvalRequests,
  aclDescription: acls.description,
  approverGroupIds: acls.approverGroupIds,
});
const flat = (rows: { r: ApprovalRow; aclDescription: string; approverGroupIds: string[] }[]): ApprovalWithAcl[] =>
  rows.map((x) => ({ ...x.r, aclDescription: x.aclDescription, approverGroupIds: x.approverGroupIds }));

/** Reads one request with its Knoc's Description and approver groups; undefined when unknown. */
export async function getApproval(q: Queryable, id: string): Promise<ApprovalWithAcl | undefined> {
  const { acls, approvalRequests } = tablesOf(q);
  const rows = await q
    .select(withAcl(tablesOf(q)))
    .from(approvalRequests)
    .innerJoin(acls, eq(acls.id, approvalRequests.aclId))
    .where(eq(approvalRequests.id, id))
    .limit(1);
  return flat(rows)[0];
}

/** Every pending request, oldest first, with its Knoc. */
export async function pendingApprovals(q: Queryable): Promise<ApprovalWithAcl[]> {
  const { acls, approvalRequests } = tablesOf(q);
  return flat(
    await q
      .select(withAcl(tablesOf(q)))
      .from(approvalRequests)
      .innerJoin(acls, eq(acls.id, approvalRequests.aclId))
      .where(eq(approvalRequests.state, "pending"))
      .orderBy(approvalRequests.createdAt, approvalRequests.id),
  );
}

/** The latest `limit` requests that are no longer pending, newest first, with their Knoc. */
export async function recentApprovals(q: Queryable, limit: number): Promise<ApprovalWithAcl[]> {
  const { acls, approvalRequests } = tablesOf(q);
  return flat(
    await q
      .select(withAcl(tablesOf(q)))
      .from(approvalRequests)
      .innerJoin(acls, eq(acls.id, approvalRequests.aclId))
      .where(ne(approvalRequests.state, "pending"))
      .orderBy(desc(approvalRequests.createdAt), desc(approvalRequests.id))
      .limit(limit),
  );
}

/** The pending request of a grant, if any (there is at most one). */
export async function pendingOfGrant(q: Queryable, grantId: string): Promise<ApprovalRow | undefined> {
  return (await pendingRead(q, { grantId }))[0];
}

/** pendingOfGrant's read, prepared (db/prepared.ts): every revoke asks it. */
const pendingRead = prepared<{ grantId: string }, ApprovalRow[]>("approvalPendingOfGrant", (q) => {
  const { approvalRequests } = tablesOf(q);
  return q
    .select()
    .from(approvalRequests)
    .where(and(eq(approvalRequests.grantId, sql.placeholder("grantId")), eq(approvalRequests.state, "pending")))
    .limit(1);
});

/**
 * The requests of a session's status entries, newest first (the status read takes the first of each grant):
 * found through the session's grants, so by index.
 */
export async function approvalsOfSession(q: Queryable, sessionId: string): Promise<ApprovalRow[]> {
  const { approvalRequests, grants } = tablesOf(q);
  return (
    await q
      .select({ r: approvalRequests })
      .from(grants)
      .innerJoin(approvalRequests, eq(approvalRequests.grantId, grants.id))
      .where(eq(grants.sessionId, sessionId))
      .orderBy(desc(approvalRequests.createdAt), desc(approvalRequests.id))
  ).map((x) => x.r);
}

/**
 * Moves a request from pending to `state` with the decision's fields, only while it is still pending
 * (compare-and-set); returns true when it moved.
 */
export async function closeApproval(
  q: Queryable,
  id: string,
  state: "approved" | "denied" | "expired" | "withdrawn",
  fields: { decidedAt: number; decidedBy?: string; decisionReason?: string; grantMinutes?: number | null },
): Promise<boolean> {
  const { approvalRequests } = tablesOf(q);
  const moved = await q
    .update(approvalRequests)
    .set({ state, ...fields })
    .where(and(eq(approvalRequests.id, id), eq(approvalRequests.state, "pending")))
    .returning({ id: approvalRequests.id });
  return moved.length > 0;
}

/**
 * Pending requests the sweep must close: those past their time (`expiresAt` ≤ now: "expired"), and those
 * whose session ended or whose Knoc no longer requires approval ("withdrawn"). With their Knoc.
 */
export async function pendingToClose(
  q: Queryable,
  now: number,
): Promise<(ApprovalWithAcl & { sessionEnded: boolean; requiresApproval: boolean })[]> {
  const { acls, approvalRequests, userSessions } = tablesOf(q);
  const rows = await q
    .select({ ...withAcl(tablesOf(q)), endedAt: userSessions.endedAt, requiresApproval: acls.requiresApproval })
    .from(approvalRequests)
    .innerJoin(acls, eq(acls.id, approvalRequests.aclId))
    .innerJoin(userSessions, eq(userSessions.id, approvalRequests.sessionId))
    .where(
      and(
        eq(approvalRequests.state, "pending"),
        or(
          lte(approvalRequests.expiresAt, now),
          isNotNull(userSessions.endedAt),
          lte(userSessions.endsAt, now),
          eq(acls.requiresApproval, false),
        ),
      ),
    );
  return rows.map((x) => ({
    ...x.r,
    aclDescription: x.aclDescription,
    approverGroupIds: x.approverGroupIds,
    sessionEnded: x.endedAt !== null,
    requiresApproval: x.requiresApproval,
  }));
}

/** Of `groupIds`, those `userId` is a member of. */
export async function memberGroups(q: Queryable, userId: string, groupIds: readonly string[]): Promise<string[]> {
  const { groupUsers } = tablesOf(q);
  if (groupIds.length === 0) return [];
  return (
    await q
      .select({ id: groupUsers.groupId })
      .from(groupUsers)
      .where(and(eq(groupUsers.userId, userId), inArray(groupUsers.groupId, [...groupIds])))
  ).map((r) => r.id);
}

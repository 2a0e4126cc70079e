/**
 * Groups (docs/reference.md admin-console §2 "Groups", §3 "Group", §4 "A group's type cannot change when editing",
 * §5 "Group", §7 /admin/groups). A group grants its ACLs (ACLIDs) to its members (UserIDs). Local
 * and dynamic groups take members from the admin, never SAML users; a saml group's members come
 * from the identity provider, so its UserIDs are ignored on write. Any change that takes an ACL
 * away from a user (ACL removed from the group, member removed, group deleted) revokes that user's
 * live grants on the ACLs they no longer reach by any path; adding never revokes.
 */
import { Errors } from "@postern/shared";
import type { Group, GroupWrite } from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/groups.ts";
import { assignedAclIds, getUser, liveSessionIds } from "../repositories/users.ts";
import { holdingGrantsOfSessions } from "../repositories/grants.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { newId } from "./auth/tokens.ts";
import type { GrantEngine, Ops } from "./grants/engine.ts";
import { Service } from "./service.ts";

/** The ACLs each user reaches now (user id → ACL ids), to compare after a change. */
export async function reachOf(tx: Tx, userIds: Iterable<string>): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const id of userIds) out.set(id, new Set(await assignedAclIds(tx, id)));
  return out;
}

/**
 * Revokes, inside the caller's transaction, the live grants of each user in `before` on the ACLs
 * they reached before (per `reachOf`) and no longer reach by any path (direct or another group).
 * Collects the agent ops into `ops`; send them with `engine.dispatch` after commit. `now` is epoch ms.
 */
export async function revokeLostAccess(
  tx: Tx,
  engine: GrantEngine,
  now: number,
  before: Map<string, Set<string>>,
  ops: Ops,
): Promise<void> {
  for (const [userId, had] of before) {
    const still = new Set(await assignedAclIds(tx, userId));
    const lost = new Set([...had].filter((a) => !still.has(a)));
    if (lost.size === 0) continue;
    const rows = (await holdingGrantsOfSessions(tx, await liveSessionIds(tx, userId, now))).filter((g) =>
      lost.has(g.aclId),
    );
    await engine.revokeInTx(tx, rows, ops);
  }
}

/** Groups: CRUD with membership and ACL assignment. */
export class GroupService extends Service {
  private async toWire(row: repo.GroupRow): Promise<Group> {
    const userIds = await repo.groupUserIds(this.db, row.id);
    return {
      ID: row.id,
      Name: row.name,
      Description: row.description,
      Type: row.type,
      ACLIDs: await repo.groupAclIds(this.db, row.id),
      UserIDs: userIds,
      UserCount: userIds.length,
      KnocCount: await repo.visibleAclCount(this.db, row.id),
      CreatedAt: iso(row.createdAt) ?? "",
    };
  }

  /** Lists every group by name (GET /admin/groups). */
  async list(): Promise<Group[]> {
    return Promise.all((await repo.listGroups(this.db)).map((r) => this.toWire(r)));
  }

  /** Reads one group (GET /admin/groups/{id}); 404 Not found when unknown. */
  async get(id: string): Promise<Group> {
    const row = await repo.getGroup(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "group");
    return await this.toWire(row);
  }

  /** The groups a user is a member of, by name (GET /admin/users/{id}/groups); 404 for an unknown user. */
  async ofUser(userId: string): Promise<Group[]> {
    if (!(await getUser(this.db, userId))) throw new AppError(Errors.notFound, "user");
    return Promise.all((await repo.groupsOfUser(this.db, userId)).map((r) => this.toWire(r)));
  }

  /** 400 Bad request when an ACL id is unknown. */
  private async checkAcls(tx: Tx, aclIds: readonly string[]): Promise<void> {
    const known = new Set(await repo.existingAclIds(tx, aclIds));
    const unknown = aclIds.find((id) => !known.has(id));
    if (unknown) throw new AppError(Errors.badRequest, `ACLIDs: unknown ACL ${unknown}`);
  }

  /**
   * The members to store for a group of `type`: none for saml groups (the identity provider decides);
   * otherwise the given users, which must exist (400 Bad request) and not be SAML users (400 Bad
   * request "UserIDs: SAML users cannot be members of a local group").
   */
  private async checkMembers(tx: Tx, type: Group["Type"], userIds: readonly string[]): Promise<string[]> {
    if (type === "saml") return [];
    const found = new Map((await repo.usersByIds(tx, userIds)).map((u) => [u.id, u.authType]));
    for (const id of userIds) {
      const authType = found.get(id);
      if (authType === undefined) throw new AppError(Errors.badRequest, `UserIDs: unknown user ${id}`);
      if (authType === "SAML")
        throw new AppError(Errors.badRequest, `UserIDs: SAML users cannot be members of a ${type} group`);
    }
    return [...new Set(userIds)];
  }

  /**
   * Creates a group; returns its id (POST /admin/groups). Throws 409 "A group with that name already
   * exists", 400 Bad request for unknown ACLs or users or a SAML member. Audit groupCreated.
   */
  async create(input: GroupWrite, actor: Actor): Promise<string> {
    const id = newId();
    await this.db.transaction(async (tx) => {
      if (await repo.getGroupByName(tx, input.Name)) throw new AppError(Errors.groupNameExists);
      await this.checkAcls(tx, input.ACLIDs);
      const members = await this.checkMembers(tx, input.Type, input.UserIDs);
      const now = this.clock.now();
      await repo.insertGroup(tx, {
        id,
        name: input.Name,
        description: input.Description,
        type: input.Type,
        createdAt: now,
      });
      await repo.setGroupAclIds(tx, id, input.ACLIDs);
      await repo.setGroupUserIds(tx, id, members);
      await writeAudit(tx, {
        action: AuditAction.groupCreated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: input.Name,
      });
    });
    return id;
  }

  /**
   * Updates a group (PUT /admin/groups/{id}): name, description, ACLs and (local/dynamic) members.
   * Throws 404 for an unknown group, 400 "Cannot change group type", 409 on a name clash, 400 as for
   * create. Users losing an ACL by this change lose their live grants on it. Audit groupUpdated.
   */
  async update(id: string, input: GroupWrite, actor: Actor): Promise<void> {
    const ops = await this.db.transaction(async (tx): Promise<Ops> => {
      const row = await repo.getGroup(tx, id);
      if (!row) throw new AppError(Errors.notFound, "group");
      if (row.type !== input.Type) throw new AppError(Errors.cannotChangeGroupType);
      const clash = await repo.getGroupByName(tx, input.Name);
      if (clash && clash.id !== id) throw new AppError(Errors.groupNameExists);
      await this.checkAcls(tx, input.ACLIDs);
      const members = row.type === "saml" ? null : await this.checkMembers(tx, row.type, input.UserIDs);
      const before = await reachOf(tx, await repo.groupUserIds(tx, id));
      const now = this.clock.now();
      await repo.updateGroup(tx, id, { name: input.Name, description: input.Description });
      await repo.setGroupAclIds(tx, id, input.ACLIDs);
      if (members) await repo.setGroupUserIds(tx, id, members);
      const ops: Ops = new Map();
      await revokeLostAccess(tx, this.engine, now, before, ops);
      await writeAudit(tx, {
        action: AuditAction.groupUpdated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: input.Name,
      });
      return ops;
    });
    this.engine.dispatch(ops);
  }

  /**
   * Deletes a group (DELETE /admin/groups/{id}); 404 when unknown. Its members lose their live
   * grants on the ACLs they reached only through it. Audit groupDeleted.
   */
  async delete(id: string, actor: Actor): Promise<void> {
    const ops = await this.db.transaction(async (tx): Promise<Ops> => {
      const row = await repo.getGroup(tx, id);
      if (!row) throw new AppError(Errors.notFound, "group");
      const before = await reachOf(tx, await repo.groupUserIds(tx, id));
      const now = this.clock.now();
      await repo.deleteGroup(tx, id);
      const ops: Ops = new Map();
      await revokeLostAccess(tx, this.engine, now, before, ops);
      await writeAudit(tx, {
        action: AuditAction.groupDeleted,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: row.name,
      });
      return ops;
    });
    this.engine.dispatch(ops);
  }
}

/**
 * ACLs (admin-console §3 "Knoc (ACL)", §5 "ACL", §7 /admin/acls). The ACL's Config must carry the
 * fields of its backend's type (haproxy: numeric ID; ipset: at least one set name). Changing an
 * ACL's backend, Config, IpExclusions, GrantType, CGNATOpen, or shortening its MaximumGrantDuration
 * ends its grants (they were decided under the old rules) and resyncs the agents; deleting an ACL
 * revokes its grants first.
 */
import { eq } from "drizzle-orm";
import { ErrKey, NONE_ID } from "@postern/shared";
import type { Acl, AclWrite } from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { acls, backends } from "../db/schema.ts";
import { iso } from "../clock.ts";
import { badRequest, notFound } from "../errors.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { newId } from "./auth/tokens.ts";
import { Service } from "./service.ts";

type AclRow = typeof acls.$inferSelect;

/** Checks the Config of an ACL against its backend type (admin-console §5); throws 400 with the spec's key. */
export function validateAclConfig(type: string, config: AclWrite["Config"]): void {
  if (type === "haproxy") {
    const raw = (config as Record<string, unknown>)["haproxy"] as { ID?: unknown } | undefined;
    if (!raw || raw.ID === undefined || raw.ID === null || raw.ID === "") throw badRequest(ErrKey.aclIdRequired);
    if (typeof raw.ID !== "number" || !Number.isInteger(raw.ID)) throw badRequest(ErrKey.aclIdMustBeNumber);
  }
  if (type === "allowlist" && !config.allowlist) throw badRequest(ErrKey.noBackendSelected, "Config.allowlist is required");
  if (type === "ipset") {
    const v = config.ipset;
    if (!v || (!v.V4SetName && !v.V6SetName)) throw badRequest(ErrKey.ipsetNameRequired);
    for (const name of [v.V4SetName, v.V6SetName]) {
      if (name && !/^[A-Za-z0-9_.-]{1,31}$/.test(name)) throw badRequest(ErrKey.invalidAclName, name);
    }
  }
}

/** ACLs: CRUD with the §5 rules. */
export class AclService extends Service {

  private toWire(row: AclRow): Acl {
    const backend = this.db.select().from(backends).where(eq(backends.id, row.backendId)).get();
    const children = this.db.select({ id: acls.id }).from(acls).where(eq(acls.parentId, row.id)).all().map((r) => r.id);
    return {
      ID: row.id,
      Name: row.description,
      Description: row.description,
      URL: row.url,
      Category: row.category,
      Icon: row.icon,
      ClickToGrant: row.clickToGrant,
      CGNATOpen: row.cgnatOpen,
      HideFromUsers: row.hideFromUsers,
      HideFromAdmins: row.hideFromAdmins,
      AutoBrowseUsers: row.autoBrowseUsers,
      MaximumGrantDuration: row.maximumGrantDurationSeconds,
      BackendID: row.backendId,
      BackendName: backend?.name ?? "",
      AgentID: backend?.agentId ?? NONE_ID,
      ParentID: row.parentId ?? NONE_ID,
      Children: children,
      IpExclusions: row.ipExclusions as Acl["IpExclusions"],
      GrantType: row.grantType as Acl["GrantType"],
      Config: row.config as Acl["Config"],
      LastModifiedAt: iso(row.updatedAt) ?? "",
      LastModifiedBy: row.updatedBy,
    };
  }

  /** Lists ACLs by description (hidden-from-admins children excluded). */
  list(): Acl[] {
    return this.db.select().from(acls).orderBy(acls.description).all().filter((r) => !r.hideFromAdmins).map((r) => this.toWire(r));
  }

  /** Reads one ACL; 404 when unknown. */
  get(id: string): Acl {
    const row = this.db.select().from(acls).where(eq(acls.id, id)).get();
    if (!row) throw notFound("ACL");
    return this.toWire(row);
  }

  private backendFor(tx: Tx, backendId: string): typeof backends.$inferSelect {
    if (!tx.select({ id: backends.id }).from(backends).limit(1).get()) throw badRequest(ErrKey.createBackendBeforeACL);
    const backend = tx.select().from(backends).where(eq(backends.id, backendId)).get();
    if (!backend) throw badRequest(ErrKey.noBackendSelected);
    return backend;
  }

  private values(input: AclWrite, now: number, actor: Actor) {
    return {
      parentId: input.ParentID === NONE_ID ? null : input.ParentID,
      description: input.Description,
      url: input.URL,
      category: input.Category,
      icon: input.Icon,
      clickToGrant: input.ClickToGrant,
      cgnatOpen: input.CGNATOpen,
      hideFromUsers: input.HideFromUsers,
      hideFromAdmins: input.HideFromAdmins,
      autoBrowseUsers: input.AutoBrowseUsers,
      maximumGrantDurationSeconds: input.MaximumGrantDuration,
      backendId: input.BackendID,
      ipExclusions: input.IpExclusions,
      grantType: input.GrantType,
      config: input.Config,
      updatedAt: now,
      updatedBy: actor.adminName,
    };
  }

  /** Creates an ACL; returns its id. */
  create(input: AclWrite, actor: Actor): string {
    const id = newId();
    let agentId: string | null = null;
    this.db.transaction((tx) => {
      const backend = this.backendFor(tx, input.BackendID);
      validateAclConfig(backend.type, input.Config);
      const now = this.clock.now();
      tx.insert(acls).values({ id, createdAt: now, ...this.values(input, now, actor) }).run();
      writeAudit(tx, { action: AuditAction.aclCreated, at: now, adminName: actor.adminName, ipAddress: actor.ip, aclDescription: input.Description });
      agentId = backend.agentId;
    });
    if (agentId) this.resync(agentId);
    return id;
  }

  /** Updates an ACL ("Mismatching IDs" checked by the route). */
  update(id: string, input: AclWrite, actor: Actor): void {
    const agentsToSync = new Set<string>();
    const ops = this.db.transaction((tx) => {
      const row = tx.select().from(acls).where(eq(acls.id, id)).get();
      if (!row) throw notFound("ACL");
      const backend = this.backendFor(tx, input.BackendID);
      validateAclConfig(backend.type, input.Config);
      const now = this.clock.now();
      // Where or to which addresses the ACL grants changed: current grants were decided under the old rules.
      const moved =
        row.backendId !== input.BackendID ||
        JSON.stringify(row.config) !== JSON.stringify(input.Config) ||
        JSON.stringify(row.ipExclusions) !== JSON.stringify(input.IpExclusions) ||
        JSON.stringify(row.grantType) !== JSON.stringify(input.GrantType) ||
        row.cgnatOpen !== input.CGNATOpen ||
        (input.MaximumGrantDuration !== null && (row.maximumGrantDurationSeconds === null || input.MaximumGrantDuration < row.maximumGrantDurationSeconds));
      const revokeOps = moved ? this.engine.revokeForAcls(tx, [id]) : new Map();
      tx.update(acls).set(this.values(input, now, actor)).where(eq(acls.id, id)).run();
      writeAudit(tx, { action: AuditAction.aclUpdated, at: now, adminName: actor.adminName, ipAddress: actor.ip, aclDescription: input.Description });
      if (moved) {
        const old = tx.select({ agentId: backends.agentId }).from(backends).where(eq(backends.id, row.backendId)).get();
        if (old?.agentId) agentsToSync.add(old.agentId);
        if (backend.agentId) agentsToSync.add(backend.agentId);
      }
      return revokeOps;
    });
    this.engine.dispatch(ops);
    for (const a of agentsToSync) this.resync(a);
  }

  /** Deletes an ACL after revoking its grants. */
  delete(id: string, actor: Actor): void {
    let agentId: string | null = null;
    const ops = this.db.transaction((tx) => {
      const row = tx.select().from(acls).where(eq(acls.id, id)).get();
      if (!row) throw notFound("ACL");
      const revokeOps = this.engine.revokeForAcls(tx, [id]);
      agentId = tx.select({ agentId: backends.agentId }).from(backends).where(eq(backends.id, row.backendId)).get()?.agentId ?? null;
      tx.delete(acls).where(eq(acls.id, id)).run();
      writeAudit(tx, { action: AuditAction.aclDeleted, at: this.clock.now(), adminName: actor.adminName, ipAddress: actor.ip, aclDescription: row.description });
      return revokeOps;
    });
    this.engine.dispatch(ops);
    if (agentId) this.resync(agentId);
  }
}

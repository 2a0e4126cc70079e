/**
 * Backends (admin-console §3 "BackendConfig", §5 "Backend", §7 /admin/backends). Rules: an agent
 * must exist before a backend; the agent must have connected and, for ipset, have the command and
 * sudo; the type cannot change on edit; a backend in use by ACLs cannot be deleted. Changing where
 * a backend enforces (agent or address) ends the grants on its ACLs, and the agents resync.
 */
import { eq } from "drizzle-orm";
import { ErrKey, NONE_ID, ServerMessage, backendTypeOf, isAgentless } from "@postern/shared";
import type { Backend, BackendWrite, AgentCapabilities } from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { acls, agents, backends } from "../db/schema.ts";
import { iso } from "../clock.ts";
import { AppError, badRequest, conflict, notFound } from "../errors.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { newId } from "./auth/tokens.ts";
import { Service } from "./service.ts";

type BackendRow = typeof backends.$inferSelect;

function toWire(row: BackendRow): Backend {
  return {
    ID: row.id,
    Name: row.name,
    AgentID: row.agentId ?? NONE_ID,
    Config: row.config as Backend["Config"],
    LastModifiedAt: iso(row.updatedAt) ?? "",
  };
}

/** Backends: CRUD with the §5 rules. `resync` asks the hub to resend an agent's desired state. */
export class BackendService extends Service {

  /** Lists backends by name. */
  list(): Backend[] {
    return this.db.select().from(backends).orderBy(backends.name).all().map(toWire);
  }

  /** Reads one backend; 404 when unknown. */
  get(id: string): Backend {
    const row = this.db.select().from(backends).where(eq(backends.id, id)).get();
    if (!row) throw notFound("backend");
    return toWire(row);
  }

  private checkAgent(tx: Tx, agentId: string, type: string): void {
    if (isAgentless(type)) return;
    if (!tx.select({ id: agents.id }).from(agents).limit(1).get()) throw badRequest(ServerMessage.createAgentBeforeBackend);
    const agent = tx.select().from(agents).where(eq(agents.id, agentId)).get();
    if (!agent) throw badRequest(ErrKey.invalidAgentId);
    if (!agent.version) throw badRequest(ErrKey.agentNeverConnected);
    const caps = agent.capabilities as AgentCapabilities;
    if (type === "ipset") {
      if (!caps.ipset?.command_available) throw badRequest(ErrKey.ipsetNoCommand);
      if (!caps.ipset.sudo_enabled) throw badRequest(ErrKey.ipsetNoSudo);
    }
  }

  private checkName(tx: Tx, name: string, id?: string): void {
    const clash = tx.select({ id: backends.id }).from(backends).where(eq(backends.name, name)).get();
    if (clash && clash.id !== id) throw conflict("A backend with that name already exists");
  }

  /** Creates a backend; returns its id. */
  create(input: BackendWrite, actor: Actor): string {
    const type = backendTypeOf(input.Config);
    const id = newId();
    this.db.transaction((tx) => {
      this.checkAgent(tx, input.AgentID, type);
      this.checkName(tx, input.Name, undefined);
      const now = this.clock.now();
      const agentId = isAgentless(type) ? null : input.AgentID;
      tx.insert(backends).values({ id, name: input.Name, agentId, type, config: input.Config, createdAt: now, updatedAt: now, updatedBy: actor.adminName }).run();
      writeAudit(tx, { action: AuditAction.backendCreated, at: now, adminName: actor.adminName, ipAddress: actor.ip, description: input.Name });
    });
    return id;
  }

  /** Updates a backend; the type is locked ("Cannot change backend type"). */
  update(id: string, input: BackendWrite, actor: Actor): void {
    const type = backendTypeOf(input.Config);
    let affected: string[] = [];
    const ops = this.db.transaction((tx) => {
      const row = tx.select().from(backends).where(eq(backends.id, id)).get();
      if (!row) throw notFound("backend");
      if (row.type !== type) throw badRequest(ServerMessage.cannotChangeBackendType);
      this.checkAgent(tx, input.AgentID, type);
      this.checkName(tx, input.Name, id);
      const now = this.clock.now();
      const agentId = isAgentless(type) ? null : input.AgentID;
      const moved = row.agentId !== agentId || JSON.stringify(row.config) !== JSON.stringify(input.Config);
      const aclIds = tx.select({ id: acls.id }).from(acls).where(eq(acls.backendId, id)).all().map((r) => r.id);
      const revokeOps = moved ? this.engine.revokeForAcls(tx, aclIds) : new Map();
      tx.update(backends).set({ name: input.Name, agentId, config: input.Config, updatedAt: now, updatedBy: actor.adminName }).where(eq(backends.id, id)).run();
      writeAudit(tx, { action: AuditAction.backendUpdated, at: now, adminName: actor.adminName, ipAddress: actor.ip, description: input.Name });
      affected = moved ? [row.agentId, agentId].filter((a): a is string => !!a) : [];
      return revokeOps;
    });
    this.engine.dispatch(ops);
    for (const agentId of new Set(affected)) this.resync(agentId);
  }

  /** Deletes a backend; 409 while ACLs use it. */
  delete(id: string, actor: Actor): void {
    this.db.transaction((tx) => {
      const row = tx.select().from(backends).where(eq(backends.id, id)).get();
      if (!row) throw notFound("backend");
      if (tx.select({ id: acls.id }).from(acls).where(eq(acls.backendId, id)).get()) throw conflict("Delete the ACLs of this backend before deleting it");
      tx.delete(backends).where(eq(backends.id, id)).run();
      writeAudit(tx, { action: AuditAction.backendDeleted, at: this.clock.now(), adminName: actor.adminName, ipAddress: actor.ip, description: row.name });
    });
  }
}

export { AppError };

/**
 * Agents (admin-console §3 "Agent", §7 /admin/agents; design.md "Agent protocol" enrolment).
 * An agent is created with a random install token; the agent enrols once with that token and its
 * own public keys, then authenticates every connection with its private key.
 */
import { timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import { Errors } from "@postern/shared";
import type { Agent, AgentCapabilities, AgentCreated, EnrolRequest } from "@postern/shared";
import type { Db } from "../db/index.ts";
import { agents, backends } from "../db/schema.ts";
import type { Clock } from "../clock.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import { newId, randomToken } from "./auth/tokens.ts";

/** Who does an admin action (for the audit log). */
export interface Actor {
  adminName: string;
  ip: string;
}

/** The install command shown after creating an agent (admin-console §2 "Agents"). */
export function installCommand(serverUrl: string, token: string): string {
  return `postern-agent enrol --server ${serverUrl} --token ${token} --config /etc/postern/agent.json && postern-agent run --config /etc/postern/agent.json`;
}

type AgentRow = typeof agents.$inferSelect;

/** Agents: CRUD and enrolment. `isConnected` comes from the agent hub. */
export class AgentService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly isConnected: (id: string) => boolean;
  private readonly disconnect: (id: string) => void;
  /** `isConnected` and `disconnect` come from the agent hub (no-ops where none runs, as in the CLI). */
  constructor(db: Db, clock: Clock, hub: { isConnected: (id: string) => boolean; disconnect: (id: string) => void }) {
    this.db = db;
    this.clock = clock;
    this.isConnected = (id) => hub.isConnected(id);
    this.disconnect = (id) => hub.disconnect(id);
  }

  private toWire(row: AgentRow): Agent {
    const attached = this.db
      .select({ ID: backends.id, Name: backends.name })
      .from(backends)
      .where(eq(backends.agentId, row.id))
      .all();
    return {
      ID: row.id,
      Name: row.name,
      Token: row.tokenUsedAt === null ? row.token : "",
      LastSeen: iso(row.lastSeen),
      Version: row.version,
      ExternalIP: row.externalIp,
      Capabilities: row.capabilities as AgentCapabilities,
      Backends: attached,
      Connected: this.isConnected(row.id),
    };
  }

  /** Lists every agent by name. */
  list(): Agent[] {
    return this.db
      .select()
      .from(agents)
      .orderBy(agents.name)
      .all()
      .map((r) => this.toWire(r));
  }

  /** Reads one agent; 404 when unknown. */
  get(id: string): Agent {
    const row = this.db.select().from(agents).where(eq(agents.id, id)).get();
    if (!row) throw new AppError(Errors.notFound, "agent");
    return this.toWire(row);
  }

  /** Creates an agent with a fresh install token. 409 when the name exists. */
  create(name: string, serverUrl: string, actor: Actor): AgentCreated {
    const id = newId();
    const token = randomToken(24);
    this.db.transaction((tx) => {
      if (tx.select({ id: agents.id }).from(agents).where(eq(agents.name, name)).get())
        throw new AppError(Errors.agentNameExists);
      tx.insert(agents).values({ id, name, token }).run();
      writeAudit(tx, {
        action: AuditAction.agentCreated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        agentName: name,
      });
    });
    return { ID: id, Name: name, Token: token, InstallCommand: installCommand(serverUrl, token) };
  }

  /** Renames an agent. 404 unknown, 409 name taken. */
  rename(id: string, name: string, actor: Actor): Agent {
    this.db.transaction((tx) => {
      const row = tx.select().from(agents).where(eq(agents.id, id)).get();
      if (!row) throw new AppError(Errors.notFound, "agent");
      const clash = tx.select({ id: agents.id }).from(agents).where(eq(agents.name, name)).get();
      if (clash && clash.id !== id) throw new AppError(Errors.agentNameExists);
      tx.update(agents).set({ name }).where(eq(agents.id, id)).run();
      writeAudit(tx, {
        action: AuditAction.agentUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        agentName: name,
        description: `renamed from ${row.name}`,
      });
    });
    return this.get(id);
  }

  /** Deletes an agent and closes its live connection; refused (409) while backends are attached. */
  delete(id: string, actor: Actor): void {
    this.db.transaction((tx) => {
      const row = tx.select().from(agents).where(eq(agents.id, id)).get();
      if (!row) throw new AppError(Errors.notFound, "agent");
      if (tx.select({ id: backends.id }).from(backends).where(eq(backends.agentId, id)).get())
        throw new AppError(Errors.detachBackendsFirst);
      tx.delete(agents).where(eq(agents.id, id)).run();
      writeAudit(tx, {
        action: AuditAction.agentDeleted,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        agentName: row.name,
      });
    });
    this.disconnect(id);
  }

  /**
   * Enrols an agent: the token must match an agent that has not enrolled yet (compared in constant
   * time). Stores the agent's public keys and capabilities; the token is spent. 401 otherwise.
   */
  enrol(req: EnrolRequest, ip: string): { AgentID: string; Name: string } {
    return this.db.transaction((tx) => {
      const candidates = tx
        .select()
        .from(agents)
        .all()
        .filter((a) => a.tokenUsedAt === null);
      const given = Buffer.from(req.Token);
      const row = candidates.find((a) => {
        const t = Buffer.from(a.token);
        return t.length === given.length && timingSafeEqual(t, given);
      });
      if (!row) throw new AppError(Errors.unauthenticated, "invalid or used agent token");
      const now = this.clock.now();
      tx.update(agents)
        .set({
          tokenUsedAt: now,
          signingPublicKey: req.SigningPublicKey,
          boxPublicKey: req.BoxPublicKey,
          version: req.Version,
          capabilities: req.Capabilities,
          externalIp: ip,
        })
        .where(eq(agents.id, row.id))
        .run();
      writeAudit(tx, { action: AuditAction.agentEnrolled, at: now, agentName: row.name, ipAddress: ip });
      return { AgentID: row.id, Name: row.name };
    });
  }
}

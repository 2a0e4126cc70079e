/**
 * Agents (docs/reference.md admin-console §3 "Agent", §7 /admin/agents; docs/reference.md design "Agent protocol" enrolment).
 * An agent is created with a random install token; the agent enrols once with that token and its
 * own public keys, then authenticates every connection with its private key. Only the SHA-256 of a
 * token is stored; it expires (AgentServiceOptions.tokenLifetimeMs, default 24 hours) and is cleared
 * when spent. With an API key of scope `agent.register` an agent is created and enrolled in one step
 * (`register`). Every path that creates an agent checks the licence's MaxMachines in its transaction.
 */
import { Errors } from "@postern/shared";
import type {
  Agent,
  AgentCapabilities,
  AgentCreated,
  AgentRegisterRequest,
  EnrolRequest,
  EnrolResponse,
} from "@postern/shared";
import type { Db, Tx } from "../db/index.ts";
import * as repo from "../repositories/agents.ts";
import type { AgentRow, NewAgentRow } from "../repositories/agents.ts";
import type { Clock } from "../clock.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import { newId, randomToken, sha256 } from "./auth/tokens.ts";
import { requireMachineSlot } from "./licensing/gates.ts";
import { installCommand } from "./agent-install.ts";
import type { TlsPin } from "./agent-install.ts";

/** Default lifetime of an agent install token: 24 hours, in milliseconds. */
export const DEFAULT_AGENT_TOKEN_LIFETIME_MS = 24 * 3_600_000;

/** Options of the agent service. */
export interface AgentServiceOptions {
  /**
   * The server's agent signing public key (SPKI DER, base64) answered to enrolling agents as
   * `ServerKey`. Without it (the CLI, which never enrols) enrolment answers 500.
   */
  serverKey?: string;
  /** How long an install token stays valid after creation, in milliseconds (default 24 hours). */
  tokenLifetimeMs?: number;
}

/** Who does an admin action (for the audit log). */
export interface Actor {
  adminName: string;
  ip: string;
}

/** Agents: CRUD and enrolment. `isConnected` comes from the agent hub. */
export class AgentService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly isConnected: (id: string) => boolean;
  private readonly disconnect: (id: string) => void | Promise<void>;
  private readonly renamed: (id: string, name: string) => void | Promise<void>;
  private readonly serverKey: string;
  private readonly tokenLifetimeMs: number;
  /**
   * `isConnected`, `disconnect` (close the agent's live connection, wherever held) and `renamed` (its
   * connection's new name) come from the agent hub, or the replicas' channel (no-ops where none runs, as
   * in the CLI).
   */
  constructor(
    db: Db,
    clock: Clock,
    hub: {
      isConnected: (id: string) => boolean;
      disconnect: (id: string) => void | Promise<void>;
      renamed?: (id: string, name: string) => void | Promise<void>;
    },
    options: AgentServiceOptions = {},
  ) {
    this.db = db;
    this.clock = clock;
    this.isConnected = (id) => hub.isConnected(id);
    this.disconnect = (id) => hub.disconnect(id);
    this.renamed = (id, name) => hub.renamed?.(id, name);
    this.serverKey = options.serverKey ?? "";
    this.tokenLifetimeMs = options.tokenLifetimeMs ?? DEFAULT_AGENT_TOKEN_LIFETIME_MS;
  }

  private async toWire(row: AgentRow): Promise<Agent> {
    const attached = await repo.backendsOfAgent(this.db, row.id);
    return {
      ID: row.id,
      Name: row.name,
      Token: "", // only its hash is stored: the token is answered once, at creation
      LastSeen: iso(row.lastSeen),
      Version: row.version,
      ExternalIP: row.externalIp,
      Capabilities: row.capabilities as AgentCapabilities,
      Backends: attached,
      Connected: this.isConnected(row.id),
    };
  }

  /** Lists every agent by name. */
  async list(): Promise<Agent[]> {
    return Promise.all((await repo.listAgents(this.db)).map((r) => this.toWire(r)));
  }

  /** Reads one agent; 404 when unknown. */
  async get(id: string): Promise<Agent> {
    const row = await repo.getAgent(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "agent");
    return await this.toWire(row);
  }

  /**
   * Inserts a new agent row in `tx` after the checks every creating path shares: the name is free
   * (409 "An agent with that name already exists") and the licence covers one more agent (403
   * err.machineLimitReached, see requireMachineSlot).
   */
  private async insertAgent(tx: Tx, row: NewAgentRow): Promise<void> {
    if ((await repo.agentIdByName(tx, row.name)) !== undefined) throw new AppError(Errors.agentNameExists);
    await requireMachineSlot(tx);
    await repo.insertAgent(tx, row);
  }

  /**
   * Creates an agent with a fresh install token (answered once; only its SHA-256 is stored; it
   * expires after the token lifetime). 409 when the name exists, 403 err.machineLimitReached beyond
   * the licence's MaxMachines. The install command is the one-liner (agent-install.ts), pinning
   * `pin` when the server's certificate is self-signed.
   */
  async create(name: string, serverUrl: string, actor: Actor, pin?: TlsPin): Promise<AgentCreated> {
    const id = newId();
    const token = randomToken(24);
    // Before anything is stored: a public URL the script cannot carry fails the request, nothing made.
    const command = installCommand(serverUrl, token, pin);
    await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      await this.insertAgent(tx, { id, name, tokenHash: sha256(token), tokenExpiresAt: now + this.tokenLifetimeMs });
      await writeAudit(tx, {
        action: AuditAction.agentCreated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        agentName: name,
      });
    });
    return { ID: id, Name: name, Token: token, InstallCommand: command };
  }

  /** Renames an agent. 404 unknown, 409 name taken. */
  async rename(id: string, name: string, actor: Actor): Promise<Agent> {
    await this.db.transaction(async (tx) => {
      const row = await repo.getAgent(tx, id);
      if (!row) throw new AppError(Errors.notFound, "agent");
      const clash = await repo.agentIdByName(tx, name);
      if (clash !== undefined && clash !== id) throw new AppError(Errors.agentNameExists);
      await repo.updateAgent(tx, id, { name });
      await writeAudit(tx, {
        action: AuditAction.agentUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        agentName: name,
        description: `renamed from ${row.name}`,
      });
    });
    await this.renamed(id, name);
    return await this.get(id);
  }

  /** Deletes an agent and closes its live connection; refused (409) while backends are attached. */
  async delete(id: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await repo.getAgent(tx, id);
      if (!row) throw new AppError(Errors.notFound, "agent");
      if ((await repo.backendsOfAgent(tx, id)).length > 0) throw new AppError(Errors.detachBackendsFirst);
      await repo.deleteAgent(tx, id);
      await writeAudit(tx, {
        action: AuditAction.agentDeleted,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        agentName: row.name,
      });
    });
    await this.disconnect(id);
  }

  /** The enrolment answer: the agent's id and name and the key it pins. */
  private answer(id: string, name: string): EnrolResponse {
    if (!this.serverKey) throw new AppError(Errors.internalServerError, "no agent signing key");
    return { AgentID: id, Name: name, ServerKey: this.serverKey };
  }

  /**
   * Enrols an agent: the SHA-256 of the token must match an agent that has not enrolled, and the
   * token must not have expired. Stores the agent's public keys and capabilities and clears the
   * token (spent). 401 Unauthorised otherwise (Extra says whether it was unknown/used or expired).
   * Answers the agent's id and name and the server's agent signing key.
   */
  async enrol(req: EnrolRequest, ip: string): Promise<EnrolResponse> {
    const hash = sha256(req.Token);
    return await this.db.transaction(async (tx) => {
      const row = await repo.agentByTokenHash(tx, hash);
      if (!row || row.tokenUsedAt !== null) throw new AppError(Errors.unauthenticated, "invalid or used agent token");
      const now = this.clock.now();
      if (row.tokenExpiresAt === null || row.tokenExpiresAt <= now)
        throw new AppError(Errors.unauthenticated, "the agent token has expired: create a new agent");
      const answer = this.answer(row.id, row.name);
      await repo.updateAgent(tx, row.id, {
        tokenHash: null,
        tokenExpiresAt: null,
        tokenUsedAt: now,
        signingPublicKey: req.SigningPublicKey,
        boxPublicKey: req.BoxPublicKey,
        version: req.Version,
        capabilities: req.Capabilities,
        externalIp: ip,
      });
      await writeAudit(tx, { action: AuditAction.agentEnrolled, at: now, agentName: row.name, ipAddress: ip });
      return answer;
    });
  }

  /**
   * Creates and enrols an agent in one step for an API key of scope `agent.register` (the caller has
   * authenticated the key): the same checks as `create` (409 name taken, 403 err.machineLimitReached),
   * no token at all. Audited as created and enrolled, naming the key.
   */
  async register(req: AgentRegisterRequest, ip: string, keyName: string): Promise<EnrolResponse> {
    const id = newId();
    return await this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const answer = this.answer(id, req.Name);
      await this.insertAgent(tx, {
        id,
        name: req.Name,
        tokenUsedAt: now,
        signingPublicKey: req.SigningPublicKey,
        boxPublicKey: req.BoxPublicKey,
        version: req.Version,
        capabilities: req.Capabilities,
        externalIp: ip,
      });
      const description = `by API key "${keyName}" (scope agent.register)`;
      await writeAudit(tx, {
        action: AuditAction.agentCreated,
        at: now,
        ipAddress: ip,
        agentName: req.Name,
        description,
      });
      await writeAudit(tx, {
        action: AuditAction.agentEnrolled,
        at: now,
        ipAddress: ip,
        agentName: req.Name,
        description,
      });
      return answer;
    });
  }
}

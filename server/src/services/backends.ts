/**
 * Backends (docs/reference.md admin-console §3 "BackendConfig", §5 "Backend", §7 /admin/backends; docs/reference.md design "Agent
 * protocol" sealed secrets).
 *
 * Rules, in the order they are checked (the first broken one answers):
 * 1. the §5 config rules of `backendConfigProblem` (400 with the spec's key or message);
 * 2. for every type except allowlist, the agent gates of `agentGateProblem` (400);
 * 3. unique names (409 "A backend with that name already exists");
 * 4. secrets (`BackendSecretFields`): required on create; on update "" keeps the stored value, except
 *    that a new agent needs every secret again (they were sealed to the old one: 400 "Changing the
 *    agent requires re-entering the backend's secrets") and a new Url/Hostname needs the credentials
 *    again (400 "Changing the URI or hostname requires re-entering credentials"). Secrets are sealed
 *    to the agent's box key into `sealed_secrets` and stored as "" in `config`; reads show "" and
 *    list the stored ones in `SecretsSet`.
 * The type cannot change on edit; a backend in use by ACLs cannot be deleted. Changing where a
 * backend enforces (agent or config) ends the grants on its ACLs, and the agents resync.
 */
import semver from "semver";
import type { z } from "zod";
import {
  BackendConfigSchema,
  BackendHostField,
  BackendSecretFields,
  NONE_ID,
  agentCapableOf,
  backendConfigProblem,
  backendDescriptor,
  backendTypeOf,
  isAgentless,
  Errors,
} from "@postern/shared";
import type {
  AclConfig,
  AgentCapabilities,
  Backend,
  BackendConfig,
  BackendType,
  BackendWrite,
  ConfigProblem,
} from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { iso } from "../clock.ts";
import { AppError, validationError } from "../errors.ts";
import * as repo from "../repositories/backends.ts";
import type { AgentGateRow, BackendRow } from "../repositories/backends.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { newId } from "./auth/tokens.ts";
import { aclEnvKey, backendFieldsOf, isBoxPublicKey, sealTo } from "./secrets/sealed.ts";
import type { SealedSecrets } from "./secrets/sealed.ts";
import { Service } from "./service.ts";

/** Throws the problem as its AppError. */
export function fail(problem: ConfigProblem): never {
  throw new AppError(problem.error, problem.Extra);
}

/**
 * Parses `value` with `schema` (services may be called without the route's parseBody); a failure
 * answers like parseBody (`validationError`), the field named under `prefix`.
 */
export function parseOrFail<S extends z.ZodType>(schema: S, value: unknown, prefix: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw validationError(r.error.issues[0], prefix);
}

/** Parses an agent version leniently ("v1.6", "1.6.0"); null when it is not a version. */
function versionOf(version: string): string | null {
  return semver.valid(version) ?? semver.valid(semver.coerce(version));
}

/**
 * The agent gate of docs/reference.md admin-console §5 for a backend of `type` on `agent`, or null when the agent may
 * carry it. `all` is every agent (for err.backendTypeNoAgents). In order:
 * - unknown agent (or the all-zero id): err.invalidAgentId;
 * - no version (never connected): err.agentNeverConnected;
 * - the type's own capability key from its descriptor's `capabilityProblem` (ipset without the
 *   command or sudo: err.ipsetNoCommand / err.ipsetNoSudo);
 * - lacking the capability of the type (script enabled; haproxy for haproxy and knocproxy; nft for
 *   nftables): err.backendTypeNoAgents when no agent at all has it, else err.agentIncapable;
 * - version below the descriptor's `minAgentVersion` (1.6.0 script and application types, 1.9.0 sophos) or
 *   not a version: err.agentBackendTypeNotSupported, Extra naming the version needed.
 */
export function agentGateProblem(
  agent: AgentGateRow | undefined,
  type: BackendType,
  all: readonly AgentGateRow[],
): ConfigProblem | null {
  if (!agent) return { error: Errors.invalidAgentId };
  if (!agent.version) return { error: Errors.agentNeverConnected };
  const caps = agent.capabilities as AgentCapabilities;
  const descriptor = backendDescriptor(type);
  const problem = descriptor.capabilityProblem(caps);
  if (problem !== null && problem !== Errors.agentIncapable) return { error: problem };
  if (problem !== null) {
    const someone = all.some((a) => a.version !== "" && agentCapableOf(a.capabilities as AgentCapabilities, type));
    return { error: someone ? Errors.agentIncapable : Errors.backendTypeNoAgents, Extra: type };
  }
  const min = descriptor.minAgentVersion;
  if (min) {
    const v = versionOf(agent.version);
    if (!v || semver.lt(v, min))
      return { error: Errors.agentBackendTypeNotSupported, Extra: `${type} needs agent ${min} or later` };
  }
  return null;
}

/** The type's fields of a config, as a plain record. */
function fieldsOf(config: BackendConfig | Record<string, unknown>, type: string): Record<string, unknown> {
  return ((config as Record<string, unknown>)[type] ?? {}) as Record<string, unknown>;
}

/** The config with every secret field of its type blanked (what is stored and read). */
function withoutSecrets(config: BackendConfig | Record<string, unknown>, type: BackendType): Record<string, unknown> {
  const own = { ...fieldsOf(config, type) };
  for (const f of BackendSecretFields[type] ?? []) own[f] = "";
  return { [type]: own };
}

function toWire(row: BackendRow): Backend {
  const type = row.type as BackendType;
  const sealed = row.sealedSecrets;
  return {
    ID: row.id,
    Name: row.name,
    AgentID: row.agentId ?? NONE_ID,
    Config: withoutSecrets(row.config, type) as Backend["Config"],
    SecretsSet: (BackendSecretFields[type] ?? []).filter((f) => typeof sealed[f] === "string"),
    LastModifiedAt: iso(row.updatedAt) ?? "",
  };
}

/** Backends: CRUD with the §5 rules and sealed secrets. `resync` asks the hub to resend an agent's desired state. */
export class BackendService extends Service {
  /** Lists backends by name; secret fields read "" (see `SecretsSet`). */
  async list(): Promise<Backend[]> {
    return (await repo.listBackends(this.db)).map(toWire);
  }

  /** Reads one backend; 404 when unknown. Secret fields read "". */
  async get(id: string): Promise<Backend> {
    const row = await repo.getBackend(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "backend");
    return toWire(row);
  }

  /** Checks the agent of a backend of `type` (`agentGateProblem`); returns it, or null for agentless types. */
  private async checkAgent(tx: Tx, agentId: string, type: BackendType): Promise<AgentGateRow | null> {
    if (isAgentless(type)) return null;
    if (!(await repo.anyAgent(tx))) throw new AppError(Errors.createAgentBeforeBackend);
    const agent = agentId === NONE_ID ? undefined : await repo.getAgentGate(tx, agentId);
    const problem = agentGateProblem(agent, type, agent ? await repo.listAgentGates(tx) : []);
    if (problem) fail(problem);
    return agent!;
  }

  private async checkName(tx: Tx, name: string, id?: string): Promise<void> {
    if (await repo.backendNameTaken(tx, name, id)) throw new AppError(Errors.backendNameExists);
  }

  /**
   * Works out the sealed secrets of a write. `stored` is the current row on update. Throws 400 for a
   * missing secret (create), or for one not re-entered after an agent or host change (update).
   */
  private async sealSecrets(
    type: BackendType,
    config: BackendConfig,
    agent: AgentGateRow | null,
    stored: BackendRow | undefined,
  ): Promise<SealedSecrets> {
    const fields = BackendSecretFields[type];
    const own = fieldsOf(config, type);
    const given = fields.filter((f) => own[f] !== "" && own[f] !== undefined);
    const storedFields = stored ? backendFieldsOf(stored.sealedSecrets) : {};
    const agentChanged = stored !== undefined && stored.agentId !== (agent?.id ?? null);
    const hostField = BackendHostField[type];
    const hostChanged =
      stored !== undefined && hostField !== undefined && fieldsOf(stored.config, type)[hostField] !== own[hostField];
    const paths = (fs: string[]) => fs.map((f) => `Config.${type}.${f}`).join(", ");
    const notGiven = fields.filter((f) => !given.includes(f));
    if (stored && agentChanged && notGiven.length > 0)
      throw new AppError(Errors.reenterSecretsForNewAgent, paths(notGiven));
    if (stored && hostChanged && notGiven.length > 0) throw new AppError(Errors.reenterCredentials, paths(notGiven));
    const missing = notGiven.filter((f) => storedFields[f] === undefined);
    if (missing.length > 0) {
      if (type === "fortios") throw new AppError(Errors.invalidFortiosConfig, `${paths(missing)}: required`);
      throw new AppError(Errors.badRequest, `${paths(missing)}: required`);
    }
    const sealed: SealedSecrets = agentChanged ? {} : { ...storedFields };
    if (given.length > 0) {
      const key = this.boxKeyOf(agent);
      for (const f of given) sealed[f] = await sealTo(key, String(own[f]));
    }
    return sealed;
  }

  /** The agent's box key; 400 err.agentIncapable when it has none to seal to. */
  private boxKeyOf(agent: AgentGateRow | null): string {
    if (!agent || !isBoxPublicKey(agent.boxPublicKey))
      throw new AppError(Errors.agentIncapable, "the agent has no key to seal secrets to; enrol it again");
    return agent.boxPublicKey;
  }

  /** Validates a write: the config shape and the §5 rules of `backendConfigProblem`. */
  private validate(input: BackendWrite): { type: BackendType; config: BackendConfig } {
    const config = parseOrFail(BackendConfigSchema, input.Config, "Config");
    const problem = backendConfigProblem(config);
    if (problem) fail(problem);
    return { type: backendTypeOf(config), config };
  }

  /** Creates a backend; returns its id. Errors as in the module comment. */
  async create(input: BackendWrite, actor: Actor): Promise<string> {
    const { type, config } = this.validate(input);
    const id = newId();
    await this.db.transaction(async (tx) => {
      const agent = await this.checkAgent(tx, input.AgentID, type);
      await this.checkName(tx, input.Name, undefined);
      const sealedSecrets = await this.sealSecrets(type, config, agent, undefined);
      const now = this.clock.now();
      await repo.insertBackend(tx, {
        id,
        name: input.Name,
        agentId: agent?.id ?? null,
        type,
        config: withoutSecrets(config, type),
        sealedSecrets,
        createdAt: now,
        updatedAt: now,
        updatedBy: actor.adminName,
      });
      await writeAudit(tx, {
        action: AuditAction.backendCreated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: input.Name,
      });
    });
    return id;
  }

  /**
   * Updates a backend; the type is locked ("Cannot change backend type"). A script backend moved to
   * another agent loses its ACLs' sealed variables (they read `Encrypted: false` and must be entered
   * again); a variable newly declared Sensitive gets its plain ACL values sealed.
   */
  async update(id: string, input: BackendWrite, actor: Actor): Promise<void> {
    const { type, config } = this.validate(input);
    let affected: string[] = [];
    let secretsChanged = false;
    const ops = await this.db.transaction(async (tx) => {
      const row = await repo.getBackend(tx, id);
      if (!row) throw new AppError(Errors.notFound, "backend");
      if (row.type !== type) throw new AppError(Errors.cannotChangeBackendType);
      const agent = await this.checkAgent(tx, input.AgentID, type);
      await this.checkName(tx, input.Name, id);
      const agentId = agent?.id ?? null;
      const agentChanged = row.agentId !== agentId;
      const sealed = await this.sealSecrets(type, config, agent, row);
      const stored = withoutSecrets(config, type);
      const acls = await repo.aclsOfBackend(tx, id);
      const entered = BackendSecretFields[type].filter((f) => (fieldsOf(config, type)[f] ?? "") !== "");
      const notes = entered.length > 0 ? [`secrets entered: ${entered.join(", ")}`] : [];
      if (type === "script") {
        const cleared = await this.carryAclVariables(tx, config, agent, row, acls, sealed, agentChanged);
        if (cleared) notes.push(cleared);
      }
      const note = notes.join("; ");
      const now = this.clock.now();
      const moved = agentChanged || JSON.stringify(row.config) !== JSON.stringify(stored);
      secretsChanged = JSON.stringify(row.sealedSecrets) !== JSON.stringify(sealed);
      const revokeOps = moved
        ? await this.engine.revokeForAcls(
            tx,
            acls.map((a) => a.id),
          )
        : new Map();
      await repo.updateBackend(tx, id, {
        name: input.Name,
        agentId,
        config: stored,
        sealedSecrets: sealed,
        updatedAt: now,
        updatedBy: actor.adminName,
      });
      await writeAudit(tx, {
        action: AuditAction.backendUpdated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: note ? `${input.Name} (${note})` : input.Name,
      });
      affected = moved || secretsChanged ? [row.agentId, agentId].filter((a): a is string => !!a) : [];
      return revokeOps;
    });
    this.engine.dispatch(ops);
    for (const agentId of new Set(affected)) this.resync(agentId);
  }

  /**
   * The ACL variables of a script backend across an update (writes into `sealed` and the ACL
   * configs): kept on the same agent, dropped on a new agent (the ACL then reads them as not
   * encrypted, with no value), sealed when their variable became Sensitive. Returns an audit note.
   */
  private async carryAclVariables(
    tx: Tx,
    config: BackendConfig,
    agent: AgentGateRow | null,
    row: BackendRow,
    acls: { id: string; config: Record<string, unknown> }[],
    sealed: SealedSecrets,
    agentChanged: boolean,
  ): Promise<string> {
    const sensitive = new Set((config.script?.EnvVars ?? []).filter((v) => v.Sensitive).map((v) => v.Name));
    let cleared = 0;
    for (const acl of acls) {
      const script = acl.config["script"] as AclConfig["script"] | undefined;
      if (!script) continue;
      const env = { ...script.EnvVars };
      let changed = false;
      for (const name of Object.keys(env)) {
        const v = env[name]!;
        const key = aclEnvKey(acl.id, name);
        if (v.Encrypted) {
          if (!agentChanged && row.sealedSecrets[key] !== undefined) sealed[key] = row.sealedSecrets[key];
          else {
            env[name] = { Value: "", Encrypted: false };
            changed = true;
            cleared++;
          }
        } else if (sensitive.has(name) && v.Value !== "") {
          sealed[key] = await sealTo(this.boxKeyOf(agent), v.Value);
          env[name] = { Value: "", Encrypted: true };
          changed = true;
        }
      }
      if (changed) await repo.setAclConfig(tx, acl.id, { ...acl.config, script: { ...script, EnvVars: env } });
    }
    return cleared > 0 ? `${cleared} sensitive ACL variables cleared: sealed to the previous agent` : "";
  }

  /** Deletes a backend; 409 while ACLs use it. */
  async delete(id: string, actor: Actor): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await repo.getBackend(tx, id);
      if (!row) throw new AppError(Errors.notFound, "backend");
      if ((await repo.aclsOfBackend(tx, id)).length > 0) throw new AppError(Errors.backendInUse);
      await repo.deleteBackend(tx, id);
      await writeAudit(tx, {
        action: AuditAction.backendDeleted,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: row.name,
      });
    });
  }
}

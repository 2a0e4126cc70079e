/**
 * ACLs (docs/reference.md admin-console §3 "Knoc (ACL)", §5 "ACL", §7 /admin/acls). The ACL's Config must carry the
 * fields of its backend's type (`aclConfigProblem`: haproxy numeric ID, knocproxy/script names,
 * ipset set names, the vendor fields); only that type's key is kept. Script variable values that are
 * sensitive (declared Sensitive by the backend, or sent with `Encrypted: true`) are sealed to the
 * backend's agent into the backend's `sealed_secrets` and read back as `{Value: "", Encrypted: true}`;
 * a blank Value keeps the sealed one. Changing an ACL's backend, Config, IpExclusions, GrantType,
 * CGNATOpen, or shortening its MaximumGrantDuration ends its grants (they were decided under the old
 * rules) and resyncs the agents; deleting an ACL revokes its grants first.
 *
 * Creating or updating an ACL needs a valid licence (docs/reference.md admin-console §1 "A license is required to
 * create or update Knocs"), on this path as on the Knoc wizard's. The Token of an allowlist ACL (the
 * secret part of its public URL) is always minted here (`newAllowlistToken`, 192 random bits): a
 * Token sent by the client is ignored, and an update keeps the stored one.
 */
import {
  AclConfigSchema,
  APPROVAL_TIMEOUT_DEFAULT_SECONDS,
  NONE_ID,
  aclConfigFor,
  aclConfigProblem,
  Errors,
} from "@postern/shared";
import { getGroup } from "../repositories/groups.ts";
import type { Acl, AclConfig, AclWrite, BackendType } from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { iso } from "../clock.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/acls.ts";
import type { AclRow } from "../repositories/acls.ts";
import * as backendRepo from "../repositories/backends.ts";
import type { BackendRow } from "../repositories/backends.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import { newId, randomToken } from "./auth/tokens.ts";
import { fail, parseOrFail } from "./backends.ts";
import { aclEnvKey, aclKeysOf, isBoxPublicKey, sealTo } from "./secrets/sealed.ts";
import type { SealedSecrets } from "./secrets/sealed.ts";
import { Service } from "./service.ts";
import { requireLicence } from "./licensing/gates.ts";

/** Random bytes of an allowlist Token (24 = 192 bits, 32 base64url characters). */
export const ALLOWLIST_TOKEN_BYTES = 24;

/** A new allowlist Token: ALLOWLIST_TOKEN_BYTES random bytes, base64url. */
export function newAllowlistToken(): string {
  return randomToken(ALLOWLIST_TOKEN_BYTES);
}

/**
 * The Config with the allowlist Token the server decides: `keep` (the stored Token of the same ACL)
 * when it is not empty, else a new one. Configs of other types are returned as they are.
 */
function withAllowlistToken(config: AclConfig, keep: string): AclConfig {
  if (!config.allowlist) return config;
  return { ...config, allowlist: { ...config.allowlist, Token: keep !== "" ? keep : newAllowlistToken() } };
}

/**
 * Checks the Config of an ACL against its backend type (docs/reference.md admin-console §5) and returns what is kept:
 * UriToken and the type's fields with defaults. Throws 400 with the spec's key (see
 * `aclConfigProblem`). Script variable values are checked by the service, which knows what is sealed.
 */
export function validateAclConfig(type: string, config: AclWrite["Config"]): AclConfig {
  const parsed = parseOrFail(AclConfigSchema, config, "Config");
  const problem = aclConfigProblem(type as BackendType, parsed);
  if (problem) fail(problem);
  return aclConfigFor(type as BackendType, parsed);
}

/** The ACL's Config as read: sealed variables show `{Value: "", Encrypted: true}` while their sealed value exists. */
function readConfig(aclId: string, config: Record<string, unknown>, sealed: SealedSecrets): AclConfig {
  const script = config["script"] as AclConfig["script"] | undefined;
  if (!script) return config as AclConfig;
  const env = Object.fromEntries(
    Object.entries(script.EnvVars).map(([name, v]) => {
      const isSealed = v.Encrypted && sealed[aclEnvKey(aclId, name)] !== undefined;
      return [
        name,
        isSealed ? { Value: "", Encrypted: true } : { Value: v.Encrypted ? "" : v.Value, Encrypted: false },
      ];
    }),
  );
  return { ...(config as AclConfig), script: { ...script, EnvVars: env } };
}

/**
 * The approval columns of an ACL write (docs/decisions.md "Approval requests"): the fields given, else the
 * stored ones of `row` (an update), else the defaults (off, no groups, APPROVAL_TIMEOUT_DEFAULT_SECONDS).
 * 400 err.unknownApproverGroup (Extra: the id) for a group that does not exist.
 */
async function approvalColumns(
  tx: Tx,
  input: AclWrite,
  row?: AclRow,
): Promise<Pick<AclRow, "requiresApproval" | "approverGroupIds" | "approvalTimeoutSeconds">> {
  const groupIds = [...new Set(input.ApproverGroupIDs ?? row?.approverGroupIds ?? [])];
  if (input.ApproverGroupIDs)
    for (const g of groupIds) if (!(await getGroup(tx, g))) throw new AppError(Errors.unknownApproverGroup, g);
  return {
    requiresApproval: input.RequiresApproval ?? row?.requiresApproval ?? false,
    approverGroupIds: groupIds,
    approvalTimeoutSeconds: input.ApprovalTimeout ?? row?.approvalTimeoutSeconds ?? APPROVAL_TIMEOUT_DEFAULT_SECONDS,
  };
}

/** ACLs: CRUD with the §5 rules. */
export class AclService extends Service {
  private async toWire(row: AclRow): Promise<Acl> {
    const backend = await backendRepo.getBackend(this.db, row.backendId);
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
      Children: await repo.childAclIds(this.db, row.id),
      IpExclusions: row.ipExclusions as Acl["IpExclusions"],
      GrantType: row.grantType as Acl["GrantType"],
      Config: readConfig(row.id, row.config, backend?.sealedSecrets ?? {}),
      RequiresApproval: row.requiresApproval,
      ApproverGroupIDs: row.approverGroupIds,
      ApprovalTimeout: row.approvalTimeoutSeconds,
      LastModifiedAt: iso(row.updatedAt) ?? "",
      LastModifiedBy: row.updatedBy,
    };
  }

  /** Lists ACLs by description (hidden-from-admins children excluded). */
  async list(): Promise<Acl[]> {
    const rows = (await repo.listAcls(this.db)).filter((r) => !r.hideFromAdmins);
    return Promise.all(rows.map((r) => this.toWire(r)));
  }

  /** Reads one ACL; 404 when unknown. */
  async get(id: string): Promise<Acl> {
    const row = await repo.getAcl(this.db, id);
    if (!row) throw new AppError(Errors.notFound, "ACL");
    return await this.toWire(row);
  }

  private async backendFor(tx: Tx, backendId: string): Promise<BackendRow> {
    if (!(await backendRepo.anyBackend(tx))) throw new AppError(Errors.createBackendBeforeACL);
    const backend = await backendRepo.getBackend(tx, backendId);
    if (!backend) throw new AppError(Errors.noBackendSelected);
    return backend;
  }

  /**
   * The sealed values this ACL held on its previous backend that it may keep on `backend` (same
   * agent), removing them from a previous backend it leaves.
   */
  private async takePreviousSealed(
    tx: Tx,
    aclId: string,
    previousBackendId: string,
    backend: BackendRow,
  ): Promise<SealedSecrets> {
    const old = previousBackendId === backend.id ? backend : await backendRepo.getBackend(tx, previousBackendId);
    if (!old) return {};
    const keys = aclKeysOf(old.sealedSecrets, aclId);
    const taken = Object.fromEntries(keys.map((k) => [k, old.sealedSecrets[k]!]));
    if (old.id !== backend.id && keys.length > 0) {
      const rest = Object.fromEntries(Object.entries(old.sealedSecrets).filter(([k]) => !keys.includes(k)));
      await backendRepo.updateBackend(tx, old.id, { sealedSecrets: rest });
    }
    return old.agentId === backend.agentId ? taken : {};
  }

  /**
   * Seals the sensitive script variables of `config` to the backend's agent and stores them in the
   * backend's `sealed_secrets` (replacing this ACL's previous ones). A sensitive variable needs a
   * Value unless `available` holds its sealed value; a plain one always needs a Value ("Bad
   * request", Extra `Config.script.EnvVars.<name>.Value: required`). Returns the Config to store.
   * True in `changed` when the backend's sealed values changed.
   */
  private async sealVariables(
    tx: Tx,
    backend: BackendRow,
    aclId: string,
    config: AclConfig,
    available: SealedSecrets,
  ): Promise<{ config: AclConfig; changed: boolean }> {
    const sealedBefore = backend.sealedSecrets;
    const mine = new Set(aclKeysOf(sealedBefore, aclId));
    const sealed: SealedSecrets = Object.fromEntries(Object.entries(sealedBefore).filter(([k]) => !mine.has(k)));
    const script = config.script;
    if (script) {
      const declared =
        ((backend.config["script"] ?? {}) as { EnvVars?: { Name: string; Sensitive: boolean }[] }).EnvVars ?? [];
      const sensitive = new Set(declared.filter((v) => v.Sensitive).map((v) => v.Name));
      const env: NonNullable<AclConfig["script"]>["EnvVars"] = {};
      for (const [raw, v] of Object.entries(script.EnvVars)) {
        const name = raw.trim();
        const key = aclEnvKey(aclId, name);
        if (v.Encrypted || sensitive.has(name)) {
          if (v.Value !== "") sealed[key] = await sealTo(await this.boxKeyOf(tx, backend), v.Value);
          else if (available[key] !== undefined) sealed[key] = available[key];
          else throw new AppError(Errors.badRequest, `Config.script.EnvVars.${name}.Value: required`);
          env[name] = { Value: "", Encrypted: true };
        } else {
          if (v.Value === "") throw new AppError(Errors.badRequest, `Config.script.EnvVars.${name}.Value: required`);
          env[name] = { Value: v.Value, Encrypted: false };
        }
      }
      config = { ...config, script: { ...script, EnvVars: env } };
    }
    const changed = JSON.stringify(sealed) !== JSON.stringify(sealedBefore);
    if (changed) await backendRepo.updateBackend(tx, backend.id, { sealedSecrets: sealed });
    return { config, changed };
  }

  /** The box key of the backend's agent; 400 err.agentIncapable when there is none to seal to. */
  private async boxKeyOf(tx: Tx, backend: BackendRow): Promise<string> {
    const agent = backend.agentId ? await backendRepo.getAgentGate(tx, backend.agentId) : undefined;
    if (!agent || !isBoxPublicKey(agent.boxPublicKey))
      throw new AppError(Errors.agentIncapable, "the agent has no key to seal secrets to; enrol it again");
    return agent.boxPublicKey;
  }

  private values(input: AclWrite, config: AclConfig, now: number, actor: Actor) {
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
      config,
      updatedAt: now,
      updatedBy: actor.adminName,
    };
  }

  /**
   * Creates an ACL; returns its id. 403 err.youDoNotHaveALicense without a valid licence
   * (docs/reference.md admin-console §1, every path that creates Knocs); 400 for the §5 rules (see `validateAclConfig`).
   */
  async create(input: AclWrite, actor: Actor): Promise<string> {
    const id = newId();
    let agentId: string | null = null;
    await this.db.transaction(async (tx) => {
      await requireLicence(tx, this.clock.now());
      const backend = await this.backendFor(tx, input.BackendID);
      const checked = withAllowlistToken(validateAclConfig(backend.type, input.Config), "");
      const { config } = await this.sealVariables(tx, backend, id, checked, {});
      const now = this.clock.now();
      await repo.insertAcl(tx, {
        id,
        createdAt: now,
        ...this.values(input, config, now, actor),
        ...(await approvalColumns(tx, input)),
      });
      await writeAudit(tx, {
        action: AuditAction.aclCreated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        aclDescription: input.Description,
      });
      agentId = backend.agentId;
    });
    if (agentId) this.resync(agentId);
    return id;
  }

  /**
   * Updates an ACL ("Mismatching IDs" checked by the route). 403 err.youDoNotHaveALicense without a
   * valid licence, 400 for the §5 rules, 404 unknown.
   */
  async update(id: string, input: AclWrite, actor: Actor): Promise<void> {
    const agentsToSync = new Set<string>();
    const ops = await this.db.transaction(async (tx) => {
      await requireLicence(tx, this.clock.now());
      const row = await repo.getAcl(tx, id);
      if (!row) throw new AppError(Errors.notFound, "ACL");
      const backend = await this.backendFor(tx, input.BackendID);
      const stored = (row.config["allowlist"] as { Token?: unknown } | undefined)?.Token;
      const checked = withAllowlistToken(
        validateAclConfig(backend.type, input.Config),
        typeof stored === "string" ? stored : "",
      );
      const available = await this.takePreviousSealed(tx, id, row.backendId, backend);
      const { config, changed: secretsChanged } = await this.sealVariables(tx, backend, id, checked, available);
      const now = this.clock.now();
      // Where or to which addresses the ACL grants changed: current grants were decided under the old rules.
      const moved =
        row.backendId !== input.BackendID ||
        JSON.stringify(row.config) !== JSON.stringify(config) ||
        JSON.stringify(row.ipExclusions) !== JSON.stringify(input.IpExclusions) ||
        JSON.stringify(row.grantType) !== JSON.stringify(input.GrantType) ||
        row.cgnatOpen !== input.CGNATOpen ||
        (input.MaximumGrantDuration !== null &&
          (row.maximumGrantDurationSeconds === null || input.MaximumGrantDuration < row.maximumGrantDurationSeconds));
      const revokeOps = moved ? await this.engine.revokeForAcls(tx, [id]) : new Map();
      await repo.updateAcl(tx, id, {
        ...this.values(input, config, now, actor),
        ...(await approvalColumns(tx, input, row)),
      });
      await writeAudit(tx, {
        action: AuditAction.aclUpdated,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        aclDescription: input.Description,
      });
      if (moved || secretsChanged) {
        const old = await backendRepo.getBackend(tx, row.backendId);
        if (old?.agentId) agentsToSync.add(old.agentId);
        if (backend.agentId) agentsToSync.add(backend.agentId);
      }
      return revokeOps;
    });
    this.engine.dispatch(ops);
    for (const a of agentsToSync) this.resync(a);
  }

  /** Deletes an ACL after revoking its grants; its sealed variables leave the backend too. */
  async delete(id: string, actor: Actor): Promise<void> {
    let agentId: string | null = null;
    const ops = await this.db.transaction(async (tx) => {
      const row = await repo.getAcl(tx, id);
      if (!row) throw new AppError(Errors.notFound, "ACL");
      const revokeOps = await this.engine.revokeForAcls(tx, [id]);
      const backend = await backendRepo.getBackend(tx, row.backendId);
      agentId = backend?.agentId ?? null;
      if (backend && aclKeysOf(backend.sealedSecrets, id).length > 0) {
        const rest = Object.fromEntries(
          Object.entries(backend.sealedSecrets).filter(([k]) => !k.startsWith(`acl:${id}:`)),
        );
        await backendRepo.updateBackend(tx, backend.id, { sealedSecrets: rest });
      }
      await repo.deleteAcl(tx, id);
      await writeAudit(tx, {
        action: AuditAction.aclDeleted,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        aclDescription: row.description,
      });
      return revokeOps;
    });
    this.engine.dispatch(ops);
    if (agentId) this.resync(agentId);
  }
}

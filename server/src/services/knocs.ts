/**
 * Knocs (docs/reference.md admin-console §2–§4, §7): the read view joining ACL, backend, agent and counts, and Knoc
 * creation, update and deletion as single server operations, each in one database transaction —
 * a failure at any step leaves nothing behind (docs/reference.md admin-console §4 "Rollback").
 *
 * Creation sequence (§4): backend; for passive kinds the API key; the ACL; for Passive+ the firewall
 * backend and the hidden child ACL whose parent is the first ACL; then the assignments of users and
 * groups. A licence is required to create or update (403 err.youDoNotHaveALicense).
 */
import { Errors, KIND_TYPES, NONE_ID, backendTypeOf, knocKind } from "@postern/shared";
import type {
  AclConfig,
  AclWrite,
  BackendConfig,
  BackendType,
  Knoc,
  KnocCreate,
  KnocUpdate,
  WizardState,
} from "@postern/shared";
import type { Tx } from "../db/index.ts";
import { AppError } from "../errors.ts";
import * as repo from "../repositories/knocs.ts";
import { getAcl } from "../repositories/acls.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import type { Actor } from "./agents.ts";
import type { AclService } from "./acls.ts";
import type { ApiKeyService } from "./api-keys.ts";
import type { BackendService } from "./backends.ts";
import type { AgentService } from "./agents.ts";
import { reachOf, revokeLostAccess } from "./groups.ts";
import type { Ops } from "./grants/engine.ts";
import type { LicensingService } from "./licensing/service.ts";
import { Service } from "./service.ts";
import type { ServiceDeps } from "./service.ts";

/** The allowlist URL of a passive Knoc. */
export function allowlistUrl(baseUrl: string, aclId: string, token: string): string {
  return `${baseUrl}/api/v1/allowlists/${aclId}/${token}.txt`;
}

/** The parts a Knoc is made of. */
export interface KnocParts {
  backends: BackendService;
  acls: AclService;
  apiKeys: ApiKeyService;
  agents: AgentService;
  licensing: LicensingService;
}

/** Knocs: read view, create, update, delete. */
export class KnocService extends Service {
  private readonly parts: KnocParts;
  constructor(deps: ServiceDeps, parts: KnocParts) {
    super(deps);
    this.parts = parts;
  }

  // ---- read view ----------------------------------------------------------------------------

  /** Every Knoc shown to admins (hidden Passive+ children are part of their parent). */
  async list(baseUrl: string): Promise<Knoc[]> {
    return Promise.all((await this.parts.acls.list()).map((acl) => this.view(acl.ID, baseUrl)));
  }

  /** One Knoc (a Passive+ child's id reads the child). 404 when unknown. */
  async get(id: string, baseUrl: string): Promise<Knoc> {
    return await this.view(id, baseUrl);
  }

  private async view(id: string, baseUrl: string): Promise<Knoc> {
    const acl = await this.parts.acls.get(id);
    const backend = await this.parts.backends.get(acl.BackendID);
    const children = await repo.childAclIds(this.db, id);
    const child = children[0] ? await this.parts.acls.get(children[0]) : null;
    const kind = child
      ? knocKind((await this.parts.backends.get(child.BackendID)).Config, child.Config)
      : knocKind(backend.Config, acl.Config);
    const agentName =
      backend.AgentID !== NONE_ID
        ? ((await this.parts.agents.list()).find((a) => a.ID === backend.AgentID)?.Name ?? "")
        : "";
    const assignedTo = acl.ParentID !== NONE_ID ? acl.ParentID : id;
    const token = acl.Config.allowlist?.Token;
    return {
      ...acl,
      ...kind,
      UserCount: (await repo.aclReachingUserIds(this.db, assignedTo)).length,
      GroupCount: (await repo.aclGroupIds(this.db, assignedTo)).length,
      AgentName: agentName,
      BackendConfig: backend.Config,
      AclConfig: acl.Config,
      AllowlistURL: token ? allowlistUrl(baseUrl, id, token) : "",
    };
  }

  // ---- create -------------------------------------------------------------------------------

  /**
   * Creates a Knoc from the wizard state. Returns [Knoc id, PlaintextKey?, AllowlistURL?]. 403
   * err.youDoNotHaveALicense without a licence; 400 for a kind that does not match the backend
   * type, a missing API key choice, an empty IP restriction (err.allowlistAccessIpRestrictionFormRequired)
   * or unknown users/groups; every rule of the backend, ACL and API key services applies.
   */
  async create(input: KnocCreate, actor: Actor, baseUrl: string): Promise<string[]> {
    await this.parts.licensing.requireLicence();
    const ws = input.WizardState;
    const type = backendTypeOf(ws.form.Config);
    if (!KIND_TYPES[input.Kind].includes(type))
      throw new AppError(Errors.agentBackendTypeNotSupported, `a ${input.Kind} Knoc cannot use a ${type} backend`);
    const passivePlus = type === "panos" && !!ws.form.AclConfig.panos?.EDLName;
    const passive = type === "allowlist" || passivePlus;
    let result: string[] = [];
    const ops: Ops = new Map();
    await this.db.transaction(async (tx) => {
      // 1. backend (for Passive+ the agentless allowlist the firewall reads)
      const backendConfig: BackendConfig = passivePlus ? { allowlist: {} } : withEnvVarNames(ws.form.Config, ws);
      const backendId = await this.parts.backends.create(
        { Name: ws.form.Name, AgentID: passive ? NONE_ID : ws.agentId, Config: backendConfig },
        actor,
      );
      // 2–3. the ACL (the ACL service mints its allowlist token; the API key needs the ACL's id for its scope)
      const aclConfig = passive ? allowlistConfig(ws) : withEnvVarValues(aclConfigOf(type, ws.form.AclConfig), ws);
      const aclId = await this.parts.acls.create(this.aclWrite(ws, backendId, NONE_ID, false, aclConfig), actor);
      const token = passive ? ((await this.parts.acls.get(aclId)).Config.allowlist?.Token ?? "") : "";
      let plaintext: string | undefined;
      if (passive) plaintext = await this.attachApiKey(tx, ws, aclId, actor);
      // 4. Passive+: the firewall backend on the agent and the hidden child ACL
      if (passivePlus) {
        const childBackend = await this.parts.backends.create(
          { Name: `${ws.form.Name} (firewall)`, AgentID: ws.agentId, Config: ws.form.Config },
          actor,
        );
        await this.parts.acls.create(
          this.aclWrite(ws, childBackend, aclId, true, aclConfigOf(type, ws.form.AclConfig)),
          actor,
        );
      }
      // 5. assignments
      await this.assign(tx, aclId, ws.userIds, ws.groupIds, ops);
      await writeAudit(tx, {
        action: AuditAction.knocCreated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        aclDescription: ws.knocOptionsForm.Description,
        description: `${input.Kind} (${type})`,
      });
      result = [aclId, ...(plaintext ? [plaintext] : []), ...(passive ? [allowlistUrl(baseUrl, aclId, token)] : [])];
    });
    this.engine.dispatch(ops);
    return result;
  }

  private aclWrite(
    ws: Pick<WizardState, "knocOptionsForm">,
    backendId: string,
    parentId: string,
    hidden: boolean,
    config: AclConfig,
  ): AclWrite {
    return { ...ws.knocOptionsForm, HideFromAdmins: hidden, BackendID: backendId, ParentID: parentId, Config: config };
  }

  /** The API key step of passive kinds: a new key, an existing key, or none (access by source address). */
  private async attachApiKey(tx: Tx, ws: WizardState, aclId: string, actor: Actor): Promise<string | undefined> {
    const scope = `allowlist.read:${aclId}`;
    let keyId = NONE_ID;
    let plaintext: string | undefined;
    if (ws.apiKeyOption === "new") {
      if (!ws.apiKeyForm.Name) throw new AppError(Errors.badRequest, "apiKeyForm.Name is required");
      const key = await this.parts.apiKeys.create(
        {
          Name: ws.apiKeyForm.Name,
          Scopes: [scope],
          ExpiredAfter: null,
          ...(ws.apiKeyForm.AllowedFrom ? { AllowedFrom: ws.apiKeyForm.AllowedFrom } : {}),
        },
        actor,
      );
      keyId = key.ID;
      plaintext = key.PlaintextKey;
    } else if (ws.apiKeyOption === "existing") {
      if (!ws.existingApiKey || !(await repo.addApiKeyScope(tx, ws.existingApiKey, scope)))
        throw new AppError(Errors.badRequest, "existingApiKey: choose an existing API key");
      keyId = ws.existingApiKey;
    }
    if (keyId !== NONE_ID) {
      const row = (await getAcl(tx, aclId))!;
      const config = row.config as { allowlist: Record<string, unknown> };
      await repo.setAclConfig(tx, aclId, { ...config, allowlist: { ...config.allowlist, ApiKeyId: keyId } });
    }
    return plaintext;
  }

  // ---- update -------------------------------------------------------------------------------

  /**
   * Updates a Knoc: backend, ACL (and its parent for a Passive+ child), then the assignments, in one
   * transaction. Secrets left blank keep the stored ones; a changed host or URL needs the
   * credentials again (the backend service's rule). 403 without a licence, 404 unknown.
   */
  async update(id: string, input: KnocUpdate, actor: Actor): Promise<void> {
    await this.parts.licensing.requireLicence();
    const ws = input.WizardState;
    const ops: Ops = new Map();
    await this.db.transaction(async (tx) => {
      const acl = await this.parts.acls.get(id);
      const backend = await this.parts.backends.get(acl.BackendID);
      const type = backendTypeOf(backend.Config);
      if (backendTypeOf(ws.form.Config) !== type) throw new AppError(Errors.cannotChangeBackendType);
      const agentId = ws.agentId !== NONE_ID ? ws.agentId : backend.AgentID;
      // A Passive+ child's firewall backend is named after the Knoc like at creation.
      const backendName = acl.ParentID !== NONE_ID ? `${ws.form.Name} (firewall)` : ws.form.Name;
      await this.parts.backends.update(
        backend.ID,
        { Name: backendName, AgentID: agentId, Config: withEnvVarNames(ws.form.Config, ws) },
        actor,
      );
      const config = type === "allowlist" ? acl.Config : withEnvVarValues(aclConfigOf(type, ws.form.AclConfig), ws);
      await this.parts.acls.update(id, this.aclWrite(ws, backend.ID, acl.ParentID, acl.HideFromAdmins, config), actor);
      let assignedTo = id;
      if (acl.ParentID !== NONE_ID) {
        const parent = await this.parts.acls.get(acl.ParentID);
        const parentBackend = await this.parts.backends.get(parent.BackendID);
        await this.parts.backends.update(
          parentBackend.ID,
          { Name: ws.form.Name, AgentID: NONE_ID, Config: parentBackend.Config },
          actor,
        );
        await this.parts.acls.update(
          parent.ID,
          { ...this.aclWrite(ws, parent.BackendID, NONE_ID, false, parent.Config) },
          actor,
        );
        assignedTo = parent.ID;
      }
      await this.assign(tx, assignedTo, ws.userIds, ws.groupIds, ops);
      await writeAudit(tx, {
        action: AuditAction.knocUpdated,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        aclDescription: ws.knocOptionsForm.Description,
      });
    });
    this.engine.dispatch(ops);
  }

  /**
   * Makes the ACL's assignments exactly the given users and groups (the wizard's and the update
   * page's selection); users who lose the ACL by every path lose their live grants on it.
   */
  private async assign(
    tx: Tx,
    aclId: string,
    userIds: readonly string[],
    groupIds: readonly string[],
    ops: Ops,
  ): Promise<void> {
    const unknownUsers = await repo.unknownUserIds(tx, userIds);
    if (unknownUsers.length) throw new AppError(Errors.badRequest, `userIds: unknown user ${unknownUsers[0]}`);
    const unknownGroups = await repo.unknownGroupIds(tx, groupIds);
    if (unknownGroups.length) throw new AppError(Errors.badRequest, `groupIds: unknown group ${unknownGroups[0]}`);
    const before = await reachOf(tx, await repo.aclReachingUserIds(tx, aclId));
    await repo.setAclUsers(tx, aclId, userIds);
    await repo.setAclGroups(tx, aclId, groupIds);
    await revokeLostAccess(tx, this.engine, this.clock.now(), before, ops);
  }

  // ---- delete -------------------------------------------------------------------------------

  /**
   * Deletes a Knoc in one transaction: its ACL and any Passive+ child (grants revoked first), their
   * backends when no other ACL uses them, and its allowlist's scope on the API key — the key itself
   * too when `deleteApiKey` and the scope was its only one. 404 unknown.
   */
  async delete(id: string, actor: Actor, deleteApiKey: boolean): Promise<void> {
    await this.db.transaction(async (tx) => {
      const acl = await this.parts.acls.get(id);
      if (acl.HideFromAdmins && acl.ParentID !== NONE_ID)
        throw new AppError(Errors.badRequest, "delete the parent Knoc");
      for (const aclId of [...(await repo.childAclIds(tx, id)), id]) {
        const row = await this.parts.acls.get(aclId);
        await this.parts.acls.delete(aclId, actor);
        if ((await repo.aclsOnBackend(tx, row.BackendID)) === 0) await this.parts.backends.delete(row.BackendID, actor);
      }
      const keyId = acl.Config.allowlist?.ApiKeyId;
      if (keyId && keyId !== NONE_ID) {
        const left = await repo.removeApiKeyScope(tx, keyId, `allowlist.read:${id}`);
        if (deleteApiKey && left.length === 0) await this.parts.apiKeys.delete(keyId, actor);
      }
      await writeAudit(tx, {
        action: AuditAction.knocDeleted,
        at: this.clock.now(),
        adminName: actor.adminName,
        ipAddress: actor.ip,
        aclDescription: acl.Description,
      });
    });
  }

  /** 404 unless `id` is a Knoc. */
  async exists(id: string): Promise<void> {
    if (!(await getAcl(this.db, id))) throw new AppError(Errors.notFound, "Knoc");
  }
}

/** The ACL fields of `type` from the settings step (only that type's key is kept). */
function aclConfigOf(type: BackendType, config: AclConfig): AclConfig {
  const fields = (config as Record<string, unknown>)[type];
  return { UriToken: config.UriToken ?? "", ...(fields !== undefined ? { [type]: fields } : {}) } as AclConfig;
}

/** The allowlist ACL config: no key yet, access by source address when no key is chosen (the ACL service mints the token). */
function allowlistConfig(ws: WizardState): AclConfig {
  const byIp = ws.apiKeyOption === "none";
  const ranges = ws.allowlistAccessIpRestrictionForm.AllowedFrom;
  if (byIp && ranges.length === 0)
    throw new AppError(Errors.allowlistAccessIpRestrictionFormRequired, "At least one IP range must be present");
  return {
    UriToken: "",
    allowlist: {
      Token: "",
      ApiKeyId: NONE_ID,
      AllowAccessByIp: byIp,
      AllowedIpAddresses: byIp ? ranges.map((r) => ({ Prefix: r.Prefix, Note: r.Note ?? "" })) : [],
    },
  } as AclConfig;
}

/** A script backend declares the wizard's variable names (with their Sensitive flags). */
function withEnvVarNames(config: BackendConfig, ws: Pick<WizardState, "envVarsForm">): BackendConfig {
  if (!config.script || ws.envVarsForm.length === 0) return config;
  const vars = ws.envVarsForm.filter((v) => v.Name !== "");
  return {
    script: { ...config.script, EnvVars: vars.map((v) => ({ Name: v.Name, Sensitive: v.Sensitive })) },
  } as BackendConfig;
}

/** A script ACL carries the wizard's variable values (blank names dropped; Sensitive ones sealed by the ACL service). */
function withEnvVarValues(config: AclConfig, ws: Pick<WizardState, "envVarsForm">): AclConfig {
  if (!config.script || ws.envVarsForm.length === 0) return config;
  const vars = ws.envVarsForm.filter((v) => v.Name !== "");
  for (const v of vars) {
    if (!v.Value && !v.Sensitive) throw new AppError(Errors.badRequest, `envVarsForm: ${v.Name} needs a value`);
  }
  return {
    ...config,
    script: {
      ...config.script,
      EnvVars: Object.fromEntries(vars.map((v) => [v.Name, { Value: v.Value, Encrypted: v.Sensitive }])),
    },
  } as AclConfig;
}

/**
 * Turns an ACL and its backend into an agent protocol `Target` (shared/src/agent-protocol.ts), for
 * every type an agent enforces (`AGENT_BACKEND_TYPES` of the backend descriptors).
 */
import { AGENT_BACKEND_TYPES } from "@postern/shared";
import type { AgentBackendType, BackendConfig, Target, TargetAcl } from "@postern/shared";
import type { TargetSource } from "../../repositories/grants.ts";

export type { TargetSource };

/**
 * The sealed secrets a target carries: the backend's own fields by name, and this ACL's sealed
 * variables as `env:<NAME>` (other ACLs' variables are left out).
 */
export function targetSecrets(sealed: Record<string, string>, aclId: string): Record<string, string> {
  const prefix = `acl:${aclId}:env:`;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(sealed)) {
    if (!key.startsWith("acl:")) out[key] = value;
    else if (key.startsWith(prefix)) out[`env:${key.slice(prefix.length)}`] = value;
  }
  return out;
}

/**
 * Builds the target of an ACL, or null when its backend type is not enforced by an agent (or the
 * stored configuration lacks the type's fields). Sealed secrets ride along when there are any.
 */
export function toTarget(src: TargetSource): Target | null {
  const type = src.backendType as AgentBackendType;
  if (!(AGENT_BACKEND_TYPES as readonly string[]).includes(type)) return null;
  const b = src.backendConfig[type];
  const a = src.aclConfig[type];
  if (b === undefined || a === undefined) return null;
  const secrets = targetSecrets(src.sealedSecrets ?? {}, src.aclId);
  return {
    key: src.aclId,
    backendId: src.backendId,
    backend: { [type]: b } as BackendConfig,
    acl: { [type]: a } as TargetAcl,
    ...(Object.keys(secrets).length > 0 ? { secrets } : {}),
  };
}

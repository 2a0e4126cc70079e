/**
 * The variables of a script or webhook call (docs/reference.md admin-console §3 "Script environment variables exposed
 * to scripts: knoc_action, knoc_aclname, knoc_username, knoc_cidr, knoc_ipaddr (reserved names ...)
 * Defaults for script env include URL, USERNAME, PASSWORD, POLICY").
 */
import { isReservedEnvVarName, normaliseIp } from "@postern/shared";
import type { Target } from "@postern/shared";

/** A script call's action: add an address, delete it, or empty the ACL. */
export type ScriptAction = "add" | "del" | "flush";

/** The ACL's script fields of a target. @throws Error when the target is not a script ACL. */
export function scriptAcl(target: Target): {
  Name: string;
  EnvVars: Record<string, { Value: string; Encrypted: boolean }>;
} {
  if (!("script" in target.acl)) throw new Error(`target ${target.key} is not a script ACL`);
  return target.acl.script;
}

/**
 * The ACL's variables by name: plain values as stored, Sensitive ones opened from the target's sealed
 * `env:<NAME>` secrets. Variables the backend declares but the ACL leaves out are "".
 * @throws Error naming the variable (never its value) when a sealed value is missing or cannot be opened,
 * or a name is reserved.
 */
export function aclVariables(target: Target, open: (sealed: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  const declared = "script" in target.backend ? (target.backend.script?.EnvVars ?? []) : [];
  for (const v of declared) out[v.Name] = "";
  for (const [name, v] of Object.entries(scriptAcl(target).EnvVars)) {
    if (isReservedEnvVarName(name)) throw new Error(`variable ${name} is reserved for the agent`);
    if (!v.Encrypted) {
      out[name] = v.Value;
      continue;
    }
    const sealed = target.secrets?.[`env:${name}`];
    if (sealed === undefined) throw new Error(`sensitive variable ${name} has no sealed value for this agent`);
    try {
      out[name] = open(sealed);
    } catch {
      throw new Error(`sensitive variable ${name} cannot be opened with this agent's key`);
    }
  }
  return out;
}

/** The `knoc_*` variables of one call. `ip` is "" for flush. */
export function knocVariables(
  action: ScriptAction,
  aclName: string,
  ip: string,
  user: string | undefined,
): Record<string, string> {
  const n = ip ? normaliseIp(ip) : null;
  return {
    knoc_action: action,
    knoc_aclname: aclName,
    knoc_username: user ?? "",
    knoc_cidr: n ? `${n.ip}/${n.family === "inet" ? 32 : 128}` : "",
    knoc_ipaddr: n ? n.ip : ip,
  };
}

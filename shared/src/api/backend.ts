/**
 * Backends (docs/reference.md admin-console §3 "BackendConfig", §5 "Backend", §7 /admin/backends, §9 defaults).
 *
 * BackendConfig has exactly one key naming its type, one of the 13 types of §3. The zod schemas
 * here check shapes and fill the §9 defaults; the §5 rules that carry the spec's own keys or
 * messages are in `backendConfigProblem` (pure, shared with the browser). Everything else known about
 * a type (kind, vendor, capability, agent version, secret and host fields, defaults) is its row in
 * `../backend-types.ts`. Secret fields are written in plain text, stored sealed to the backend's agent,
 * and always read back as "" with their names in `SecretsSet`.
 */
import { Errors } from "../errors.ts";
import type { ErrorEntry } from "../errors.ts";
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { NONE_ID } from "../limits.ts";

/**
 * The backend types: the 13 of docs/reference.md admin-console §3 in the spec's order, then `nftables` (beyond the
 * spec, docs/decisions.md "nftables backend").
 */
export const BACKEND_TYPES = [
  "fortios",
  "fortimanager",
  "azure",
  "panos",
  "firepower",
  "sophosutm",
  "sophossfos",
  "aws",
  "haproxy",
  "knocproxy",
  "script",
  "ipset",
  "allowlist",
  "nftables",
] as const;
/** A backend type: the single key of a BackendConfig. */
export type BackendType = (typeof BACKEND_TYPES)[number];

/**
 * Script environment variable names the agent sets itself (docs/reference.md admin-console §3: knoc_action,
 * knoc_aclname, knoc_username, knoc_cidr, knoc_ipaddr); refused as names (`isReservedEnvVarName`).
 */
export const RESERVED_ENV_VAR_NAMES = ["action", "aclname", "username", "cidr", "ipaddr"] as const;

const text = (max = 255) => z.string().trim().max(max).default("");
/** A secret: "" means "not given" (required on create, keeps the stored value on update). */
const secret = z.string().trim().max(8192).default("");
/** A password keeps its spaces. */
const password = z.string().max(1024).default("");
const insecure = z.boolean().default(false);
/** docs/reference.md admin-console §9: the default address-object prefix of fortios. */
const FORTIOS_PREFIX = "kk_";

/** fortios (Fortinet): REST API URL, bearer token, address-object prefix (default kk_), optional VDOM. */
export const FortiosBackendConfigSchema = z.object({
  Url: text(2048),
  Insecure: insecure,
  Bearer: secret,
  Prefix: z
    .string()
    .trim()
    .max(32)
    .default(FORTIOS_PREFIX)
    .transform((p) => p || FORTIOS_PREFIX),
  VDOM: text(64),
});
/** fortimanager: host, TLS verification switch, API key. */
export const FortimanagerBackendConfigSchema = z.object({ Hostname: text(), Insecure: insecure, ApiKey: secret });
/** panos (Palo Alto): host, API key, virtual system (default vsys1), device group, User-ID mapping. */
export const PanosBackendConfigSchema = z.object({
  Hostname: text(),
  Insecure: insecure,
  ApiKey: secret,
  VSys: z.string().trim().max(63).default("vsys1"),
  DeviceGroup: text(),
  MapUser: z.boolean().default(false),
});
/** firepower (Cisco FMC): host, user name and password. */
export const FirepowerBackendConfigSchema = z.object({
  Hostname: text(),
  Insecure: insecure,
  Username: text(),
  Password: password,
});
/** sophosutm: host and API key. */
export const SophosutmBackendConfigSchema = z.object({ Hostname: text(), Insecure: insecure, ApiKey: secret });
/** sophossfos (Sophos Firewall): host, user name and password. */
export const SophossfosBackendConfigSchema = z.object({
  Hostname: text(),
  Insecure: insecure,
  Username: text(),
  Password: password,
});
/** azure: service principal (all three secret) and the token-cache switch. */
export const AzureBackendConfigSchema = z.object({
  ClientId: secret,
  ClientSecret: secret,
  TenantId: secret,
  NoCache: z.boolean().default(false),
});
/** aws: access key pair (secret) and region. */
export const AwsBackendConfigSchema = z.object({ AccessKeyId: secret, SecretAccessKey: secret, Region: text(32) });
/** haproxy: the runtime API address (`/var/run/haproxy.sock` for unix, `host:9999` for tcp). */
export const HaproxyBackendConfigSchema = z.object({
  Protocol: z.enum(["unix", "tcp"]),
  Address: z.string().trim().max(1024),
});
/** knocproxy: the proxy's control address, as for haproxy. */
export const KnocproxyBackendConfigSchema = z.object({
  Protocol: z.enum(["unix", "tcp"]),
  Address: z.string().trim().max(1024),
});
/** One variable a script backend declares (docs/reference.md admin-console §3 "EnvVars (Name, Sensitive)"). */
export const BackendEnvVarSchema = z.object({
  Name: z.string().trim().max(128),
  Sensitive: z.boolean().default(false),
});
/** script: the command (full path of an executable, or a webhook URL) and its declared variables. */
export const ScriptBackendConfigSchema = z.object({
  Command: z.string().trim().max(2048).default(""),
  EnvVars: z.array(BackendEnvVarSchema).max(64).default([]),
});
/** ipset backend: no backend fields; the set names live on the ACL. */
export const IpsetBackendConfigSchema = z.object({}).strict();
/** allowlist backend (passive Knocs): no fields and no agent; the list is served by the server. */
export const AllowlistBackendConfigSchema = z.object({}).strict();
/** nftables backend: no backend fields; the table and sets live on the ACL (docs/decisions.md "nftables backend"). */
export const NftablesBackendConfigSchema = z.object({}).strict();

/** The schema of each type's backend fields. */
export const BackendTypeConfigSchemas = {
  fortios: FortiosBackendConfigSchema,
  fortimanager: FortimanagerBackendConfigSchema,
  azure: AzureBackendConfigSchema,
  panos: PanosBackendConfigSchema,
  firepower: FirepowerBackendConfigSchema,
  sophosutm: SophosutmBackendConfigSchema,
  sophossfos: SophossfosBackendConfigSchema,
  aws: AwsBackendConfigSchema,
  haproxy: HaproxyBackendConfigSchema,
  knocproxy: KnocproxyBackendConfigSchema,
  script: ScriptBackendConfigSchema,
  ipset: IpsetBackendConfigSchema,
  allowlist: AllowlistBackendConfigSchema,
  nftables: NftablesBackendConfigSchema,
} as const satisfies Record<BackendType, z.ZodType>;

/**
 * BackendConfig: exactly one key naming the type (docs/reference.md admin-console §3). Unknown keys, none or several
 * answer "Bad request".
 */
export const BackendConfigSchema = z
  .object({
    fortios: FortiosBackendConfigSchema.optional(),
    fortimanager: FortimanagerBackendConfigSchema.optional(),
    azure: AzureBackendConfigSchema.optional(),
    panos: PanosBackendConfigSchema.optional(),
    firepower: FirepowerBackendConfigSchema.optional(),
    sophosutm: SophosutmBackendConfigSchema.optional(),
    sophossfos: SophossfosBackendConfigSchema.optional(),
    aws: AwsBackendConfigSchema.optional(),
    haproxy: HaproxyBackendConfigSchema.optional(),
    knocproxy: KnocproxyBackendConfigSchema.optional(),
    script: ScriptBackendConfigSchema.optional(),
    ipset: IpsetBackendConfigSchema.optional(),
    allowlist: AllowlistBackendConfigSchema.optional(),
    nftables: NftablesBackendConfigSchema.optional(),
  })
  .strict()
  .refine(
    (c) => Object.values(c).filter((v) => v !== undefined).length === 1,
    "exactly one backend type key is required",
  );
/** BackendConfig: exactly one key naming the type. */
export type BackendConfig = z.infer<typeof BackendConfigSchema>;

/** Returns the type named by a BackendConfig's single key. */
export function backendTypeOf(config: BackendConfig): BackendType {
  const key = Object.keys(config).find((k) => (config as Record<string, unknown>)[k] !== undefined);
  return key as BackendType;
}

/** True when `type` is one of the backend types (`BACKEND_TYPES`). */
export function isBackendType(type: string): type is BackendType {
  return (BACKEND_TYPES as readonly string[]).includes(type);
}

/** A broken §5 rule: the catalogue entry to answer with and `Extra` naming the field. */
export interface ConfigProblem {
  error: ErrorEntry;
  Extra?: string;
}

const badRequest = (path: string, what: string): ConfigProblem => ({
  error: Errors.badRequest,
  Extra: `${path}: ${what}`,
});

/** True for an absolute http: or https: URL with a host. */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

/** True when `command` names a webhook (has a URL scheme) rather than an executable path. */
export function isWebhookCommand(command: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(command);
}

/**
 * Checks one script environment variable name (docs/reference.md admin-console §5: not empty, without '='; the
 * reserved names refused). Returns the problem or null. `path` names the field for Extra.
 */
export function envVarNameProblem(name: string, path: string): ConfigProblem | null {
  if (name === "") return { error: Errors.emptyEnvVarName, Extra: path };
  if (name.includes("=") || [...name].some((ch) => ch.charCodeAt(0) < 0x20))
    return { error: Errors.invalidEnvVarName, Extra: path };
  if (isReservedEnvVarName(name)) return { error: Errors.invalidEnvVarName, Extra: `${path}: ${name} is reserved` };
  return null;
}

/**
 * True for a name the agent sets itself: `knoc_<reserved>` in any letter case, or a bare reserved name
 * as written (`username`). The upper-case `USERNAME`, `PASSWORD`, `URL`, `POLICY` of the spec's
 * defaults stay allowed (docs/decisions.md "Reserved script variable names").
 */
export function isReservedEnvVarName(name: string): boolean {
  const reserved = RESERVED_ENV_VAR_NAMES as readonly string[];
  const lower = name.toLowerCase();
  return (lower.startsWith("knoc_") && reserved.includes(lower.slice("knoc_".length))) || reserved.includes(name);
}

/** Checks a list of variable names: each as `envVarNameProblem`, then unique (err.repeatedEnvVarNames). */
export function envVarNamesProblem(names: readonly string[], path: string): ConfigProblem | null {
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    const p = envVarNameProblem(name, `${path}.${i}`);
    if (p) return p;
    if (seen.has(name)) return { error: Errors.repeatedEnvVarNames, Extra: name };
    seen.add(name);
  }
  return null;
}

function addressProblem(protocol: "unix" | "tcp", address: string, path: string): ConfigProblem | null {
  if (address === "") return badRequest(path, "required");
  if (protocol === "unix")
    return address.startsWith("/") && !/[\0\n]/.test(address)
      ? null
      : badRequest(path, "must be an absolute socket path");
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[2]) : 0;
  return m && port >= 1 && port <= 65535 ? null : badRequest(path, "must be host:port");
}

function hostProblem(host: string, path: string, required: boolean): ConfigProblem | null {
  if (host === "") return required ? badRequest(path, "required") : null;
  return /[\s\0]/.test(host) ? badRequest(path, "must be a host name or address") : null;
}

/**
 * The first broken §5 rule of a BackendConfig that does not depend on stored state, or null:
 * fortios Url required (err.invalidFortiosConfig) and http/https ("URL must be http or https");
 * panos Hostname and VSys required; firepower Username required; aws Region required;
 * haproxy/knocproxy Address required (an absolute path for unix, host:port for tcp); script Command
 * required, a full path or an http(s) webhook URL, and its EnvVars names valid and unique. Secrets
 * (`BackendSecretFields` of ../backend-types.ts) are checked by the server, which knows what is stored.
 */
export function backendConfigProblem(config: BackendConfig): ConfigProblem | null {
  const type = backendTypeOf(config);
  const p = `Config.${type}`;
  switch (type) {
    case "fortios": {
      const c = config.fortios!;
      if (c.Url === "") return { error: Errors.invalidFortiosConfig, Extra: `${p}.Url: required` };
      if (!isHttpUrl(c.Url)) return { error: Errors.urlMustBeHttp, Extra: `${p}.Url` };
      return null;
    }
    case "panos": {
      const c = config.panos!;
      return (
        hostProblem(c.Hostname, `${p}.Hostname`, true) ?? (c.VSys === "" ? badRequest(`${p}.VSys`, "required") : null)
      );
    }
    case "firepower": {
      const c = config.firepower!;
      return (
        hostProblem(c.Hostname, `${p}.Hostname`, false) ??
        (c.Username === "" ? badRequest(`${p}.Username`, "required") : null)
      );
    }
    case "fortimanager":
    case "sophosutm":
    case "sophossfos":
      return hostProblem(config[type]!.Hostname, `${p}.Hostname`, false);
    case "aws": {
      const r = config.aws!.Region;
      if (r === "") return badRequest(`${p}.Region`, "required");
      return /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(r)
        ? null
        : badRequest(`${p}.Region`, "must be an AWS region such as eu-west-1");
    }
    case "haproxy":
    case "knocproxy": {
      const c = config[type]!;
      return addressProblem(c.Protocol, c.Address, `${p}.Address`);
    }
    case "script": {
      const c = config.script!;
      if (c.Command === "") return badRequest(`${p}.Command`, "required");
      if (isWebhookCommand(c.Command)) {
        if (!isHttpUrl(c.Command)) return { error: Errors.urlMustBeHttp, Extra: `${p}.Command` };
      } else if (!c.Command.startsWith("/") || /[\0\n\r]/.test(c.Command)) {
        return { error: Errors.invalidScriptCommand, Extra: `${p}.Command` };
      }
      return envVarNamesProblem(
        c.EnvVars.map((v) => v.Name),
        `${p}.EnvVars`,
      );
    }
    default:
      return null;
  }
}

/** A backend as admins read it (docs/reference.md admin-console §7 "Backend: {ID, Name, AgentID, Config}"). */
export const BackendSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  AgentID: IdSchema,
  /** Secret fields always read as "". */
  Config: BackendConfigSchema,
  /** Names of the secret fields that hold a stored (sealed) value: the form shows RECORDED for them. */
  SecretsSet: z.array(z.string()),
  LastModifiedAt: z.string(),
});
/** A backend as read by admins. */
export type Backend = z.infer<typeof BackendSchema>;

/**
 * POST/PUT /api/admin/backends body. AgentID is required for every type except allowlist (where it
 * is ignored). Secret fields are plain text; "" keeps the stored value on update.
 */
export const BackendWriteSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().min(1).max(255),
  AgentID: IdSchema.default(NONE_ID),
  Config: BackendConfigSchema,
});
/** POST/PUT /api/admin/backends body. */
export type BackendWrite = z.infer<typeof BackendWriteSchema>;

/**
 * The ACL form's values and rules (docs/reference.md admin-console §3 "Knoc (ACL)", §5 "ACL"): the shared
 * AclWriteSchema with the maximum grant duration edited in minutes (5–40320, empty for unlimited,
 * sent ×60 as seconds), a backend required (err.noBackendSelected), the backend type's ACL rules
 * (`aclConfigProblem`, the server's, reported on the field they name) and a value for every script
 * variable unless a sealed one is stored. The Config's fields start from the type's schema defaults
 * (the descriptor's `defaults.acl`) and, for a script, the variables its backend declares.
 */
import { z } from "zod";
import {
  APPROVAL_TIMEOUT_DEFAULT_SECONDS,
  AclWriteSchema,
  BACKEND_DESCRIPTORS,
  BACKEND_TYPES,
  Errors,
  Limits,
  NONE_ID,
  aclConfigProblem,
  backendTypeOf,
} from "@postern/shared";
import type { Acl, AclConfig, AclWrite, Backend, BackendType } from "@postern/shared";

/** The maximum grant duration as typed: whole minutes 5–40320 or empty (unlimited); seconds or null once valid. */
const MinutesSchema = z
  .string()
  .trim()
  .refine((v) => {
    if (v === "") return true;
    const n = Number(v);
    return /^\d+$/.test(v) && n >= Limits.maximumGrantDurationMinMinutes && n <= Limits.maximumGrantDurationMaxMinutes;
  }, Errors.invalidMaximumGrantDuration.err)
  .transform((v) => (v === "" ? null : Number(v) * 60));

/** The form's values: the write body with the duration in minutes and the chosen backend's type (null for none). */
export type AclFormValues = Omit<z.input<typeof AclWriteSchema>, "MaximumGrantDuration"> & {
  MaximumGrantDuration: string;
  Type: BackendType | null;
};
/** The form's values once valid. */
export type AclFormOutput = AclWrite & { Type: BackendType | null };

/** The path of a shared rule's problem: the field its Extra names, else the type's field it is about. */
function problemPath(type: BackendType, config: AclConfig, extra: string | undefined): PropertyKey[] {
  const [path = ""] = (extra ?? "").split(": ");
  if (path.startsWith("Config.")) return path.split(".");
  const fields = (config[type] ?? {}) as Record<string, unknown>;
  const named = Object.keys(fields).find((k) => extra !== undefined && fields[k] === extra);
  const first = Object.keys((BACKEND_DESCRIPTORS[type].aclSchema as unknown as { shape: object }).shape)[0];
  return ["Config", type, named ?? first ?? ""];
}

/**
 * The form's schema. `sealed` names the script variables whose sealed value is stored (an empty
 * value keeps it).
 */
export function aclFormSchema(sealed: readonly string[]) {
  return AclWriteSchema.extend({
    MaximumGrantDuration: MinutesSchema,
    Type: z.enum(BACKEND_TYPES).nullable(),
  }).superRefine((value, ctx) => {
    if (value.BackendID === NONE_ID || value.Type === null) {
      ctx.addIssue({ code: "custom", path: ["BackendID"], message: Errors.noBackendSelected.err });
      return;
    }
    const problem = aclConfigProblem(value.Type, value.Config);
    if (problem) {
      const detail = (problem.Extra ?? "").split(": ")[1] ?? "";
      ctx.addIssue({
        code: "custom",
        path: problemPath(value.Type, value.Config, problem.Extra),
        message: problem.error === Errors.badRequest ? detail || problem.error.err : problem.error.err,
      });
    }
    for (const [name, v] of Object.entries(value.Config.script?.EnvVars ?? {})) {
      if (value.Type === "script" && v.Value === "" && !sealed.includes(name))
        ctx.addIssue({ code: "custom", path: ["Config", "script", "EnvVars", name, "Value"], message: "required" });
    }
  });
}

/** The type of a backend. */
export const backendType = (backend: Backend): BackendType => backendTypeOf(backend.Config);

/**
 * The Config fields of `type` to start from: `current` when given (an ACL's own), else the schema
 * defaults; a script gets a value slot for each variable its backend declares (sealed when Sensitive).
 */
export function startConfig(type: BackendType, backend: Backend | undefined, current?: AclConfig): AclConfig {
  const own = { ...BACKEND_DESCRIPTORS[type].defaults.acl, ...(current?.[type] ?? {}) } as Record<string, unknown>;
  if (type === "script") {
    const env = { ...((own["EnvVars"] ?? {}) as Record<string, { Value: string; Encrypted: boolean }>) };
    for (const v of backend?.Config.script?.EnvVars ?? []) env[v.Name] ??= { Value: "", Encrypted: v.Sensitive };
    own["EnvVars"] = env;
  }
  return { UriToken: current?.UriToken ?? "", [type]: own } as AclConfig;
}

/** Starting values of a new ACL: nothing chosen, the schema's defaults. */
export function newAclValues(): AclFormValues {
  return {
    Description: "",
    URL: "",
    Category: "Default",
    Icon: "",
    ClickToGrant: false,
    CGNATOpen: false,
    HideFromUsers: false,
    HideFromAdmins: false,
    AutoBrowseUsers: false,
    MaximumGrantDuration: "",
    BackendID: NONE_ID,
    ParentID: NONE_ID,
    IpExclusions: { RestrictionType: "none", RfcType: "allow", Ranges: [] },
    GrantType: { Type: "userIp", Ips: [] },
    Config: { UriToken: "" },
    RequiresApproval: false,
    ApproverGroupIDs: [],
    ApprovalTimeout: APPROVAL_TIMEOUT_DEFAULT_SECONDS,
    Type: null,
  };
}

/** The values of an existing ACL; fields the dialog does not show are kept as they are. */
export function existingAclValues(acl: Acl, backend: Backend | undefined): AclFormValues {
  const type = backend ? backendType(backend) : null;
  const seconds = acl.MaximumGrantDuration;
  return {
    Description: acl.Description,
    URL: acl.URL,
    Category: acl.Category,
    Icon: acl.Icon,
    ClickToGrant: acl.ClickToGrant,
    CGNATOpen: acl.CGNATOpen,
    HideFromUsers: acl.HideFromUsers,
    HideFromAdmins: acl.HideFromAdmins,
    AutoBrowseUsers: acl.AutoBrowseUsers,
    MaximumGrantDuration: seconds === null ? "" : String(Math.round(seconds / 60)),
    BackendID: acl.BackendID,
    ParentID: acl.ParentID,
    IpExclusions: acl.IpExclusions,
    GrantType: acl.GrantType,
    Config: type ? startConfig(type, backend, acl.Config) : acl.Config,
    RequiresApproval: acl.RequiresApproval,
    ApproverGroupIDs: acl.ApproverGroupIDs,
    ApprovalTimeout: acl.ApprovalTimeout,
    Type: type,
  };
}

/** The script variables of an ACL whose sealed value is stored. */
export function sealedVariables(acl: Acl | undefined): string[] {
  return Object.entries(acl?.Config.script?.EnvVars ?? {})
    .filter(([, v]) => v.Encrypted)
    .map(([name]) => name);
}

/** The write body of the form's values (the type stays in the Config's key; the server mints allowlist tokens). */
export function toWrite(values: AclFormOutput): AclWrite {
  const { Type: _type, ...write } = values;
  return write;
}

/** A number field's typed text as the schema reads it: empty is absent, digits a number, anything else as typed. */
export function numberInput(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const v = value.trim();
  if (v === "") return undefined;
  return /^\d+$/.test(v) ? Number(v) : v;
}

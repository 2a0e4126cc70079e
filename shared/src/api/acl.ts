/**
 * ACLs / Knocs (docs/reference.md admin-console §3 "Knoc (ACL)", §7 "ACL" payload, §5 validation). The ACL's Config is
 * keyed by backend type like BackendConfig; the zod schemas check shapes, fill defaults and carry the
 * spec's keys where a rule has one (haproxy ID); `aclConfigProblem` applies the type-dependent §5
 * rules (pure, shared with the browser).
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { NONE_ID, Limits } from "../limits.ts";
import { Errors } from "../errors.ts";
import { isStrictDottedIpv4, ipv4ToNumber, normaliseIp } from "../ip.ts";
import { envVarNamesProblem, isHttpUrl } from "./backend.ts";
import { ApprovalTimeoutSchema } from "./approval.ts";
import type { BackendType, ConfigProblem } from "./backend.ts";

const aclText = (max = 255) => z.string().trim().max(max).default("");
/**
 * An ACL name of the vendor kinds (fortios, fortimanager Name; panos EDLName, GroupName; sophossfos
 * GroupName, GroupNameV6; azure NsgName): docs/reference.md admin-console §5 "Server-side, ACL names of other kinds
 * allow letters, numbers, underscores" ("Invalid ACL name"). "" passes here; whether the name is
 * required is `aclConfigProblem`'s rule.
 */
const vendorAclName = (max = 255) =>
  z
    .string()
    .trim()
    .max(max)
    .regex(/^[A-Za-z0-9_]*$/, Errors.invalidAclName.err)
    .default("");
/** The default table of an nftables ACL. */
const NFTABLES_DEFAULT_TABLE = "inet postern";

/**
 * A port given as a number or a numeric string, parsed to an integer 1–65535 (docs/reference.md admin-console §5 "AWS
 * Port and Azure NsgPort are parsed to integers"); `def` when absent.
 */
const portField = (def: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .regex(/^\d{1,5}$/, "must be an integer")
        .transform(Number),
    ])
    .pipe(z.number().int("must be an integer").min(1, "must be 1 to 65535").max(65535, "must be 1 to 65535"))
    .default(def);

/**
 * ACL fields of a haproxy backend: the numeric ACL id used as `#ID` on the runtime API
 * (docs/reference.md admin-console §5: required, err.aclIdRequired; a number, err.aclIdMustBeNumber).
 */
export const HaproxyAclConfigSchema = z.object({
  ID: z
    .number({
      error: (iss) =>
        iss.input === undefined || iss.input === null || iss.input === ""
          ? Errors.aclIdRequired.err
          : Errors.aclIdMustBeNumber.err,
    })
    .int(Errors.aclIdMustBeNumber.err)
    .min(0, Errors.aclIdMustBeNumber.err)
    .max(2_147_483_647, Errors.aclIdMustBeNumber.err),
});
/** ACL fields of an ipset backend: at least one set name (err.ipsetNameRequired). */
export const IpsetAclConfigSchema = z.object({
  V4SetName: z.string().trim().max(31).default(""),
  V6SetName: z.string().trim().max(31).default(""),
});
/** ACL fields of a knocproxy backend: the named ACL (letters, numbers, underscores; required). */
export const KnocproxyAclConfigSchema = z.object({ Name: aclText(128) });
/**
 * One script variable value of an ACL (docs/reference.md admin-console §3 "EnvVars as map name to Value (with encrypted
 * flag)"). On read a sealed (sensitive) value is `{Value: "", Encrypted: true}`; on write a blank
 * Value of a sealed variable keeps the stored one, and `Encrypted: true` asks for the value to be
 * sealed even when the backend does not declare the variable Sensitive.
 */
export const AclEnvVarSchema = z.object({
  Value: z.string().max(8192).default(""),
  Encrypted: z.boolean().default(false),
});
/** ACL fields of a script backend: the ACL name (letters, digits, underscore, hyphen) and variable values. */
export const ScriptAclConfigSchema = z.object({
  Name: aclText(128),
  EnvVars: z
    .record(z.string().max(128), AclEnvVarSchema)
    .refine((r) => Object.keys(r).length <= 64, "at most 64 variables")
    .default({}),
});
/** ACL fields of a fortios backend: the address group Name. */
export const FortiosAclConfigSchema = z.object({ Name: vendorAclName(128) });
/** ACL fields of a fortimanager backend (not shown by the spec): the address group Name, as for fortios. */
export const FortimanagerAclConfigSchema = z.object({ Name: vendorAclName(128) });
/**
 * ACL fields of a panos backend: GroupName (active), or EDLName for a Passive+ Knoc (the External
 * Dynamic List the firewall reads; SerialNumber names the device to refresh), MapUser, and URL
 * (the list's address, http or https).
 */
export const PanosAclConfigSchema = z.object({
  EDLName: vendorAclName(),
  GroupName: vendorAclName(),
  SerialNumber: aclText(64),
  MapUser: z.boolean().default(false),
  URL: aclText(2048),
});
/** ACL fields of a firepower backend: the network group's UUID (required). */
export const FirepowerAclConfigSchema = z.object({ GroupUUID: aclText(64) });
/** ACL fields of a sophosutm backend: the network group's reference (required). */
export const SophosutmAclConfigSchema = z.object({ GroupReference: aclText() });
/** ACL fields of a sophossfos backend: the IPv4 and IPv6 host groups (at least one). */
export const SophossfosAclConfigSchema = z.object({ GroupName: vendorAclName(), GroupNameV6: vendorAclName() });
/** ACL fields of an azure backend: the NSG rule's direction, NSG, port (default 443) and resource group (all required). */
export const AzureAclConfigSchema = z.object({
  NsgDirection: z.union([z.enum(["Inbound", "Outbound"]), z.literal("")]).default(""),
  NsgName: vendorAclName(80),
  NsgPort: portField(443),
  ResourceGroup: aclText(90),
});
/** ACL fields of an aws backend: the security group and port (default 22), both required. */
export const AwsAclConfigSchema = z.object({ SecurityGroupId: aclText(64), Port: portField(22) });

/**
 * ACL fields of an allowlist backend: the random Token in the allowlist URL, the API key allowed to
 * read it (all-zero for none), and whether reading by source address is allowed from the
 * AllowedIpAddresses prefixes.
 */
export const AllowlistAclConfigSchema = z.object({
  Token: z.string().default(""),
  ApiKeyId: z.string().default(NONE_ID),
  AllowAccessByIp: z.boolean().default(false),
  AllowedIpAddresses: z
    .array(z.object({ Prefix: z.string(), Note: z.string().default("") }))
    .max(256)
    .default([]),
});

/**
 * ACL fields of an nftables backend (docs/decisions.md "nftables backend"): the table as
 * `<family> <name>` (default `inet postern`) and its IPv4 and IPv6 sets (at least one), created by
 * hand with `flags timeout` like ipset sets.
 */
export const NftablesAclConfigSchema = z.object({
  Table: z
    .string()
    .trim()
    .max(80)
    .default(NFTABLES_DEFAULT_TABLE)
    .transform((t) => t.replace(/\s+/g, " ") || NFTABLES_DEFAULT_TABLE),
  V4SetName: z.string().trim().max(63).default(""),
  V6SetName: z.string().trim().max(63).default(""),
});

/** The schema of each backend type's ACL fields (docs/reference.md admin-console §3 table, "ACL fields"). */
export const AclTypeConfigSchemas = {
  fortios: FortiosAclConfigSchema,
  fortimanager: FortimanagerAclConfigSchema,
  azure: AzureAclConfigSchema,
  panos: PanosAclConfigSchema,
  firepower: FirepowerAclConfigSchema,
  sophosutm: SophosutmAclConfigSchema,
  sophossfos: SophossfosAclConfigSchema,
  aws: AwsAclConfigSchema,
  haproxy: HaproxyAclConfigSchema,
  knocproxy: KnocproxyAclConfigSchema,
  script: ScriptAclConfigSchema,
  ipset: IpsetAclConfigSchema,
  allowlist: AllowlistAclConfigSchema,
  nftables: NftablesAclConfigSchema,
} as const satisfies Record<BackendType, z.ZodType>;

/**
 * The ACL's Config (AclConfig): the fields of its backend type under that type's key (keyed like
 * BackendConfig), plus UriToken. The server keeps only the key of the backend's type.
 */
export const AclConfigSchema = z.object({
  UriToken: z.string().default(""),
  fortios: FortiosAclConfigSchema.optional(),
  fortimanager: FortimanagerAclConfigSchema.optional(),
  azure: AzureAclConfigSchema.optional(),
  panos: PanosAclConfigSchema.optional(),
  firepower: FirepowerAclConfigSchema.optional(),
  sophosutm: SophosutmAclConfigSchema.optional(),
  sophossfos: SophossfosAclConfigSchema.optional(),
  aws: AwsAclConfigSchema.optional(),
  haproxy: HaproxyAclConfigSchema.optional(),
  knocproxy: KnocproxyAclConfigSchema.optional(),
  script: ScriptAclConfigSchema.optional(),
  ipset: IpsetAclConfigSchema.optional(),
  allowlist: AllowlistAclConfigSchema.optional(),
  nftables: NftablesAclConfigSchema.optional(),
});
/** The ACL's Config. */
export type AclConfig = z.infer<typeof AclConfigSchema>;

const bad = (path: string, what: string): ConfigProblem => ({
  error: Errors.badRequest,
  Extra: `${path}: ${what}`,
});
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The ACL Config kept for a backend of `type`: UriToken plus that type's fields with their defaults
 * (a missing key is filled from `{}`; a haproxy ACL without ID and an allowlist ACL without its key
 * keep no type key — `aclConfigProblem` reports them). Keys of other types are dropped.
 */
export function aclConfigFor(type: BackendType, config: AclConfig): AclConfig {
  const own = config[type] ?? AclTypeConfigSchemas[type].safeParse({}).data;
  if (type === "allowlist" && !config.allowlist) return { UriToken: config.UriToken };
  return own === undefined ? { UriToken: config.UriToken } : { UriToken: config.UriToken, [type]: own };
}

/**
 * The first broken §5 rule of an ACL's Config for a backend of `type`, or null. haproxy: ID required
 * (err.aclIdRequired); knocproxy: Name required (err.aclNameRequired), letters, numbers, underscores
 * (err.invalidKnocproxyAclName); script: Name required, letters, digits, underscore, hyphen
 * (err.invalidAclName), variable names not empty (err.emptyEnvVarName), without '=' and not reserved
 * (err.invalidEnvVarName), unique after trimming (err.repeatedEnvVarNames); ipset: one set name at
 * least (err.ipsetNameRequired), names of letters, digits, `_.-` (err.invalidAclName); fortios and
 * fortimanager: Name required; panos: GroupName,
 * or EDLName for Passive+, and URL http/https; firepower GroupUUID a UUID; sophosutm GroupReference;
 * sophossfos GroupName or GroupNameV6; azure NsgDirection, NsgName, ResourceGroup; aws
 * SecurityGroupId (`sg-` and 8 or 17 hex digits); nftables Table `<family> <name>` and one set name at
 * least (names of letters, digits, `_.-`: err.invalidAclName). Other problems: "Bad request" with Extra naming
 * the field. The vendor names' characters ("Invalid ACL name") are the schemas' rule (`vendorAclName`).
 * Variable values (which depend on what is sealed) are checked by the server.
 */
export function aclConfigProblem(type: BackendType, config: AclConfig): ConfigProblem | null {
  const c = aclConfigFor(type, config);
  const p = `Config.${type}`;
  switch (type) {
    case "haproxy":
      return c.haproxy ? null : { error: Errors.aclIdRequired, Extra: `${p}.ID` };
    case "allowlist":
      return c.allowlist ? null : { error: Errors.noBackendSelected, Extra: "Config.allowlist is required" };
    case "knocproxy": {
      const name = c.knocproxy!.Name;
      if (name === "") return { error: Errors.aclNameRequired, Extra: `${p}.Name` };
      return /^[A-Za-z0-9_]+$/.test(name) ? null : { error: Errors.invalidKnocproxyAclName, Extra: `${p}.Name` };
    }
    case "script": {
      const s = c.script!;
      if (s.Name === "") return { error: Errors.aclNameRequired, Extra: `${p}.Name` };
      if (!/^[A-Za-z0-9_-]+$/.test(s.Name)) return { error: Errors.invalidAclNameKey, Extra: `${p}.Name` };
      return envVarNamesProblem(
        Object.keys(s.EnvVars).map((n) => n.trim()),
        `${p}.EnvVars`,
      );
    }
    case "ipset": {
      const v = c.ipset!;
      if (!v.V4SetName && !v.V6SetName) return { error: Errors.ipsetNameRequired };
      for (const name of [v.V4SetName, v.V6SetName]) {
        if (name && !/^[A-Za-z0-9_.-]{1,31}$/.test(name)) return { error: Errors.invalidAclNameKey, Extra: name };
      }
      return null;
    }
    case "fortios":
    case "fortimanager": {
      return c[type]!.Name === "" ? { error: Errors.aclNameRequired, Extra: `${p}.Name` } : null;
    }
    case "panos": {
      const v = c.panos!;
      if (v.EDLName === "" && v.GroupName === "") return bad(`${p}.GroupName`, "required (or EDLName for Passive+)");
      if (v.URL !== "" && !isHttpUrl(v.URL)) return { error: Errors.urlMustBeHttp, Extra: `${p}.URL` };
      return null;
    }
    case "firepower": {
      const id = c.firepower!.GroupUUID;
      if (id === "") return bad(`${p}.GroupUUID`, "required");
      return UUID_RE.test(id) ? null : bad(`${p}.GroupUUID`, "must be a UUID");
    }
    case "sophosutm":
      return c.sophosutm!.GroupReference === "" ? bad(`${p}.GroupReference`, "required") : null;
    case "sophossfos": {
      const v = c.sophossfos!;
      return v.GroupName === "" && v.GroupNameV6 === ""
        ? bad(`${p}.GroupName`, "GroupName or GroupNameV6 required")
        : null;
    }
    case "azure": {
      const v = c.azure!;
      if (v.NsgDirection === "") return bad(`${p}.NsgDirection`, "required");
      if (v.NsgName === "") return bad(`${p}.NsgName`, "required");
      if (v.ResourceGroup === "") return bad(`${p}.ResourceGroup`, "required");
      return null;
    }
    case "nftables": {
      const v = c.nftables!;
      if (!/^(ip|ip6|inet) [A-Za-z0-9_.-]{1,63}$/.test(v.Table))
        return bad(`${p}.Table`, "must be a family (ip, ip6 or inet) and a table name, e.g. inet postern");
      if (!v.V4SetName && !v.V6SetName) return bad(`${p}.V4SetName`, "V4SetName or V6SetName required");
      for (const name of [v.V4SetName, v.V6SetName]) {
        if (name && !/^[A-Za-z0-9_.-]{1,63}$/.test(name)) return { error: Errors.invalidAclNameKey, Extra: name };
      }
      return null;
    }
    case "aws": {
      const id = c.aws!.SecurityGroupId;
      if (id === "") return bad(`${p}.SecurityGroupId`, "required");
      return /^sg-([0-9a-f]{8}|[0-9a-f]{17})$/.test(id)
        ? null
        : bad(`${p}.SecurityGroupId`, "must be a security group id (sg-...)");
    }
  }
}

/**
 * An IP range of IpExclusions (docs/reference.md admin-console §5): Start and End both or neither, each a dotted IPv4
 * address (four parts 0–255, no leading zeros), Start not after End; else "Invalid IP address".
 * A range with both empty is dropped.
 */
export const IpRangeSchema = z
  .object({ Start: z.string().trim().default(""), End: z.string().trim().default("") })
  .refine(
    (r) =>
      (r.Start === "" && r.End === "") ||
      (isStrictDottedIpv4(r.Start) && isStrictDottedIpv4(r.End) && ipv4ToNumber(r.Start) <= ipv4ToNumber(r.End)),
    Errors.invalidIpAddress.err,
  );

/** IpExclusions (docs/reference.md admin-console §3): which user addresses a grant may carry. */
export const IpExclusionsSchema = z.object({
  RestrictionType: z.enum(["none", "RFC1918", "allowList", "denyList"]).default("none"),
  RfcType: z.enum(["allow", "deny"]).default("allow"),
  Ranges: z
    .array(IpRangeSchema)
    .max(256)
    .default([])
    .transform((ranges) => ranges.filter((r) => r.Start !== "")),
});
/** IpExclusions. */
export type IpExclusions = z.infer<typeof IpExclusionsSchema>;

/**
 * GrantType (docs/reference.md admin-console §3): the user's address, or fixed addresses. Every fixed address must be
 * an IPv4 or IPv6 address ("Invalid IP address"); specifiedIps needs at least one.
 */
export const GrantTypeSchema = z
  .object({
    Type: z.enum(["userIp", "specifiedIps"]).default("userIp"),
    Ips: z
      .array(
        z.object({
          Ip: z
            .string()
            .trim()
            .refine((ip) => normaliseIp(ip) !== null, Errors.invalidIpAddress.err),
        }),
      )
      .max(256)
      .default([]),
  })
  .refine((g) => g.Type !== "specifiedIps" || g.Ips.length > 0, {
    message: Errors.invalidIpAddress.err,
    path: ["Ips"],
  });
/** GrantType. */
export type GrantType = z.infer<typeof GrantTypeSchema>;

/**
 * POST/PUT /api/admin/acls body. MaximumGrantDuration is in seconds (minutes × 60), null for
 * unlimited, and must correspond to 5–40320 minutes.
 */
export const AclWriteSchema = z.object({
  ID: IdSchema.optional(),
  Description: z.string().trim().min(1),
  URL: z.string().default(""),
  Category: z
    .string()
    .trim()
    .default("Default")
    .transform((c) => c || "Default"),
  Icon: z.string().default(""),
  ClickToGrant: z.boolean().default(false),
  CGNATOpen: z.boolean().default(false),
  HideFromUsers: z.boolean().default(false),
  HideFromAdmins: z.boolean().default(false),
  AutoBrowseUsers: z.boolean().default(false),
  MaximumGrantDuration: z
    .number(Errors.invalidMaximumGrantDuration.err)
    .int(Errors.invalidMaximumGrantDuration.err)
    .min(Limits.maximumGrantDurationMinMinutes * 60, Errors.invalidMaximumGrantDuration.err)
    .max(Limits.maximumGrantDurationMaxMinutes * 60, Errors.invalidMaximumGrantDuration.err)
    .multipleOf(60, Errors.invalidMaximumGrantDuration.err)
    .nullable()
    .default(null),
  BackendID: IdSchema,
  ParentID: IdSchema.default(NONE_ID),
  IpExclusions: IpExclusionsSchema.default({ RestrictionType: "none", RfcType: "allow", Ranges: [] }),
  GrantType: GrantTypeSchema.default({ Type: "userIp", Ips: [] }),
  Config: AclConfigSchema.default({ UriToken: "" }),
  /**
   * Grants wait for an approver (docs/decisions.md "Approval requests"); absent: false. An update that leaves
   * the three approval fields out keeps the stored ones (the Knoc wizard's write does not carry them).
   */
  RequiresApproval: z.boolean().optional(),
  /** Groups whose members may approve besides the admins (absent: none). */
  ApproverGroupIDs: z.array(IdSchema).max(100).optional(),
  /** How long a request waits for an answer, SECONDS (5 s to 7 days; absent: APPROVAL_TIMEOUT_DEFAULT_SECONDS). */
  ApprovalTimeout: ApprovalTimeoutSchema.optional(),
});
/** POST/PUT /api/admin/acls body. */
export type AclWrite = z.infer<typeof AclWriteSchema>;

/** An ACL as admins read it (the approval fields always present). */
export type Acl = Omit<AclWrite, "ID" | "RequiresApproval" | "ApproverGroupIDs" | "ApprovalTimeout"> & {
  RequiresApproval: boolean;
  ApproverGroupIDs: string[];
  ApprovalTimeout: number;
  ID: string;
  Name: string;
  Children: string[];
  BackendName: string;
  AgentID: string;
  LastModifiedAt: string;
  LastModifiedBy: string;
};

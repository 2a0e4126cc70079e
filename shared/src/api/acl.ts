/**
 * ACLs / Knocs (admin-console §3 "Knoc (ACL)", §7 "ACL" payload, §5 validation).
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { NONE_ID, Limits } from "../limits.ts";
import { ServerMessage } from "../errors.ts";
import { isStrictDottedIpv4, ipv4ToNumber, normaliseIp } from "../ip.ts";

/** ACL fields of a haproxy backend: the numeric ACL id used as `#ID` on the runtime API. */
export const HaproxyAclConfigSchema = z.object({ ID: z.number().int().min(0) });
/** ACL fields of an ipset backend: at least one set name (err.ipsetNameRequired). */
export const IpsetAclConfigSchema = z.object({
  V4SetName: z.string().trim().max(31).default(""),
  V6SetName: z.string().trim().max(31).default(""),
});

/**
 * ACL fields of an allowlist backend: the random Token in the allowlist URL, the API key allowed to
 * read it (all-zero for none), and whether reading by source address is allowed from the
 * AllowedIpAddresses prefixes.
 */
export const AllowlistAclConfigSchema = z.object({
  Token: z.string().default(""),
  ApiKeyId: z.string().default(NONE_ID),
  AllowAccessByIp: z.boolean().default(false),
  AllowedIpAddresses: z.array(z.object({ Prefix: z.string(), Note: z.string().default("") })).max(256).default([]),
});

/** The ACL's Config (AclConfig): the fields of its backend type under that type's key, plus UriToken. */
export const AclConfigSchema = z.object({
  UriToken: z.string().default(""),
  haproxy: HaproxyAclConfigSchema.optional(),
  ipset: IpsetAclConfigSchema.optional(),
  allowlist: AllowlistAclConfigSchema.optional(),
});
/** The ACL's Config. */
export type AclConfig = z.infer<typeof AclConfigSchema>;

/**
 * An IP range of IpExclusions (admin-console §5): Start and End both or neither, each a dotted IPv4
 * address (four parts 0–255, no leading zeros), Start not after End; else "Invalid IP address".
 * A range with both empty is dropped.
 */
export const IpRangeSchema = z
  .object({ Start: z.string().trim().default(""), End: z.string().trim().default("") })
  .refine((r) => (r.Start === "" && r.End === "") || (isStrictDottedIpv4(r.Start) && isStrictDottedIpv4(r.End) && ipv4ToNumber(r.Start) <= ipv4ToNumber(r.End)), ServerMessage.invalidIpAddress);

/** IpExclusions (admin-console §3): which user addresses a grant may carry. */
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
 * GrantType (admin-console §3): the user's address, or fixed addresses. Every fixed address must be
 * an IPv4 or IPv6 address ("Invalid IP address"); specifiedIps needs at least one.
 */
export const GrantTypeSchema = z
  .object({
    Type: z.enum(["userIp", "specifiedIps"]).default("userIp"),
    Ips: z
      .array(z.object({ Ip: z.string().trim().refine((ip) => normaliseIp(ip) !== null, ServerMessage.invalidIpAddress) }))
      .max(256)
      .default([]),
  })
  .refine((g) => g.Type !== "specifiedIps" || g.Ips.length > 0, { message: ServerMessage.invalidIpAddress, path: ["Ips"] });
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
  Category: z.string().trim().default("Default").transform((c) => c || "Default"),
  Icon: z.string().default(""),
  ClickToGrant: z.boolean().default(false),
  CGNATOpen: z.boolean().default(false),
  HideFromUsers: z.boolean().default(false),
  HideFromAdmins: z.boolean().default(false),
  AutoBrowseUsers: z.boolean().default(false),
  MaximumGrantDuration: z
    .number(ServerMessage.invalidMaximumGrantDuration)
    .int(ServerMessage.invalidMaximumGrantDuration)
    .min(Limits.maximumGrantDurationMinMinutes * 60, ServerMessage.invalidMaximumGrantDuration)
    .max(Limits.maximumGrantDurationMaxMinutes * 60, ServerMessage.invalidMaximumGrantDuration)
    .multipleOf(60, ServerMessage.invalidMaximumGrantDuration)
    .nullable()
    .default(null),
  BackendID: IdSchema,
  ParentID: IdSchema.default(NONE_ID),
  IpExclusions: IpExclusionsSchema.default({ RestrictionType: "none", RfcType: "allow", Ranges: [] }),
  GrantType: GrantTypeSchema.default({ Type: "userIp", Ips: [] }),
  Config: AclConfigSchema.default({ UriToken: "" }),
});
/** POST/PUT /api/admin/acls body. */
export type AclWrite = z.infer<typeof AclWriteSchema>;

/** An ACL as admins read it. */
export type Acl = Omit<AclWrite, "ID"> & {
  ID: string;
  Name: string;
  Children: string[];
  BackendName: string;
  AgentID: string;
  LastModifiedAt: string;
  LastModifiedBy: string;
};

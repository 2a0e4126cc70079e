/**
 * The user-side calls (docs/reference.md user-portal §7) and the session-user status (docs/reference.md user-portal §3).
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { SHOWN_APPROVAL_STATES, ApprovalReasonSchema } from "./approval.ts";

/** POST /api/login body (docs/reference.md user-portal §7). */
export const LoginRequestSchema = z.object({
  UserName: z.string().min(1, "You must specify a username"),
  Password: z.string().min(1),
  KioskMode: z.boolean().optional().default(false),
});
/** POST /api/login body (docs/reference.md user-portal §7). */
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

/** One discovered or requested address: `{Port, IP}` (docs/reference.md user-portal §3 "Grant payload"). */
export const PortIpSchema = z.object({ Port: z.number().int().min(0).max(65535).default(0), IP: z.string().min(1) });
/** One discovered or requested address. */
export type PortIp = z.infer<typeof PortIpSchema>;

/**
 * POST /api/grant body: `{ACLID, IPs[{Port, IP}]}` (docs/reference.md user-portal §7), and `Reason`, what the user
 * tells the approvers of a Knoc that RequiresApproval (ignored by other Knocs; docs/decisions.md "Approval requests").
 */
export const GrantRequestSchema = z.object({
  ACLID: IdSchema,
  IPs: z.array(PortIpSchema).max(16).default([]),
  Reason: ApprovalReasonSchema.optional(),
});
/** POST /api/grant body. */
export type GrantRequest = z.infer<typeof GrantRequestSchema>;

/** POST /api/log_ips body: the addresses the IP-discovery endpoint reported on each port. */
export const LogIpsRequestSchema = z.object({ IPs: z.array(PortIpSchema).max(16) });
/** POST /api/log_ips body. */
export type LogIpsRequest = z.infer<typeof LogIpsRequestSchema>;

/** One ACL entry of the session status (docs/reference.md user-portal §3). `ID` is the status entry's id. */
export const StatusAclSchema = z.object({
  ID: IdSchema,
  ACLID: IdSchema,
  ParentID: IdSchema,
  Description: z.string(),
  URL: z.string(),
  Icon: z.string(),
  Category: z.string(),
  Status: z.number().int(),
  Error: z.string(),
  /** ISO time at which the current grant ends; empty when nothing is granted. */
  ExpiredAfter: z.string(),
  ClickToGrant: z.boolean(),
  CGNATOpen: z.boolean(),
  HideFromUsers: z.boolean(),
  DisableForUser: z.boolean(),
  GrantTypeFixedIps: z.boolean(),
  AutoBrowseUsers: z.boolean(),
  Config: z.object({ UriToken: z.string() }),
  /**
   * Approval requests (docs/decisions.md "Approval requests"), present only on Knocs that RequiresApproval
   * (or that have a request): `ApprovalState` of the latest request (null when none to show; "pending" holds
   * the entry at Status 2), `ApprovalReason` a denial's reason, `ApprovalExpires` (ISO) when a pending one expires.
   */
  RequiresApproval: z.boolean().optional(),
  ApprovalState: z.enum(SHOWN_APPROVAL_STATES).nullable().optional(),
  ApprovalReason: z.string().optional(),
  ApprovalExpires: z.string().optional(),
});
/** One ACL entry of the session status. */
export type StatusAcl = z.infer<typeof StatusAclSchema>;

/** GET /api/status response: the session user (docs/reference.md user-portal §3). Times are ISO 8601 UTC. */
export const SessionStatusSchema = z.object({
  Name: z.string(),
  CurrentAddress: z.string(),
  Ends: z.string(),
  ValidUntil: z.string().nullable(),
  Licensed: z.boolean(),
  UserLicensed: z.boolean(),
  NewUserDashboard: z.boolean(),
  AuthType: z.string(),
  AutoBrowseToURI: z.string(),
  ACLs: z.array(StatusAclSchema),
});
/** GET /api/status response. */
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/**
 * GET /api/system_status response (docs/reference.md user-portal §3). `IPApi`: the IP-discovery URL ("" when
 * discovery is off); `IPApiPorts`: the ports the browser asks it on (its port replaced by each),
 * [] meaning the URL as written; `JsBundleHash`: the running web bundle's hash.
 */
export const SystemStatusSchema = z.object({
  IPApi: z.string(),
  IPApiPorts: z.array(z.number().int().min(1).max(65535)),
  JsBundleHash: z.string(),
});
/** GET /api/system_status response. */
export type SystemStatus = z.infer<typeof SystemStatusSchema>;

/** Theme accents (docs/reference.md user-portal §1). */
export const AccentSchema = z.enum(["teal", "grape", "iceberg", "rose", "offsite"]);
/** GET /api/theme response. */
export const ThemeSchema = z.object({ Accent: AccentSchema, HighAccessibility: z.boolean() });
/** GET /api/theme response. */
export type Theme = z.infer<typeof ThemeSchema>;

/**
 * GET /api/admin/status (docs/reference.md admin-console §3 "Admin status", §2 "Admin home" and banner): counts,
 * recent activity, versions and licensing.
 */
import { z } from "zod";
import { AuditEntryDetailSchema } from "./logs.ts";
import { LicensingSchema } from "./license.ts";

/** The oldest agent version this server works with (agents below it are "incompatible", docs/reference.md admin-console §4). */
export const MINIMUM_REQUIRED_AGENT_VERSION = "1.9.0";

/** A release offered for update, with its urgency (critical, high, medium, low). */
export const AvailableVersionSchema = z.object({
  version: z.string(),
  urgency: z.enum(["critical", "high", "medium", "low"]),
  description: z.string().optional(),
  changelog_link: z.string().optional(),
});

/** GET /api/admin/status response. */
export const AdminStatusSchema = z.object({
  /** Live user sessions. */
  SessionCount: z.number().int(),
  /** ACLs shown to admins (hidden Passive+ children excluded). */
  ACLCount: z.number().int(),
  /** Users (admins are never counted). */
  UserCount: z.number().int(),
  /** The most recent audit entries, newest first. */
  Activity: z.array(z.object({ Entry: AuditEntryDetailSchema, Date: z.string() })),
  Cloud: z.boolean(),
  ServerVersion: z.string(),
  AvailableServerVersions: z.array(AvailableVersionSchema),
  AvailableAgentVersions: z.array(AvailableVersionSchema),
  MinimumRequiredAgentVersion: z.string(),
  LatestChangeLogsUrl: z.string(),
  ExperimentalFeatures: z.array(z.string()),
  /** null when no licence is installed. */
  Licensing: LicensingSchema.nullable(),
});
/** GET /api/admin/status response. */
export type AdminStatus = z.infer<typeof AdminStatusSchema>;

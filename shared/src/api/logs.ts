/**
 * The audit log as the admin API carries it (docs/reference.md admin-console §2 "Audit logs", §3 "Audit log entry",
 * §7 "GET /admin/logs returns a list of entries", §9 "Audit log page size 25; Clear logs acts on a
 * 30-day window").
 *
 * An entry on the wire is `{ID, Date, Entry}`: `ID` the entry's sequence number (a positive integer,
 * increasing in the order entries were written), `Date` ISO 8601 UTC, and `Entry` the action kind
 * (`Action`) with the details it holds. "Entry is keyed by an action kind and may hold UserName,
 * AdminName, ..." is read as: `Action` is always present and names the kind; the seven detail fields
 * are present only when the entry holds them (never as empty strings).
 */
import { z } from "zod";
import { IsoTimeSchema } from "../common.ts";
import { Limits } from "../limits.ts";

/** Limits of the audit log API. Page sizes count entries; the clear window is in days. */
export const AuditLogLimits = {
  /** Entries per page when `pageSize` is not given (docs/reference.md admin-console §9: 25). */
  defaultPageSize: Limits.auditLogPageSize,
  /** Largest `pageSize` accepted. */
  maxPageSize: 200,
  /** Largest `page` accepted (deeper pages are refused rather than scanned). */
  maxPage: 1_000_000,
  /** Longest `search` term, in characters. */
  maxSearchLength: 200,
  /** DELETE /admin/logs removes entries older than this many days (docs/reference.md admin-console §9: 30). */
  clearOlderThanDays: 30,
} as const;

/** Response headers of GET /api/admin/logs carrying the paging (the body stays a bare array). */
export const AuditLogHeaders = {
  /** Entries matching the search, over all pages. */
  totalCount: "X-Total-Count",
  /** The page answered, from 1. */
  page: "X-Page",
  /** Entries per page used. */
  pageSize: "X-Page-Size",
} as const;

/**
 * `Entry` of an audit log entry: the action kind (docs/reference.md admin-console §3: user or admin logged in/out,
 * session deleted or expired, user IP changed, grant error, grant expired, revoke error, clicked to
 * grant or revoke, create/update/delete of ACL, group, user, admin, agent, API key, Knoc, TOTP resets,
 * admin auto-created; the server adds a few more, e.g. `auditLogCleared`) and the details it holds.
 * `Action` is a string, not an enum, so that a reader keeps working when a server adds a kind.
 */
export const AuditEntryDetailSchema = z.object({
  Action: z.string().min(1),
  UserName: z.string().optional(),
  AdminName: z.string().optional(),
  AgentName: z.string().optional(),
  IpAddress: z.string().optional(),
  ErrorMessage: z.string().optional(),
  AclDescription: z.string().optional(),
  Description: z.string().optional(),
});
/** `Entry` of an audit log entry. */
export type AuditEntryDetail = z.infer<typeof AuditEntryDetailSchema>;

/** One audit log entry: sequence number, ISO time (UTC) and the entry itself. */
export const AuditLogEntrySchema = z.object({
  ID: z.number().int().positive(),
  Date: IsoTimeSchema,
  Entry: AuditEntryDetailSchema,
});
/** One audit log entry. */
export type AuditLogEntry = z.infer<typeof AuditLogEntrySchema>;

/** GET /api/admin/logs response body: one page of entries, newest first. */
export const AuditLogPageSchema = z.array(AuditLogEntrySchema);
/** GET /api/admin/logs response body. */
export type AuditLogPage = z.infer<typeof AuditLogPageSchema>;

const wholeNumber = (name: string, min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `${name} must be a whole number from ${min} to ${max}`);

/**
 * Query of GET /api/admin/logs (`page`, `pageSize`, `search`) and GET /api/admin/logs/export
 * (`search` only is used). `page` counts from 1 (default 1); `pageSize` 1–200 (default 25); `search`
 * is trimmed, at most 200 characters, and matched case-insensitively as a plain substring (no
 * wildcards) against the action kind, the user, admin and agent names, the IP address, the ACL
 * description, the description and the error message. Other query parameters are ignored.
 */
export const AuditLogQuerySchema = z.object({
  page: wholeNumber("page", 1, AuditLogLimits.maxPage).optional().default(1),
  pageSize: wholeNumber("pageSize", 1, AuditLogLimits.maxPageSize).optional().default(AuditLogLimits.defaultPageSize),
  search: z
    .string()
    .max(AuditLogLimits.maxSearchLength, `search must be at most ${AuditLogLimits.maxSearchLength} characters`)
    .optional()
    .default("")
    .transform((s) => s.trim()),
});
/** Parsed query of GET /api/admin/logs. */
export type AuditLogQuery = z.infer<typeof AuditLogQuerySchema>;

/** DELETE /api/admin/logs response: how many entries older than 30 days were removed. */
export const AuditLogClearedSchema = z.object({ Removed: z.number().int().nonnegative() });
/** DELETE /api/admin/logs response. */
export type AuditLogCleared = z.infer<typeof AuditLogClearedSchema>;

/**
 * Columns of the CSV export, in order (the header row). `Date` is ISO 8601 UTC; the others are the
 * entry's fields ("" when the entry does not hold them).
 */
export const AuditLogCsvColumns = [
  "ID",
  "Date",
  "Action",
  "UserName",
  "AdminName",
  "AgentName",
  "IpAddress",
  "AclDescription",
  "Description",
  "ErrorMessage",
] as const;

/** File name of the CSV export: `<YYYY-MM-DD>-postern-audit.csv` for the given time (UTC day). */
export function auditLogCsvFileName(at: Date): string {
  return `${at.toISOString().slice(0, 10)}-postern-audit.csv`;
}

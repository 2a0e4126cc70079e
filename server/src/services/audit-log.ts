/**
 * The audit log's read side (docs/reference.md admin-console §2 "Audit logs", §3 "Audit log entry", §7 GET
 * /admin/logs, §9 "Audit log page size 25; Clear logs acts on a 30-day window"): paged search newest
 * first, the 30-day clear (itself audited in the same transaction), and the CSV export streamed row
 * batch by row batch through csv-stringify.
 */
import { Readable, pipeline } from "node:stream";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { stringify } from "csv-stringify";
import { AuditLogCsvColumns, AuditLogLimits } from "@postern/shared";
import type { AuditEntryDetail, AuditLogEntry, AuditLogQuery } from "@postern/shared";
import { iso } from "../clock.ts";
import * as auditRepo from "../repositories/audit.ts";
import type { AuditRow } from "../repositories/audit.ts";
import type { Actor } from "./agents.ts";
import { AuditAction, writeAudit } from "./audit.ts";
import { Service } from "./service.ts";

/** One day in milliseconds. */
const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows read per query while streaming the CSV export. */
export const CSV_BATCH_ROWS = 1000;

/** One page of the audit log and the paging that goes into the response headers. */
export interface AuditLogPageResult {
  /** The entries of the page, newest first. */
  entries: AuditLogEntry[];
  /** Entries matching the search over all pages. */
  total: number;
  /** The page answered, from 1. */
  page: number;
  /** Entries per page used. */
  pageSize: number;
}

/**
 * An audit row as the wire carries it: `{ID, Date (ISO UTC), Entry: {Action, ...details}}`. Detail
 * fields the row does not hold (stored as "") are left out.
 */
export function auditEntryToWire(row: AuditRow): AuditLogEntry {
  const entry: AuditEntryDetail = { Action: row.action };
  if (row.userName) entry.UserName = row.userName;
  if (row.adminName) entry.AdminName = row.adminName;
  if (row.agentName) entry.AgentName = row.agentName;
  if (row.ipAddress) entry.IpAddress = row.ipAddress;
  if (row.errorMessage) entry.ErrorMessage = row.errorMessage;
  if (row.aclDescription) entry.AclDescription = row.aclDescription;
  if (row.description) entry.Description = row.description;
  return { ID: row.id, Date: iso(row.at) ?? "", Entry: entry };
}

/**
 * Makes a CSV cell safe against formula injection (OWASP "CSV Injection"): a value starting with
 * `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading single quote, so spreadsheets show it
 * as text instead of evaluating it. Other values are returned unchanged.
 */
export function csvSafe(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** One CSV record (keyed by `AuditLogCsvColumns`) of an audit row; every text cell made `csvSafe`. */
export function auditCsvRecord(row: AuditRow): Record<(typeof AuditLogCsvColumns)[number], string> {
  return {
    ID: String(row.id),
    Date: iso(row.at) ?? "",
    Action: csvSafe(row.action),
    UserName: csvSafe(row.userName),
    AdminName: csvSafe(row.adminName),
    AgentName: csvSafe(row.agentName),
    IpAddress: csvSafe(row.ipAddress),
    AclDescription: csvSafe(row.aclDescription),
    Description: csvSafe(row.description),
    ErrorMessage: csvSafe(row.errorMessage),
  };
}

/** Reads, clears and exports the audit log. Authorisation (admin only) is the route's guard. */
export class AuditLogService extends Service {
  /**
   * One page of the entries matching `query.search` (case-insensitive literal substring of the
   * action kind, names, IP address, ACL description, description or error message), newest first.
   * A page past the last answers no entries (not an error); `total` says how many there are.
   */
  async list(query: AuditLogQuery): Promise<AuditLogPageResult> {
    const { page, pageSize, search } = query;
    const total = await auditRepo.countAuditEntries(this.db, search);
    const rows = await auditRepo.listAuditEntries(this.db, { search, limit: pageSize, offset: (page - 1) * pageSize });
    return { entries: rows.map(auditEntryToWire), total, page, pageSize };
  }

  /**
   * DELETE /admin/logs: removes the entries older than 30 days (written before now − 30 × 24 h) and
   * records the clear as an `auditLogCleared` entry in the same transaction. Returns how many
   * entries were removed.
   */
  async clear(actor: Actor): Promise<number> {
    const now = this.clock.now();
    const cutoff = now - AuditLogLimits.clearOlderThanDays * DAY_MS;
    return await this.db.transaction(async (tx) => {
      const removed = await auditRepo.deleteAuditEntriesBefore(tx, cutoff);
      await writeAudit(tx, {
        action: AuditAction.auditLogCleared,
        at: now,
        adminName: actor.adminName,
        ipAddress: actor.ip,
        description: `Removed ${removed} entries older than ${AuditLogLimits.clearOlderThanDays} days (before ${iso(cutoff)})`,
      });
      return removed;
    });
  }

  /**
   * The CSV export of every entry matching `search` ("" = all), newest first: a header row
   * (`AuditLogCsvColumns`), RFC 4180 quoting by csv-stringify (any cell with a line break, comma or
   * quote is quoted), CRLF line ends, ISO dates, cells made
   * `csvSafe`. Rows are read `CSV_BATCH_ROWS` at a time as the consumer pulls, so memory stays
   * bounded; a read error ends the stream with that error.
   */
  exportCsv(search: string): Readable {
    const db = this.db;
    async function* records() {
      let after: { at: number; id: number } | null = null;
      for (;;) {
        const rows = await auditRepo.auditEntriesOlderThan(db, { search, after, limit: CSV_BATCH_ROWS });
        for (const row of rows) yield auditCsvRecord(row);
        const last = rows.at(-1);
        if (!last || rows.length < CSV_BATCH_ROWS) return;
        after = { at: last.at, id: last.id };
        await yieldToLoop();
      }
    }
    // csv-stringify quotes a cell holding the record delimiter (CRLF) but not a lone LF or CR:
    // quote those too, or readers would split the record there.
    const csv = stringify({
      header: true,
      columns: [...AuditLogCsvColumns],
      record_delimiter: "\r\n",
      quoted_match: /[\r\n]/,
    });
    return pipeline(Readable.from(records()), csv, () => undefined);
  }
}

/**
 * Audit entries as GELF 1.1 messages (docs/reference.md admin-console §5 "Logging ... log listener", §3
 * GELFListenerURL). A message carries `version`, `host`, `short_message`, `timestamp` (epoch seconds
 * with the milliseconds as fraction), `level` (syslog severity) and the entry's fields as additional
 * fields: `_audit_id`, `_action`, `_user_name`, `_admin_name`, `_agent_name`, `_ip_address`,
 * `_error_message`, `_acl_description`, `_description` (empty ones left out), plus
 * `_application: "postern"`.
 */
import type { AuditRow } from "../../repositories/audit.ts";

/** Largest encoded message in bytes (UTF-8 JSON): one UDP datagram without GELF chunking. */
export const GELF_MAX_BYTES = 8192;
/** Longest text field before the size limit is even considered, in characters. */
export const GELF_MAX_FIELD_CHARS = 2048;

/** Syslog severities used as GELF `level`. */
export const GelfLevel = { error: 3, warning: 4, informational: 6 } as const;

/** A GELF 1.1 message. Additional fields start with `_`. */
export interface GelfMessage {
  version: "1.1";
  host: string;
  short_message: string;
  /** Epoch seconds, milliseconds as the fraction. */
  timestamp: number;
  level: number;
  [additional: `_${string}`]: string | number;
}

/**
 * The syslog severity of an entry: 3 (error) for grant/revoke errors and any entry holding an error
 * message, 4 (warning) for refused sign-ins and refused API-key or allowlist access, 6 (informational)
 * otherwise.
 */
export function gelfLevel(row: Pick<AuditRow, "action" | "errorMessage">): number {
  if (row.errorMessage !== "" || /Error$/.test(row.action)) return GelfLevel.error;
  if (/(LoginFailed|AccessDenied)$/.test(row.action)) return GelfLevel.warning;
  return GelfLevel.informational;
}

/** A one-line summary: the action kind and who/what/where, e.g. `clickedToGrant user=alice acl=Intranet ip=203.0.113.5`. */
export function gelfShortMessage(row: AuditRow): string {
  const parts: string[] = [row.action];
  const add = (key: string, value: string) => {
    if (value !== "") parts.push(`${key}=${value}`);
  };
  add("user", row.userName);
  add("admin", row.adminName);
  add("agent", row.agentName);
  add("acl", row.aclDescription);
  add("ip", row.ipAddress);
  add("error", row.errorMessage);
  return parts.join(" ").replace(/[\r\n]+/g, " ");
}

/** Cuts `s` to at most `chars` code points, marking a cut with "…". */
function cut(s: string, chars: number): string {
  const points = Array.from(s);
  return points.length <= chars ? s : `${points.slice(0, Math.max(0, chars - 1)).join("")}…`;
}

/** The GELF message of an audit row, fields cut to `GELF_MAX_FIELD_CHARS` (not yet to the byte limit). */
export function gelfMessage(row: AuditRow, host: string): GelfMessage {
  const msg: GelfMessage = {
    version: "1.1",
    host: cut(host, 255),
    short_message: cut(gelfShortMessage(row), GELF_MAX_FIELD_CHARS),
    timestamp: row.at / 1000,
    level: gelfLevel(row),
    _application: "postern",
    _audit_id: row.id,
    _action: cut(row.action, GELF_MAX_FIELD_CHARS),
  };
  const fields: [`_${string}`, string][] = [
    ["_user_name", row.userName],
    ["_admin_name", row.adminName],
    ["_agent_name", row.agentName],
    ["_ip_address", row.ipAddress],
    ["_error_message", row.errorMessage],
    ["_acl_description", row.aclDescription],
    ["_description", row.description],
  ];
  for (const [key, value] of fields) if (value !== "") msg[key] = cut(value, GELF_MAX_FIELD_CHARS);
  return msg;
}

const byteLength = (s: string) => Buffer.byteLength(s, "utf8");

/**
 * Encodes a message as JSON of at most `maxBytes` UTF-8 bytes (default 8 KB): while it is too long,
 * the longest text field (short_message or an additional text field) is halved, marked with "…".
 * The loop is bounded; should the message still be too long, only the identifying fields are kept.
 * JSON escapes control characters, so the result never holds a raw NUL (the TCP frame delimiter).
 */
export function encodeGelf(msg: GelfMessage, maxBytes: number = GELF_MAX_BYTES): string {
  const m: GelfMessage = { ...msg };
  for (let round = 0; round < 128; round++) {
    const json = JSON.stringify(m);
    if (byteLength(json) <= maxBytes) return json;
    let longest: string | null = null;
    let longestLen = 0;
    for (const [key, value] of Object.entries(m)) {
      if ((key === "short_message" || key.startsWith("_")) && typeof value === "string" && value.length > longestLen) {
        longest = key;
        longestLen = value.length;
      }
    }
    if (longest === null || longestLen <= 8) break;
    const value = m[longest as "short_message"];
    m[longest as "short_message"] = cut(value, Math.floor(Array.from(value).length / 2));
  }
  const minimal: GelfMessage = {
    version: "1.1",
    host: cut(msg.host, 64),
    short_message: cut(msg.short_message, 64),
    timestamp: msg.timestamp,
    level: msg.level,
  };
  if (msg._audit_id !== undefined) minimal._audit_id = msg._audit_id;
  if (typeof msg._action === "string") minimal._action = cut(msg._action, 64);
  return JSON.stringify(minimal);
}

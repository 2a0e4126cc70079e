/**
 * The XML of the Sophos Firewall (SFOS) API (`shared/vendors.md` §6): escaping for the requests the
 * driver writes, and the parse of the `<Response>` it gets back (fast-xml-parser), with the entities
 * the driver reads (`IPHost`, `IPHostGroup`, `Host`) always as lists.
 */
import { XMLParser } from "fast-xml-parser";

/** XML-escapes a text value. */
export function sfosEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);
}

/** A `<Status code="…">text</Status>` (or a bare text Status, code ""). */
export interface SfosStatus {
  readonly code: string;
  readonly text: string;
}

/** One entity of a response (`IPHost`, `IPHostGroup`): its fields as parsed, and its Status when present. */
export type SfosEntity = Record<string, unknown> & { Status?: unknown };

/** The parsed `<Response>`: its top-level Status, its Login status, and the entities by tag. */
export interface SfosResponse {
  readonly status?: SfosStatus;
  readonly login?: string;
  readonly entities: Readonly<Record<string, SfosEntity[]>>;
}

const LISTS = new Set(["IPHost", "IPHostGroup", "Host"]);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => LISTS.has(name),
});

/** The Status of an entity or response, or undefined. */
export function sfosStatus(value: unknown): SfosStatus | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return { code: "", text: value };
  const v = value as Record<string, unknown>;
  return { code: String(v["@code"] ?? ""), text: String(v["#text"] ?? "") };
}

/** Parses a response body. @throws Error when it is not an SFOS `<Response>`. */
export function parseSfosResponse(xml: string): SfosResponse {
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(xml) as Record<string, unknown>;
  } catch {
    throw new Error("the answer is not XML");
  }
  const r = doc["Response"];
  if (!r || typeof r !== "object") throw new Error("the answer has no <Response>");
  const response = r as Record<string, unknown>;
  const entities: Record<string, SfosEntity[]> = {};
  for (const tag of LISTS) {
    const v = response[tag];
    if (Array.isArray(v)) entities[tag] = v.map((e) => (typeof e === "object" && e ? (e as SfosEntity) : {}));
  }
  const login = (response["Login"] as { status?: unknown } | undefined)?.status;
  const status = sfosStatus(response["Status"]);
  return { ...(status ? { status } : {}), ...(login !== undefined ? { login: String(login) } : {}), entities };
}

/** The `<Host>` names of a parsed `IPHostGroup`. */
export function sfosHostList(group: SfosEntity): string[] {
  const list = group["HostList"] as { Host?: unknown[] } | undefined | "";
  if (!list || typeof list !== "object") return [];
  return (list.Host ?? []).map((h) => String(h));
}

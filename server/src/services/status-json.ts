/**
 * GET /status as JSON text (docs/reference.md user-portal §3 "Session user"; issue #13 item 2): the body is
 * made of pieces, most of them shared — each ACL's unchanging fields serialised once per change of the
 * ACLs — and a few of the session's own (the entry's id, status, error and expiry), so a status kept
 * per session (status-cache.ts) costs a few kilobytes instead of its whole body, and is joined into
 * the exact text `JSON.stringify` gives for the `SessionStatus` object, keys in the schema's order.
 */
import type { SessionStatus, StatusAcl } from "@postern/shared";

/** JSON text of one value. */
const j = (v: unknown): string => JSON.stringify(v);

/** The fields of a status entry that come from its ACL alone. */
export type AclFields = Omit<StatusAcl, "ID" | "Status" | "Error" | "ExpiredAfter" | "DisableForUser">;

/** An ACL's status entry serialised around the session's own fields: `{"ID":…` head `Status…` mid `DisableForUser` tail. */
export interface AclJson {
  /** From after the entry's ID to `"Status":`. */
  readonly head: string;
  /** From after ExpiredAfter's value to `"DisableForUser":`. */
  readonly mid: string;
  /** From after DisableForUser's value to the entry's closing brace. */
  readonly tail: string;
}

/** Serialises the unchanging fields of one ACL's status entry (once per change of the ACLs). */
export function aclJson(f: AclFields): AclJson {
  return {
    head:
      `,"ACLID":${j(f.ACLID)},"ParentID":${j(f.ParentID)},"Description":${j(f.Description)},"URL":${j(f.URL)}` +
      `,"Icon":${j(f.Icon)},"Category":${j(f.Category)},"Status":`,
    mid: `,"ClickToGrant":${j(f.ClickToGrant)},"CGNATOpen":${j(f.CGNATOpen)},"HideFromUsers":${j(f.HideFromUsers)},"DisableForUser":`,
    tail: `,"GrantTypeFixedIps":${j(f.GrantTypeFixedIps)},"AutoBrowseUsers":${j(f.AutoBrowseUsers)},"Config":{"UriToken":${j(f.Config.UriToken)}}}`,
  };
}

/** The session's own part of an entry between `"Status":` and the ACL's `mid`, shared when it is a common one. */
const common = new Map<string, string>();
const COMMON_MAX = 256;

function ownPart(status: number, error: string, expiredAfter: string): string {
  const text = `${j(status)},"Error":${j(error)},"ExpiredAfter":${j(expiredAfter)}`;
  // Entries with no expiry (nothing granted) repeat across sessions: keep one string of each.
  if (expiredAfter !== "") return text;
  const kept = common.get(text);
  if (kept !== undefined) return kept;
  if (common.size < COMMON_MAX) common.set(text, text);
  return text;
}

/** The session's own fields of one status entry. */
export interface EntryFields {
  ID: string;
  Status: number;
  Error: string;
  ExpiredAfter: string;
  DisableForUser: boolean;
  /**
   * On a Knoc that RequiresApproval: its latest request, written after the entry's other fields as
   * `RequiresApproval: true`, `ApprovalState`, `ApprovalReason`, `ApprovalExpires`.
   */
  approval?: { State: StatusAcl["ApprovalState"]; Reason: string; Expires: string };
}

/** Appends the pieces of one entry (`first`: no comma before it) to `out`. */
export function pushEntry(out: string[], acl: AclJson, e: EntryFields, first: boolean): void {
  out.push(
    first ? '{"ID":' : ',{"ID":',
    j(e.ID),
    acl.head,
    ownPart(e.Status, e.Error, e.ExpiredAfter),
    acl.mid,
    e.DisableForUser ? "true" : "false",
    e.approval
      ? `${acl.tail.slice(0, -1)},"RequiresApproval":true,"ApprovalState":${j(e.approval.State ?? null)}` +
          `,"ApprovalReason":${j(e.approval.Reason)},"ApprovalExpires":${j(e.approval.Expires)}}`
      : acl.tail,
  );
}

/** The pieces of a status up to its first entry: every field but ACLs, then `"ACLs":[`. */
export function statusHead(s: Omit<SessionStatus, "ACLs">): string {
  return (
    `{"Name":${j(s.Name)},"CurrentAddress":${j(s.CurrentAddress)},"Ends":${j(s.Ends)},"ValidUntil":${j(s.ValidUntil)}` +
    `,"Licensed":${j(s.Licensed)},"UserLicensed":${j(s.UserLicensed)},"NewUserDashboard":${j(s.NewUserDashboard)}` +
    `,"AuthType":${j(s.AuthType)},"AutoBrowseToURI":${j(s.AutoBrowseToURI)},"ACLs":[`
  );
}

/** What closes a status after its entries. */
export const STATUS_END = "]}";

/**
 * API keys (docs/reference.md admin-console §3 "API key", §5 "API key", §6 scopes, §7 /admin/api-keys) and what they
 * give access to: the public allowlist (§7 "Public allowlist") and the user-sessions API
 * (scope `user.sessions`). Design: docs/reference.md design "Security" (API keys) and "Contract decisions"
 * (AllowedFrom defaults to 0.0.0.0/0 and ::/0; ExpiredAfter is a date or null for never).
 */
import { z } from "zod";
import { IdSchema, IsoTimeSchema } from "../common.ts";
import { Errors } from "../errors.ts";
import { parseCidr } from "../ip.ts";

/** The scope names of docs/reference.md admin-console §3; two of them carry an id (`allowlist.read:{aclId}`, `user.auth:{userId}`). */
export const ApiKeyScopeName = {
  allowlistRead: "allowlist.read",
  agentRegister: "agent.register",
  userSessions: "user.sessions",
  userAuth: "user.auth",
} as const;

/** A parsed scope: its name and, for allowlist.read and user.auth, the id it names (lower case). */
export type ParsedApiKeyScope =
  | { name: typeof ApiKeyScopeName.allowlistRead; id: string }
  | { name: typeof ApiKeyScopeName.userAuth; id: string }
  | { name: typeof ApiKeyScopeName.agentRegister | typeof ApiKeyScopeName.userSessions };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parses one scope string (`allowlist.read:{aclId}`, `agent.register`, `user.sessions`,
 * `user.auth:{userId}`; ids are UUIDs, matched case-insensitively and returned lower case).
 * Returns null for anything else.
 */
export function parseApiKeyScope(scope: string): ParsedApiKeyScope | null {
  if (scope === ApiKeyScopeName.agentRegister || scope === ApiKeyScopeName.userSessions) return { name: scope };
  const colon = scope.indexOf(":");
  if (colon < 0) return null;
  const name = scope.slice(0, colon);
  const id = scope.slice(colon + 1);
  if (!UUID.test(id)) return null;
  if (name === ApiKeyScopeName.allowlistRead || name === ApiKeyScopeName.userAuth)
    return { name, id: id.toLowerCase() };
  return null;
}

/** The scope that lets a key read the public allowlist of ACL `aclId`. */
export function allowlistReadScope(aclId: string): string {
  return `${ApiKeyScopeName.allowlistRead}:${aclId.toLowerCase()}`;
}

/** The scope that lets a key authenticate as the API-key user `userId`. */
export function userAuthScope(userId: string): string {
  return `${ApiKeyScopeName.userAuth}:${userId.toLowerCase()}`;
}

/** One scope on the wire; invalid ones fail with "Invalid scope"; ids are lower-cased. */
export const ApiKeyScopeSchema = z
  .string()
  .trim()
  .refine((s) => parseApiKeyScope(s) !== null, "Invalid scope")
  .transform((s) => {
    const p = parseApiKeyScope(s);
    return p && "id" in p ? `${p.name}:${p.id}` : s;
  });

/**
 * An IPv4 or IPv6 CIDR as AllowedFrom and allowlist access restrictions take it: `address/length`,
 * length 0–32 (IPv4) or 0–128 (IPv6) without leading zeros, IPv4 as a dotted quad. Anything else
 * fails with err.invalidCidr (docs/reference.md admin-console §5). Normalised to the canonical address text
 * (`2001:DB8:0::1/64` → `2001:db8::1/64`); host bits are kept.
 */
export const CidrTextSchema = z
  .string()
  .trim()
  .refine((p) => /\/(0|[1-9]\d{0,2})$/.test(p) && parseCidr(p) !== null, Errors.invalidCidr.err)
  .transform((p) => {
    const c = parseCidr(p)!;
    return `${c.ip}/${c.prefix}`;
  });

/** One AllowedFrom entry: a CIDR prefix and an optional note (at most 256 characters). */
export const AllowedFromEntrySchema = z.object({
  Prefix: CidrTextSchema,
  Note: z.string().trim().max(256).default(""),
});
/** One AllowedFrom entry. */
export type AllowedFromEntry = z.infer<typeof AllowedFromEntrySchema>;

/** Most entries an AllowedFrom list may hold. */
export const MAX_ALLOWED_FROM = 256;
/** Most scopes one key may carry. */
export const MAX_API_KEY_SCOPES = 256;

/** AllowedFrom when none is given: the whole Internet, IPv4 and IPv6 (docs/reference.md design "Contract decisions"). */
export const DEFAULT_ALLOWED_FROM: readonly AllowedFromEntry[] = [
  { Prefix: "0.0.0.0/0", Note: "" },
  { Prefix: "::/0", Note: "" },
];

/**
 * AllowedFrom list: 1–256 entries. An explicit empty list is refused ("Bad request", Extra
 * `AllowedFrom: …`): it would lock the key out, and `0.0.0.0/0` with `::/0` say "anywhere".
 */
export const AllowedFromSchema = z
  .array(AllowedFromEntrySchema)
  .min(1, "at least one prefix is required (0.0.0.0/0 and ::/0 allow every address)")
  .max(MAX_ALLOWED_FROM);

/**
 * POST /api/admin/api-keys body. Name required (1–128 characters, unique); ExpiredAfter required:
 * an ISO 8601 time in the future, or null for never (the future check is the server's, against its
 * clock); Scopes default to none; AllowedFrom defaults to DEFAULT_ALLOWED_FROM when omitted.
 * Read-only fields a client echoes back (Resources, CreatedAt, LastUsedAt, PlaintextKey) are ignored.
 */
export const ApiKeyCreateSchema = z.object({
  ID: z.string().optional(),
  Name: z.string().trim().min(1, "Name is required").max(128),
  Scopes: z.array(ApiKeyScopeSchema).max(MAX_API_KEY_SCOPES).default([]),
  AllowedFrom: AllowedFromSchema.optional(),
  ExpiredAfter: IsoTimeSchema.nullable(),
});
/** POST /api/admin/api-keys body. */
export type ApiKeyCreate = z.infer<typeof ApiKeyCreateSchema>;

/**
 * PUT /api/admin/api-keys/{id} body: the key as read, with a new AllowedFrom (docs/reference.md admin-console §4:
 * "Editing may change only the allowed-from list"). Name, Scopes and ExpiredAfter may be omitted or
 * echoed unchanged; a different value is refused (400 Errors.onlyAllowedFromEditable.err).
 * AllowedFrom omitted keeps the current list.
 */
export const ApiKeyUpdateSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().optional(),
  Scopes: z.array(ApiKeyScopeSchema).max(MAX_API_KEY_SCOPES).optional(),
  AllowedFrom: AllowedFromSchema.optional(),
  ExpiredAfter: IsoTimeSchema.nullable().optional(),
});
/** PUT /api/admin/api-keys/{id} body. */
export type ApiKeyUpdate = z.infer<typeof ApiKeyUpdateSchema>;

/**
 * An API key as admins read it (docs/reference.md admin-console §3). `Resources` are human-readable names of what
 * the scopes reach (ACL descriptions, user names), derived on read. `Scopes` include
 * `allowlist.read:{aclId}` for every allowlist ACL whose Config.allowlist.ApiKeyId names this key.
 * Times are ISO 8601 UTC; ExpiredAfter null = never, LastUsedAt null = never used.
 * `PlaintextKey` (`pst_<id without dashes>_<secret>`) is present only in the create response.
 */
export const ApiKeySchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  Resources: z.array(z.string()),
  Scopes: z.array(z.string()),
  AllowedFrom: z.array(z.object({ Prefix: z.string(), Note: z.string() })),
  ExpiredAfter: z.string().nullable(),
  CreatedAt: z.string(),
  LastUsedAt: z.string().nullable(),
  PlaintextKey: z.string().optional(),
});
/** An API key as admins read it. */
export type ApiKey = z.infer<typeof ApiKeySchema>;

/**
 * A live user session as GET /api/v1/sessions lists it (scope `user.sessions`): Created and Ends
 * ISO 8601 UTC, IPAddress the session's current address.
 */
export const ApiSessionSchema = z.object({
  ID: IdSchema,
  UserName: z.string(),
  Created: z.string(),
  Ends: z.string(),
  IPAddress: z.string(),
});
/** A live user session as the user-sessions API lists it. */
export type ApiSession = z.infer<typeof ApiSessionSchema>;

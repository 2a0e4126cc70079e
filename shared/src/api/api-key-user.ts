/**
 * API-key users (docs/reference.md user-portal §1 "API-key users are non-interactive"; docs/reference.md admin-console §3 User AuthType
 * `apikey` and the scope `user.auth:{userId}`, §5 "API-key user: choose to create a key now or later;
 * if creating, key name and expiry required", §7 "API-key users are shown an endpoint
 * {scheme}://{host}/api/v1/user_sessions").
 *
 * - Admin side: POST /api/admin/users with AuthType apikey may carry `ApiKey` (create the key now);
 *   the answer is then `UserCreatedWithKey` (the plaintext key once) instead of the bare id.
 * - Client side: POST /api/v1/user_sessions with `Authorization: Bearer <key>` signs the user in and
 *   answers the session cookie value; GET lists the user's live sessions; DELETE /{id} ends one.
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { AllowedFromSchema, ApiKeySchema } from "./api-key.ts";
import { SessionStatusSchema } from "./user.ts";

/** The path API-key users sign in at, relative to the server's origin (docs/reference.md admin-console §7). */
export const API_KEY_USER_SESSIONS_PATH = "/api/v1/user_sessions";

/**
 * `ApiKey` of POST /api/admin/users (AuthType apikey only): create the user's key now. Name
 * required (1–128 characters, unique among API keys: 409 "An API key with that name already
 * exists"); ExpiredAfter required: an ISO 8601 time in the future (the console offers 12 or 24
 * months) or null for never; AllowedFrom defaults to 0.0.0.0/0 and ::/0. The key gets exactly the
 * scope `user.auth:{new user id}`.
 */
export const UserApiKeySchema = z.object({
  Name: z.string().trim().min(1, "Name is required").max(128),
  ExpiredAfter: z.iso
    .datetime({
      offset: true,
      error: (iss) => (iss.input === undefined ? "required: an ISO 8601 time, or null for never" : undefined),
    })
    .nullable(),
  AllowedFrom: AllowedFromSchema.optional(),
});
/** `ApiKey` of POST /api/admin/users. */
export type UserApiKey = z.infer<typeof UserApiKeySchema>;

/**
 * 201 answer of POST /api/admin/users when `ApiKey` was given: the new user's id and the key as
 * GET /admin/api-keys/{id} reads it plus `PlaintextKey` (`pst_…`), shown this once.
 */
export const UserCreatedWithKeySchema = z.object({ ID: IdSchema, ApiKey: ApiKeySchema });
/** 201 answer of POST /api/admin/users with `ApiKey`. */
export type UserCreatedWithKey = z.infer<typeof UserCreatedWithKeySchema>;

/**
 * Optional body of POST /api/v1/user_sessions (and the `UserName` query parameter of GET and
 * DELETE): which user to act as when the key carries `user.auth` scopes for several users. With a
 * key for one user it may be omitted; when given it must name that user.
 */
export const ApiKeyUserSignInSchema = z.object({
  UserName: z.string().trim().min(1, "You must specify a username").max(256).optional(),
});
/** Optional body of POST /api/v1/user_sessions. */
export type ApiKeyUserSignIn = z.infer<typeof ApiKeyUserSignInSchema>;

/**
 * 201 answer of POST /api/v1/user_sessions: the new session's id, the session cookie value to send
 * as `Cookie: postern_session=<Token>` (`__Host-postern_session` when the server is on https) on
 * the user calls (GET /api/status, POST /api/grant, …;
 * shown this once, only its SHA-256 is stored), its end (ISO 8601 UTC) and the session status as
 * GET /api/status answers it right after sign-in (automatic grants already started).
 */
export const ApiKeyUserSessionSchema = z.object({
  ID: IdSchema,
  Token: z.string(),
  Ends: z.string(),
  Status: SessionStatusSchema,
});
/** 201 answer of POST /api/v1/user_sessions. */
export type ApiKeyUserSession = z.infer<typeof ApiKeyUserSessionSchema>;

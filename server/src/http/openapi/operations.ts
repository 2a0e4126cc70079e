/**
 * Every operation of the API with its shared schemas, for the OpenAPI document. A test checks that
 * this table and the app's routes name exactly the same operations, so neither can drift.
 * Paths are relative to /api; `{name}` marks a path parameter.
 */
import { z } from "zod";
import * as S from "@postern/shared";

/** One API operation. `auth` says what the caller needs; `status` the success code (default 200). */
export interface Operation {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  tag: string;
  summary: string;
  auth: "none" | "user" | "admin" | "apiKey" | "allowlist";
  body?: z.ZodType;
  response?: z.ZodType;
  responseType?: string;
  status?: number;
  okDescription?: string;
  query?: { name: string; description: string; type?: "string" | "integer" }[];
}

const Id = z.string();
const Ids = z.array(z.string());
const NoContent = { status: 204, okDescription: "Done (no body)" } as const;

/** Every operation of the API. */
export const operations: readonly Operation[] = [
  // User portal (user-portal §7)
  { method: "GET", path: "/theme", tag: "portal", summary: "Theme: accent and high-accessibility", auth: "none", response: S.ThemeSchema },
  { method: "GET", path: "/system_status", tag: "portal", summary: "IP-discovery URL and web bundle hash", auth: "none", response: S.SystemStatusSchema },
  { method: "GET", path: "/ip", tag: "portal", summary: "IP discovery: the caller's address as the server sees it", auth: "none", response: z.object({ IP: z.string() }) },
  { method: "GET", path: "/logo", tag: "portal", summary: "Branding logo (mode=dark|light)", auth: "none", responseType: "image/png", query: [{ name: "mode", description: "dark (default) or light" }] },
  { method: "POST", path: "/login", tag: "portal", summary: "Sign in with a local password", auth: "none", body: S.LoginRequestSchema, response: z.object({ Ends: z.string() }) },
  { method: "GET", path: "/otp/generate", tag: "portal", summary: "2FA enrolment secret of a sign-in owing its code (pending session cookie)", auth: "none", response: S.OtpGenerateResponseSchema },
  { method: "POST", path: "/otp/verify", tag: "portal", summary: "Verify or enrol a TOTP code and complete the pending sign-in", auth: "none", body: S.OtpVerifyRequestSchema, response: S.OtpVerifyResponseSchema },
  { method: "POST", path: "/logout", tag: "portal", summary: "End the session and revoke its grants", auth: "user", ...NoContent },
  { method: "PUT", path: "/password", tag: "portal", summary: "Change the signed-in user's password (local accounts); other sessions end", auth: "user", body: S.ChangePasswordRequestSchema, ...NoContent },
  { method: "POST", path: "/password", tag: "portal", summary: "Change the signed-in admin's (admin session) or else user's password, older shape", auth: "user", body: S.ChangePasswordLegacyRequestSchema, ...NoContent },
  { method: "GET", path: "/status", tag: "portal", summary: "The session user with its ACL entries", auth: "user", response: S.SessionStatusSchema },
  { method: "POST", path: "/grant", tag: "portal", summary: "Grant an ACL to the current address", auth: "user", body: S.GrantRequestSchema, response: S.SessionStatusSchema },
  { method: "DELETE", path: "/sessions/current/granted-acls/{id}", tag: "portal", summary: "Revoke one status entry", auth: "user", response: S.SessionStatusSchema },
  { method: "POST", path: "/log_ips", tag: "portal", summary: "Report IP discovery results", auth: "user", body: S.LogIpsRequestSchema, response: z.object({ Confirmed: Ids }) },
  { method: "GET", path: "/openapi.json", tag: "meta", summary: "This document", auth: "none", response: z.record(z.string(), z.unknown()) },
  // SAML sign-in (user-portal §7; shared/src/api/saml.ts). The ACS takes the IdP's form post (SAMLResponse); failures redirect with ?error=<key>.
  { method: "GET", path: "/saml/metadata", tag: "saml", summary: "SP metadata when SAML is configured for users (404 SAML not configured)", auth: "none", responseType: "application/samlmetadata+xml" },
  { method: "GET", path: "/login/saml", tag: "saml", summary: "Redirect (302) to the IdP with an AuthnRequest", auth: "none", status: 302, okDescription: "Redirect to the IdP (or to /?error=<key>)", query: [{ name: "kioskMode", description: "true or false (default false)" }] },
  { method: "POST", path: "/saml/acs", tag: "saml", summary: "Assertion consumer service (form post SAMLResponse)", auth: "none", status: 303, okDescription: "Redirect to /home/new or /home (or to /?error=<key>), session cookie set" },
  { method: "GET", path: "/admin/saml/metadata", tag: "saml", summary: "SP metadata when SAML is configured for admins (404 SAML not configured)", auth: "none", responseType: "application/samlmetadata+xml" },
  { method: "GET", path: "/admin/login/saml", tag: "saml", summary: "Redirect (302) to the admins' IdP with an AuthnRequest", auth: "none", status: 302, okDescription: "Redirect to the IdP (or to /admin?error=<key>)" },
  { method: "POST", path: "/admin/saml/acs", tag: "saml", summary: "Admin assertion consumer service (form post SAMLResponse)", auth: "none", status: 303, okDescription: "Redirect to /admin/home (or to /admin?error=<key>), admin session cookie set" },
  // Agents' enrolment (design.md "Agent protocol"); the WebSocket /api/agent/connect is not HTTP.
  { method: "POST", path: "/agent/enrol", tag: "agent", summary: "Enrol an agent with its install token and public keys", auth: "none", body: S.EnrolRequestSchema, response: S.EnrolResponseSchema },
  // Admin sign-in and status
  { method: "POST", path: "/admin/login", tag: "admin", summary: "Admin sign-in", auth: "none", body: S.AdminLoginRequestSchema, ...NoContent },
  { method: "GET", path: "/admin/otp/generate", tag: "admin", summary: "2FA enrolment secret of an admin sign-in owing its code (pending session cookie)", auth: "none", response: S.OtpGenerateResponseSchema },
  { method: "POST", path: "/admin/otp/verify", tag: "admin", summary: "Verify or enrol a TOTP code, or defer enrolment, completing the pending admin sign-in", auth: "none", body: S.AdminOtpVerifyRequestSchema, ...NoContent },
  { method: "POST", path: "/admin/logout", tag: "admin", summary: "Admin sign-out", auth: "admin", ...NoContent },
  { method: "GET", path: "/admin/status", tag: "admin", summary: "Counts, activity, versions, licensing", auth: "admin", response: S.AdminStatusSchema },
  // Agents
  { method: "GET", path: "/admin/agents", tag: "agents", summary: "List agents", auth: "admin", response: z.array(S.AgentSchema) },
  { method: "GET", path: "/admin/agents/{id}", tag: "agents", summary: "Read an agent", auth: "admin", response: S.AgentSchema },
  { method: "POST", path: "/admin/agents", tag: "agents", summary: "Create an agent (token and install command, once)", auth: "admin", body: S.AgentWriteSchema, response: S.AgentCreatedSchema, status: 201 },
  { method: "PUT", path: "/admin/agents/{id}", tag: "agents", summary: "Rename an agent", auth: "admin", body: S.AgentWriteSchema, response: S.AgentSchema },
  { method: "DELETE", path: "/admin/agents/{id}", tag: "agents", summary: "Delete an agent (refused while backends are attached)", auth: "admin", ...NoContent },
  // Backends
  { method: "GET", path: "/admin/backends", tag: "backends", summary: "List backends", auth: "admin", response: z.array(S.BackendSchema) },
  { method: "GET", path: "/admin/backends/{id}", tag: "backends", summary: "Read a backend", auth: "admin", response: S.BackendSchema },
  { method: "POST", path: "/admin/backends", tag: "backends", summary: "Create a backend", auth: "admin", body: S.BackendWriteSchema, response: z.object({ ID: Id }), status: 201 },
  { method: "PUT", path: "/admin/backends/{id}", tag: "backends", summary: "Update a backend (type locked)", auth: "admin", body: S.BackendWriteSchema, response: z.object({ ID: Id }) },
  { method: "DELETE", path: "/admin/backends/{id}", tag: "backends", summary: "Delete a backend", auth: "admin", ...NoContent },
  // ACLs
  { method: "GET", path: "/admin/acls", tag: "acls", summary: "List ACLs", auth: "admin", response: z.array(S.AclWriteSchema) },
  { method: "GET", path: "/admin/acls/{id}", tag: "acls", summary: "Read an ACL", auth: "admin", response: S.AclWriteSchema },
  { method: "POST", path: "/admin/acls", tag: "acls", summary: "Create an ACL (answers its id)", auth: "admin", body: S.AclWriteSchema, response: Id, status: 201 },
  { method: "PUT", path: "/admin/acls/{id}", tag: "acls", summary: "Update an ACL", auth: "admin", body: S.AclWriteSchema, response: Id },
  { method: "DELETE", path: "/admin/acls/{id}", tag: "acls", summary: "Delete an ACL after revoking its grants", auth: "admin", ...NoContent },
  // Knocs
  { method: "GET", path: "/admin/knocs", tag: "knocs", summary: "List Knocs with kind, counts, agent and last change", auth: "admin", response: z.array(z.record(z.string(), z.unknown())) },
  { method: "GET", path: "/admin/knocs/{id}", tag: "knocs", summary: "Read a Knoc", auth: "admin", response: z.record(z.string(), z.unknown()) },
  { method: "POST", path: "/admin/knocs", tag: "knocs", summary: "Create a Knoc from the wizard state in one transaction: [id, PlaintextKey?, AllowlistURL?]", auth: "admin", body: S.KnocCreateSchema, response: S.KnocCreatedSchema, status: 201 },
  { method: "PUT", path: "/admin/knocs/{id}", tag: "knocs", summary: "Update a Knoc (backend, ACL and parent, assignments) in one transaction", auth: "admin", body: S.KnocUpdateSchema, response: Id },
  {
    method: "DELETE",
    path: "/admin/knocs/{id}",
    tag: "knocs",
    summary: "Delete a Knoc, its child, unused backends and its allowlist scope",
    auth: "admin",
    ...NoContent,
    query: [{ name: "deleteApiKey", description: "true: also delete an API key left with no scope" }],
  },
  // Users
  { method: "GET", path: "/admin/users", tag: "users", summary: "List users", auth: "admin", response: z.array(S.UserSchema) },
  { method: "GET", path: "/admin/users/{id}", tag: "users", summary: "Read a user", auth: "admin", response: S.UserSchema },
  { method: "POST", path: "/admin/users", tag: "users", summary: "Create a user (answers its id; with ApiKey, an API-key user and its key: {ID, ApiKey})", auth: "admin", body: S.UserWriteSchema, response: z.union([Id, S.UserCreatedWithKeySchema]), status: 201 },
  { method: "PUT", path: "/admin/users/{id}", tag: "users", summary: "Update a user", auth: "admin", body: S.UserWriteSchema, response: Id },
  { method: "DELETE", path: "/admin/users/{id}", tag: "users", summary: "Delete a user, ending sessions and grants", auth: "admin", ...NoContent },
  { method: "DELETE", path: "/admin/users/{id}/totpToken", tag: "users", summary: "Reset a user's 2FA", auth: "admin", ...NoContent },
  { method: "GET", path: "/admin/users/{id}/sessions", tag: "users", summary: "A user's live sessions", auth: "admin", response: z.array(S.UserSessionSchema) },
  { method: "GET", path: "/admin/users/{id}/groups", tag: "users", summary: "A user's groups", auth: "admin", response: z.array(S.GroupSchema) },
  { method: "GET", path: "/admin/users/{id}/acls", tag: "users", summary: "The ACLs a user reaches and how", auth: "admin", response: z.array(S.UserAclSchema) },
  // Admins
  { method: "GET", path: "/admin/admins", tag: "admins", summary: "List admins", auth: "admin", response: z.array(S.AdminSchema) },
  { method: "GET", path: "/admin/admins/{id}", tag: "admins", summary: "Read an admin", auth: "admin", response: S.AdminSchema },
  { method: "POST", path: "/admin/admins", tag: "admins", summary: "Create an admin (answers its id)", auth: "admin", body: S.AdminWriteSchema, response: Id, status: 201 },
  { method: "PUT", path: "/admin/admins/{id}", tag: "admins", summary: "Update an admin", auth: "admin", body: S.AdminWriteSchema, response: Id },
  { method: "DELETE", path: "/admin/admins/{id}", tag: "admins", summary: "Delete an admin", auth: "admin", ...NoContent },
  { method: "DELETE", path: "/admin/admins/{id}/totpToken", tag: "admins", summary: "Reset an admin's 2FA (not one's own)", auth: "admin", ...NoContent },
  { method: "GET", path: "/admin/admins/{id}/sessions", tag: "admins", summary: "An admin's live sessions", auth: "admin", response: z.array(S.AdminSessionSchema) },
  // Groups
  { method: "GET", path: "/admin/groups", tag: "groups", summary: "List groups", auth: "admin", response: z.array(S.GroupSchema) },
  { method: "GET", path: "/admin/groups/{id}", tag: "groups", summary: "Read a group", auth: "admin", response: S.GroupSchema },
  { method: "POST", path: "/admin/groups", tag: "groups", summary: "Create a group (answers its id)", auth: "admin", body: S.GroupWriteSchema, response: Id, status: 201 },
  { method: "PUT", path: "/admin/groups/{id}", tag: "groups", summary: "Update a group (type locked)", auth: "admin", body: S.GroupWriteSchema, response: Id },
  { method: "DELETE", path: "/admin/groups/{id}", tag: "groups", summary: "Delete a group", auth: "admin", ...NoContent },
  // Sessions
  { method: "DELETE", path: "/admin/sessions", tag: "sessions", summary: "End every user session", auth: "admin", ...NoContent },
  { method: "DELETE", path: "/admin/sessions/{id}", tag: "sessions", summary: "End one user session", auth: "admin", ...NoContent },
  { method: "DELETE", path: "/admin/adminsessions", tag: "sessions", summary: "End every admin session", auth: "admin", ...NoContent },
  { method: "DELETE", path: "/admin/adminsessions/{id}", tag: "sessions", summary: "End one admin session", auth: "admin", ...NoContent },
  // API keys
  { method: "GET", path: "/admin/api-keys", tag: "api-keys", summary: "List API keys", auth: "admin", response: z.array(S.ApiKeySchema) },
  { method: "GET", path: "/admin/api-keys/{id}", tag: "api-keys", summary: "Read an API key", auth: "admin", response: S.ApiKeySchema },
  { method: "POST", path: "/admin/api-keys", tag: "api-keys", summary: "Create an API key (PlaintextKey once)", auth: "admin", body: S.ApiKeyCreateSchema, response: S.ApiKeySchema, status: 201 },
  { method: "PUT", path: "/admin/api-keys/{id}", tag: "api-keys", summary: "Change an API key's AllowedFrom", auth: "admin", body: S.ApiKeyUpdateSchema, response: S.ApiKeySchema },
  { method: "DELETE", path: "/admin/api-keys/{id}", tag: "api-keys", summary: "Delete an API key", auth: "admin", ...NoContent },
  // Logs
  {
    method: "GET",
    path: "/admin/logs",
    tag: "logs",
    summary: "Audit log page, newest first (paging in X-Total-Count, X-Page, X-Page-Size)",
    auth: "admin",
    response: S.AuditLogPageSchema,
    query: [
      { name: "page", description: "from 1", type: "integer" },
      { name: "pageSize", description: "1–200, default 25", type: "integer" },
      { name: "search", description: "substring over names, action, address, description" },
    ],
  },
  { method: "GET", path: "/admin/logs/export", tag: "logs", summary: "Audit log as CSV", auth: "admin", responseType: "text/csv", query: [{ name: "search", description: "as for the list" }] },
  { method: "DELETE", path: "/admin/logs", tag: "logs", summary: "Clear entries older than 30 days", auth: "admin", response: S.AuditLogClearedSchema },
  // Settings
  { method: "GET", path: "/admin/settings", tag: "settings", summary: "General settings", auth: "admin", response: S.GeneralSettingsSchema },
  { method: "POST", path: "/admin/settings/customize", tag: "settings", summary: "Branding and UI", auth: "admin", body: S.CustomizeSettingsSchema, response: S.GeneralSettingsSchema },
  { method: "POST", path: "/admin/settings/config", tag: "settings", summary: "IP discovery, kiosk, logging", auth: "admin", body: S.ConfigSettingsSchema, response: S.GeneralSettingsSchema },
  { method: "GET", path: "/admin/settings/authentication", tag: "settings", summary: "SAML, LDAP and PublicURL settings", auth: "admin", response: S.AuthenticationSettingsSchema },
  { method: "POST", path: "/admin/settings/authentication", tag: "settings", summary: "Update SAML, LDAP and PublicURL settings", auth: "admin", body: S.AuthenticationUpdateSchema, response: S.AuthenticationSettingsSchema },
  { method: "POST", path: "/admin/settings/generateUserSamlKeyCert", tag: "settings", summary: "New SP key pair for users' SAML", auth: "admin", response: S.GeneratedKeyCertSchema },
  { method: "POST", path: "/admin/settings/generateAdminSamlKeyCert", tag: "settings", summary: "New SP key pair for admins' SAML", auth: "admin", response: S.GeneratedKeyCertSchema },
  { method: "GET", path: "/admin/settings/license", tag: "settings", summary: "Licence status", auth: "admin", response: S.LicenseStatusSchema },
  { method: "POST", path: "/admin/settings/license", tag: "settings", summary: "Install a licence key", auth: "admin", body: S.InstallLicenseRequestSchema, response: S.LicenseStatusSchema },
  // Public allowlists and the API-key session API
  { method: "GET", path: "/v1/allowlists/{aclId}/{file}", tag: "allowlists", summary: "Passive allowlist: {token}.txt or {token}.json", auth: "allowlist", responseType: "text/plain" },
  { method: "GET", path: "/v1/sessions", tag: "api", summary: "Live user sessions (scope user.sessions)", auth: "apiKey", response: z.array(S.ApiSessionSchema) },
  { method: "DELETE", path: "/v1/sessions/{id}", tag: "api", summary: "End a user session (scope user.sessions)", auth: "apiKey", ...NoContent },
  { method: "POST", path: "/v1/user_sessions", tag: "api", summary: "Sign an API-key user in (scope user.auth:{userId}); Token is the postern_session cookie value", auth: "apiKey", body: S.ApiKeyUserSignInSchema, response: S.ApiKeyUserSessionSchema, status: 201 },
  { method: "GET", path: "/v1/user_sessions", tag: "api", summary: "The API-key user's live sessions", auth: "apiKey", response: z.array(S.ApiSessionSchema), query: [{ name: "UserName", description: "the user, when the key signs in several" }] },
  { method: "DELETE", path: "/v1/user_sessions/{id}", tag: "api", summary: "End one of the API-key user's sessions", auth: "apiKey", ...NoContent, query: [{ name: "UserName", description: "the user, when the key signs in several" }] },
];

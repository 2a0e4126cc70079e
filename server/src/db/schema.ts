/**
 * The database schema (drizzle, SQLite). One table per entity of the spec (docs/reference.md admin-console §3,
 * docs/reference.md user-portal §3), complete ahead of the API. IDs are UUID text; times are epoch milliseconds
 * (integers) and become ISO 8601 UTC on the wire. JSON columns hold the spec's nested shapes.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(CAST(unixepoch('subsec') * 1000 AS INTEGER))`;

/** An address the server observed for a user session: the listener port (0: the main one), when last seen (epoch ms). */
export interface ObservedAddress {
  Port: number;
  IP: string;
  SeenAt?: number;
}

/** End users (docs/reference.md admin-console §3 "User"). Duration in minutes; password as a PHC string. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    userName: text("user_name").notNull().unique(),
    company: text("company").notNull().default(""),
    durationMinutes: integer("duration_minutes").notNull().default(480),
    sessionLimit: integer("session_limit"),
    authType: text("auth_type", { enum: ["local", "SAML", "LDAP", "apikey"] }).notNull(),
    passwordHash: text("password_hash"),
    totpEnabled: integer("totp_enabled", { mode: "boolean" }).notNull().default(false),
    totpSecretEnc: text("totp_secret_enc"),
    totpLastStep: integer("totp_last_step"),
    validUntil: integer("valid_until"),
    dn: text("dn").notNull().default(""),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull().default(now),
    lastLogin: integer("last_login"),
  },
  (t) => [index("users_created_idx").on(t.createdAt, t.id), index("users_valid_until_idx").on(t.validUntil)],
);

/** Administrators (docs/reference.md admin-console §3 "Admin"). Never counted against the licence. */
export const admins = sqliteTable("admins", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  userName: text("user_name").notNull().unique(),
  authType: text("auth_type", { enum: ["local", "SAML", "LDAP"] }).notNull(),
  passwordHash: text("password_hash"),
  totpEnabled: integer("totp_enabled", { mode: "boolean" }).notNull().default(false),
  totpSecretEnc: text("totp_secret_enc"),
  totpLastStep: integer("totp_last_step"),
  loginEnabled: integer("login_enabled", { mode: "boolean" }).notNull().default(true),
  dn: text("dn").notNull().default(""),
  createdAt: integer("created_at").notNull().default(now),
  lastLogin: integer("last_login"),
});

/**
 * User sessions. `tokenHash` is the SHA-256 of the 128-bit cookie value; `id` is the public id
 * admins use. `endedAt` is set when the session ends (logout, expiry, invalidation).
 */
export const userSessions = sqliteTable(
  "user_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    endsAt: integer("ends_at").notNull(),
    kiosk: integer("kiosk", { mode: "boolean" }).notNull().default(false),
    ipAddress: text("ip_address").notNull(),
    /**
     * Addresses the server itself observed for this session besides its main one (IP discovery on
     * the extra ports, the other family of a dual-stack client), JSON array of {Port, IP, SeenAt}
     * (SeenAt epoch ms; entries written before it existed have none and count as seen at 0).
     */
    discoveredIps: text("discovered_ips", { mode: "json" })
      .$type<ObservedAddress[]>()
      .notNull()
      .default(sql`'[]'`),
    /**
     * When the first observed address ages out (epoch ms; services/grants/observed.ts), null when
     * there is none: the expiry sweep finds the sessions to prune by it.
     */
    observedUntil: integer("observed_until"),
    /**
     * The API key that signed this session in (POST /api/v1/user_sessions), null for other sign-ins.
     * Deliberately no foreign key: a session whose key no longer exists is over (the expiry sweep
     * ends it), so deleting a key must not null or cascade this column.
     */
    apiKeyId: text("api_key_id"),
    /** False while a TOTP code is still owed (the session is not usable until verified). */
    verified: integer("verified", { mode: "boolean" }).notNull().default(true),
    endedAt: integer("ended_at"),
    endReason: text("end_reason"),
    /**
     * Raised by triggers on every write to this session's grants (migration 0011_status_versions), whatever
     * the write path: the status read keeps the session's status ready while it stays the same
     * (services/status-cache.ts).
     */
    statusVersion: integer("status_version").notNull().default(0),
  },
  (t) => [
    index("user_sessions_user_idx").on(t.userId, t.endedAt),
    index("user_sessions_ends_idx").on(t.endedAt, t.endsAt),
    index("user_sessions_observed_idx").on(t.endedAt, t.observedUntil),
    index("user_sessions_api_key_idx").on(t.endedAt, t.apiKeyId),
  ],
);

/** Admin sessions (docs/reference.md admin-console §3 "Admin session: ID, Created, IPAddress"). */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    adminId: text("admin_id")
      .notNull()
      .references(() => admins.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    endsAt: integer("ends_at").notNull(),
    ipAddress: text("ip_address").notNull(),
    verified: integer("verified", { mode: "boolean" }).notNull().default(true),
    endedAt: integer("ended_at"),
  },
  (t) => [index("admin_sessions_admin_idx").on(t.adminId)],
);

/**
 * Agents (docs/reference.md admin-console §3 "Agent"). Only the SHA-256 of the one-time install token is kept, with its
 * expiry, until the agent enrols; the agent's public keys are stored at enrolment.
 */
export const agents = sqliteTable("agents", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  /** SHA-256 (hex) of the one-time install token; null once spent (or for agents registered by API key). */
  tokenHash: text("token_hash").unique(),
  /** When the install token stops being accepted (epoch ms); null once spent. */
  tokenExpiresAt: integer("token_expires_at"),
  tokenUsedAt: integer("token_used_at"),
  signingPublicKey: text("signing_public_key"),
  boxPublicKey: text("box_public_key"),
  version: text("version").notNull().default(""),
  capabilities: text("capabilities", { mode: "json" })
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'`),
  externalIp: text("external_ip").notNull().default(""),
  lastSeen: integer("last_seen"),
  createdAt: integer("created_at").notNull().default(now),
});

/** Backends (docs/reference.md admin-console §3 "BackendConfig"). `config` is the BackendConfig object; secrets sealed. */
export const backends = sqliteTable("backends", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  agentId: text("agent_id").references(() => agents.id, { onDelete: "restrict" }),
  type: text("type").notNull(),
  config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** Secrets sealed to the agent's box key (libsodium sealed boxes); never returned. */
  sealedSecrets: text("sealed_secrets", { mode: "json" })
    .$type<Record<string, string>>()
    .notNull()
    .default(sql`'{}'`),
  createdAt: integer("created_at").notNull().default(now),
  updatedAt: integer("updated_at").notNull().default(now),
  updatedBy: text("updated_by").notNull().default(""),
});

/**
 * ACLs / Knocs (docs/reference.md admin-console §3 "Knoc (ACL)"). MaximumGrantDuration in seconds (null: unlimited).
 * A Passive+ child has `parentId` set and `hideFromAdmins`.
 */
export const acls = sqliteTable(
  "acls",
  {
    id: text("id").primaryKey(),
    parentId: text("parent_id"),
    description: text("description").notNull(),
    url: text("url").notNull().default(""),
    category: text("category").notNull().default("Default"),
    icon: text("icon").notNull().default(""),
    clickToGrant: integer("click_to_grant", { mode: "boolean" }).notNull().default(false),
    cgnatOpen: integer("cgnat_open", { mode: "boolean" }).notNull().default(false),
    hideFromUsers: integer("hide_from_users", { mode: "boolean" }).notNull().default(false),
    hideFromAdmins: integer("hide_from_admins", { mode: "boolean" }).notNull().default(false),
    autoBrowseUsers: integer("auto_browse_users", { mode: "boolean" }).notNull().default(false),
    maximumGrantDurationSeconds: integer("maximum_grant_duration_seconds"),
    /** Grants wait for an approver (issue #14 item 1; docs/decisions.md "Approval requests"). */
    requiresApproval: integer("requires_approval", { mode: "boolean" }).notNull().default(false),
    /** Groups whose members may approve (admins always may), JSON array of group ids. */
    approverGroupIds: text("approver_group_ids", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** How long a request waits for an answer before it expires, in SECONDS. */
    approvalTimeoutSeconds: integer("approval_timeout_seconds").notNull().default(3600),
    backendId: text("backend_id")
      .notNull()
      .references(() => backends.id, { onDelete: "restrict" }),
    ipExclusions: text("ip_exclusions", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    grantType: text("grant_type", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at").notNull().default(now),
    updatedAt: integer("updated_at").notNull().default(now),
    updatedBy: text("updated_by").notNull().default(""),
  },
  (t) => [index("acls_backend_idx").on(t.backendId)],
);

/** Groups (docs/reference.md admin-console §3 "Group"): type dynamic, local or saml. */
export const groups = sqliteTable("groups", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  description: text("description").notNull().default(""),
  type: text("type", { enum: ["dynamic", "local", "saml"] }).notNull(),
  createdAt: integer("created_at").notNull().default(now),
});

/** ACLs assigned directly to users (User.AclIds). */
export const userAcls = sqliteTable(
  "user_acls",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    aclId: text("acl_id")
      .notNull()
      .references(() => acls.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.aclId] }), index("user_acls_acl_idx").on(t.aclId)],
);

/** Group membership (Group.UserIDs). */
export const groupUsers = sqliteTable(
  "group_users",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index("group_users_user_idx").on(t.userId)],
);

/** ACLs assigned to groups (Group.ACLIDs). */
export const groupAcls = sqliteTable(
  "group_acls",
  {
    groupId: text("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
    aclId: text("acl_id")
      .notNull()
      .references(() => acls.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.aclId] }), index("group_acls_acl_idx").on(t.aclId)],
);

/**
 * API keys (docs/reference.md admin-console §3 "API key"). The key is `pst_<id>_<secret>`; only SHA-256 of the secret
 * is stored. `expiredAfter` null means never.
 */
export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  secretHash: text("secret_hash").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  allowedFrom: text("allowed_from", { mode: "json" }).$type<{ Prefix: string; Note: string }[]>().notNull(),
  expiredAfter: integer("expired_after"),
  createdAt: integer("created_at").notNull().default(now),
  lastUsedAt: integer("last_used_at"),
});

/**
 * Grants: one status entry per (user session, ACL) — its `id` is the `ID` of the ACL entry in
 * GET /status and of DELETE /sessions/current/granted-acls/{id}. `status` is the spec's code;
 * `expiresAt` the earliest of session end and grant start + MaximumGrantDuration.
 */
export const grants = sqliteTable(
  "grants",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => userSessions.id, { onDelete: "cascade" }),
    aclId: text("acl_id")
      .notNull()
      .references(() => acls.id, { onDelete: "cascade" }),
    status: integer("status").notNull(),
    error: text("error").notNull().default(""),
    grantedAt: integer("granted_at"),
    expiresAt: integer("expires_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("grants_session_acl_idx").on(t.sessionId, t.aclId),
    index("grants_acl_status_expiry_idx").on(t.aclId, t.status, t.expiresAt),
    index("grants_status_expiry_idx").on(t.status, t.expiresAt),
  ],
);

/** Addresses a grant carries (the user's address, CGNAT extras or fixed addresses), normalised. */
export const grantAddresses = sqliteTable(
  "grant_addresses",
  {
    grantId: text("grant_id")
      .notNull()
      .references(() => grants.id, { onDelete: "cascade" }),
    ip: text("ip").notNull(),
  },
  (t) => [primaryKey({ columns: [t.grantId, t.ip] }), index("grant_addresses_ip_idx").on(t.ip)],
);

/** Every status transition of a grant with its time (docs/reference.md design "Grants"). */
export const grantStatusHistory = sqliteTable(
  "grant_status_history",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    grantId: text("grant_id")
      .notNull()
      .references(() => grants.id, { onDelete: "cascade" }),
    status: integer("status").notNull(),
    error: text("error").notNull().default(""),
    at: integer("at").notNull(),
  },
  (t) => [index("grant_status_history_grant_idx").on(t.grantId)],
);

/** Settings as key → JSON value (General and Authentication settings of docs/reference.md admin-console §3). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
});

/** Installed licence keys (docs/reference.md admin-console §3 "License status"). */
export const licenses = sqliteTable("licenses", {
  id: text("id").primaryKey(),
  key: text("key").notNull(),
  payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  installedAt: integer("installed_at").notNull().default(now),
});

/** The audit log (docs/reference.md admin-console §3 "Audit log entry"): action kind plus who, what, from where. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    action: text("action").notNull(),
    userName: text("user_name").notNull().default(""),
    adminName: text("admin_name").notNull().default(""),
    agentName: text("agent_name").notNull().default(""),
    ipAddress: text("ip_address").notNull().default(""),
    errorMessage: text("error_message").notNull().default(""),
    aclDescription: text("acl_description").notNull().default(""),
    description: text("description").notNull().default(""),
  },
  (t) => [index("audit_log_at_idx").on(t.at)],
);

/**
 * SAML AuthnRequests sent and not yet answered (InResponseTo must name one; each is used once).
 * `audience` is "user" or "admin"; `expiresAt` epoch ms.
 */
export const samlRequests = sqliteTable("saml_requests", {
  id: text("id").primaryKey(),
  audience: text("audience", { enum: ["user", "admin"] }).notNull(),
  kiosk: integer("kiosk", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

/** Assertion ids already accepted, kept until their NotOnOrAfter, so a replay is refused. */
export const samlAssertions = sqliteTable(
  "saml_assertions",
  {
    id: text("id").primaryKey(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("saml_assertions_expiry_idx").on(t.expiresAt)],
);

/**
 * Audit entries being folded (services/audit-fold.ts): per key ("<action>:<address>") the minute
 * that started at `windowStart` (epoch ms), how many entries of it were `folded` (not written),
 * and the last folded entry (`last`, an AuditEntry as JSON) for the summary entry.
 */
export const auditFolds = sqliteTable("audit_folds", {
  key: text("key").primaryKey(),
  windowStart: integer("window_start").notNull(),
  folded: integer("folded").notNull().default(0),
  last: text("last", { mode: "json" }).$type<Record<string, unknown>>(),
});

/**
 * Sign-in throttling (docs/reference.md design "Security"): failures counted per key ("account:<name>",
 * "ip:<address>") in a window; `blockedUntil` epoch ms.
 */
export const loginThrottle = sqliteTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStart: integer("window_start").notNull(),
  blockedUntil: integer("blocked_until"),
});

/**
 * Counters that SQLite triggers raise on every write to a table (migration 0007_change_counters),
 * whatever the write path: `acls` for the acls table, `users` when a user's licence rank may move
 * (0008), `assignments` for user_acls / group_acls / group_users, `licenses` for the licenses table
 * and `status_settings` for the settings the user status shows (0011). The status read keeps the ACLs' unchanging
 * parts ready and checks the counter to know they are still current (services/status.ts).
 */
export const changeCounters = sqliteTable("change_counters", {
  name: text("name").primaryKey(),
  value: integer("value").notNull().default(0),
});

/**
 * Event webhooks (issue #14 item 4, docs/decisions.md "Event webhooks"). `events` the subscribed types or ["*"];
 * `secretSealed` the signing secret sealed by the SecretBox for purpose `webhook.secret:<id>`; `sinceAuditId` the
 * last audit entry written before the webhook existed (it is sent only later events).
 */
export const webhooks = sqliteTable("webhooks", {
  id: text("id").primaryKey(),
  url: text("url").notNull(),
  events: text("events", { mode: "json" }).$type<string[]>().notNull(),
  description: text("description").notNull().default(""),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  secretSealed: text("secret_sealed").notNull(),
  sinceAuditId: integer("since_audit_id").notNull().default(0),
  createdAt: integer("created_at").notNull(),
});

/**
 * The webhook outbox: one row per (webhook, event), kept after delivery as its history. `auditId` the audit entry
 * that raised it (null for test deliveries; unique per webhook so a replay inserts nothing); `messageId` the
 * `webhook-id` header of every attempt; `payload` the JSON body; `status` pending / delivered / failed;
 * `nextAttemptAt` epoch ms when a pending row is due (also the lease of an attempt in flight); times epoch ms.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    auditId: integer("audit_id"),
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error").notNull().default(""),
    lastAttemptAt: integer("last_attempt_at"),
    nextAttemptAt: integer("next_attempt_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_idx").on(t.webhookId, t.auditId),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_latest_idx").on(t.webhookId, t.createdAt),
  ],
);

/**
 * The audit log's followers (docs/decisions.md "Following the audit log"): `gelf` (the GELF forwarder) and `webhooks`
 * (the webhook dispatcher's collection). While a follower is `active`, a trigger on `audit_log` queues each new
 * entry for it in `audit_outbox`, in the entry's own transaction. The migration seeds both rows.
 */
export const auditFollowers = sqliteTable("audit_followers", {
  name: text("name").primaryKey(),
  active: integer("active", { mode: "boolean" }).notNull().default(false),
});

/**
 * Audit entries waiting for a follower: one row per (follower, entry), deleted once the follower has handled the
 * entry. `claimedUntil` (epoch ms) is the lease of a batch the follower is sending (null: not claimed).
 */
export const auditOutbox = sqliteTable(
  "audit_outbox",
  {
    follower: text("follower").notNull(),
    auditId: integer("audit_id")
      .notNull()
      .references(() => auditLog.id, { onDelete: "cascade" }),
    claimedUntil: integer("claimed_until"),
  },
  (t) => [primaryKey({ columns: [t.follower, t.auditId] }), index("audit_outbox_audit_idx").on(t.auditId)],
);

/**
 * Passkeys (WebAuthn credentials) as a second factor beside TOTP (issue #14 item 2; docs/decisions.md
 * "Passkeys"). Each row belongs to exactly one user (`user_id`) or one admin (`admin_id`) and goes
 * with it. `credentialId` and `publicKey` are base64url (the COSE public key as the authenticator
 * gave it); `counter` the last signature counter seen (0: the authenticator keeps none);
 * `transports` the hints the browser reported; times epoch ms.
 */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    adminId: text("admin_id").references(() => admins.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    credentialId: text("credential_id").notNull().unique(),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    deviceType: text("device_type").notNull(),
    backedUp: integer("backed_up", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("passkeys_user_idx").on(t.userId), index("passkeys_admin_idx").on(t.adminId)],
);

/**
 * WebAuthn challenges handed out and not yet answered: at most one per session (`kind` "user" or
 * "admin" and its session id) and `purpose` ("register" on a signed-in session, "authenticate" on
 * a session still owing its second factor). Each is taken (deleted) by the answer that uses it;
 * `expiresAt` epoch ms (PASSKEY_CHALLENGE_TTL_MS after it was issued).
 */
export const passkeyChallenges = sqliteTable(
  "passkey_challenges",
  {
    kind: text("kind", { enum: ["user", "admin"] }).notNull(),
    sessionId: text("session_id").notNull(),
    purpose: text("purpose", { enum: ["register", "authenticate"] }).notNull(),
    challenge: text("challenge").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.sessionId, t.purpose] }),
    index("passkey_challenges_expiry_idx").on(t.expiresAt),
  ],
);

/**
 * Approval requests (issue #14 item 1; docs/decisions.md "Approval requests"): a user's grant of an ACL
 * that RequiresApproval, held until an approver decides. `state` pending → approved / denied / expired /
 * withdrawn (the user withdrew it or their session ended); `expiresAt` when a pending request expires;
 * `decidedBy` the approver's name (admin or user); `decisionReason` a denial's reason; `grantMinutes`
 * the grant's length the approver chose (null: the ACL's own). Times epoch ms.
 */
export const approvalRequests = sqliteTable(
  "approval_requests",
  {
    id: text("id").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => grants.id, { onDelete: "cascade" }),
    aclId: text("acl_id")
      .notNull()
      .references(() => acls.id, { onDelete: "cascade" }),
    sessionId: text("session_id").notNull(),
    userId: text("user_id").notNull(),
    userName: text("user_name").notNull(),
    ipAddress: text("ip_address").notNull(),
    reason: text("reason").notNull().default(""),
    state: text("state", { enum: ["pending", "approved", "denied", "expired", "withdrawn"] })
      .notNull()
      .default("pending"),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    decidedAt: integer("decided_at"),
    decidedBy: text("decided_by").notNull().default(""),
    decisionReason: text("decision_reason").notNull().default(""),
    grantMinutes: integer("grant_minutes"),
  },
  (t) => [
    index("approval_requests_state_idx").on(t.state, t.expiresAt),
    index("approval_requests_grant_idx").on(t.grantId, t.createdAt),
    index("approval_requests_created_idx").on(t.createdAt),
  ],
);

/**
 * The database schema for PostgreSQL (drizzle pg-core; issue #12 item 2, docs/decisions.md
 * "PostgreSQL schema"): a mirror of schema.ts with the same table names, column names, JS keys,
 * nullability, defaults, unique constraints and indexes, so one repository query runs on either
 * dialect. Times stay epoch milliseconds, as `bigint` read as JS numbers; SQLite's 0/1 booleans are
 * `boolean`; JSON columns are `json` holding the same JS values (and text). schema-parity.test.ts fails when the
 * two schemas drift apart; the migrations are in server/drizzle-pg (drizzle.pg.config.ts), the
 * change-counter triggers in its custom migration 0001_change_counters.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { ObservedAddress } from "./schema.ts";

export type { ObservedAddress } from "./schema.ts";

/** SQLite's `CAST(unixepoch('subsec') * 1000 AS INTEGER)`: the statement's time in epoch ms, truncated. */
const now = sql`(floor(extract(epoch from statement_timestamp()) * 1000))::bigint`;

/** An epoch-milliseconds column (bigint, read as a JS number: exact up to 2^53 ms). */
const epochMs = (name: string) => bigint(name, { mode: "number" });

/**
 * A `json` column holding JS values of type T. `json`, not `jsonb`: PostgreSQL keeps json as the text
 * written, so a value reads back with its keys in the same order, as from SQLite's JSON text, and the
 * services that compare a stored value with a new one by `JSON.stringify` (acls.ts, backends.ts) see
 * no change where there is none (jsonb reorders keys). Unlike drizzle's own `json`, it does not parse
 * again what node-postgres already parsed: drizzle's would turn the JSON string "123" (a setting's
 * value) into the number 123. Writes send JSON text.
 */
const json = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "json",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => value,
});
const jsonOf = <T>(name: string) => json(name).$type<T>();

/** End users (docs/reference.md admin-console §3 "User"). Duration in minutes; password as a PHC string. */
export const users = pgTable(
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
    totpEnabled: boolean("totp_enabled").notNull().default(false),
    totpSecretEnc: text("totp_secret_enc"),
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    validUntil: epochMs("valid_until"),
    dn: text("dn").notNull().default(""),
    disabled: boolean("disabled").notNull().default(false),
    createdAt: epochMs("created_at").notNull().default(now),
    lastLogin: epochMs("last_login"),
  },
  (t) => [index("users_created_idx").on(t.createdAt, t.id), index("users_valid_until_idx").on(t.validUntil)],
);

/** Administrators (docs/reference.md admin-console §3 "Admin"). Never counted against the licence. */
export const admins = pgTable("admins", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  userName: text("user_name").notNull().unique(),
  authType: text("auth_type", { enum: ["local", "SAML", "LDAP"] }).notNull(),
  passwordHash: text("password_hash"),
  totpEnabled: boolean("totp_enabled").notNull().default(false),
  totpSecretEnc: text("totp_secret_enc"),
  totpLastStep: bigint("totp_last_step", { mode: "number" }),
  loginEnabled: boolean("login_enabled").notNull().default(true),
  dn: text("dn").notNull().default(""),
  createdAt: epochMs("created_at").notNull().default(now),
  lastLogin: epochMs("last_login"),
});

/** User sessions (schema.ts `userSessions`). */
export const userSessions = pgTable(
  "user_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: epochMs("created_at").notNull(),
    endsAt: epochMs("ends_at").notNull(),
    kiosk: boolean("kiosk").notNull().default(false),
    ipAddress: text("ip_address").notNull(),
    discoveredIps: jsonOf<ObservedAddress[]>("discovered_ips").notNull().default([]),
    observedUntil: epochMs("observed_until"),
    /** Deliberately no foreign key (schema.ts `userSessions.apiKeyId`). */
    apiKeyId: text("api_key_id"),
    verified: boolean("verified").notNull().default(true),
    endedAt: epochMs("ended_at"),
    endReason: text("end_reason"),
    /** Raised by triggers on every write to this session's grants (schema.ts `userSessions.statusVersion`). */
    statusVersion: bigint("status_version", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    index("user_sessions_user_idx").on(t.userId, t.endedAt),
    index("user_sessions_ends_idx").on(t.endedAt, t.endsAt),
    index("user_sessions_observed_idx").on(t.endedAt, t.observedUntil),
    index("user_sessions_api_key_idx").on(t.endedAt, t.apiKeyId),
  ],
);

/** Admin sessions (docs/reference.md admin-console §3 "Admin session: ID, Created, IPAddress"). */
export const adminSessions = pgTable(
  "admin_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    adminId: text("admin_id")
      .notNull()
      .references(() => admins.id, { onDelete: "cascade" }),
    createdAt: epochMs("created_at").notNull(),
    endsAt: epochMs("ends_at").notNull(),
    ipAddress: text("ip_address").notNull(),
    verified: boolean("verified").notNull().default(true),
    endedAt: epochMs("ended_at"),
  },
  (t) => [index("admin_sessions_admin_idx").on(t.adminId)],
);

/** Agents (docs/reference.md admin-console §3 "Agent"; schema.ts `agents`). */
export const agents = pgTable("agents", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  tokenHash: text("token_hash").unique(),
  tokenExpiresAt: epochMs("token_expires_at"),
  tokenUsedAt: epochMs("token_used_at"),
  signingPublicKey: text("signing_public_key"),
  boxPublicKey: text("box_public_key"),
  version: text("version").notNull().default(""),
  capabilities: jsonOf<Record<string, unknown>>("capabilities").notNull().default({}),
  externalIp: text("external_ip").notNull().default(""),
  lastSeen: epochMs("last_seen"),
  createdAt: epochMs("created_at").notNull().default(now),
});

/** Backends (docs/reference.md admin-console §3 "BackendConfig"). `config` is the BackendConfig object; secrets sealed. */
export const backends = pgTable("backends", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  agentId: text("agent_id").references(() => agents.id, { onDelete: "restrict" }),
  type: text("type").notNull(),
  config: jsonOf<Record<string, unknown>>("config").notNull(),
  sealedSecrets: jsonOf<Record<string, string>>("sealed_secrets").notNull().default({}),
  createdAt: epochMs("created_at").notNull().default(now),
  updatedAt: epochMs("updated_at").notNull().default(now),
  updatedBy: text("updated_by").notNull().default(""),
});

/** ACLs / Knocs (docs/reference.md admin-console §3 "Knoc (ACL)"). MaximumGrantDuration in seconds (null: unlimited). */
export const acls = pgTable(
  "acls",
  {
    id: text("id").primaryKey(),
    parentId: text("parent_id"),
    description: text("description").notNull(),
    url: text("url").notNull().default(""),
    category: text("category").notNull().default("Default"),
    icon: text("icon").notNull().default(""),
    clickToGrant: boolean("click_to_grant").notNull().default(false),
    cgnatOpen: boolean("cgnat_open").notNull().default(false),
    hideFromUsers: boolean("hide_from_users").notNull().default(false),
    hideFromAdmins: boolean("hide_from_admins").notNull().default(false),
    autoBrowseUsers: boolean("auto_browse_users").notNull().default(false),
    maximumGrantDurationSeconds: integer("maximum_grant_duration_seconds"),
    requiresApproval: boolean("requires_approval").notNull().default(false),
    approverGroupIds: jsonOf<string[]>("approver_group_ids")
      .notNull()
      .default(sql`'[]'`),
    approvalTimeoutSeconds: integer("approval_timeout_seconds").notNull().default(3600),
    backendId: text("backend_id")
      .notNull()
      .references(() => backends.id, { onDelete: "restrict" }),
    ipExclusions: jsonOf<Record<string, unknown>>("ip_exclusions").notNull(),
    grantType: jsonOf<Record<string, unknown>>("grant_type").notNull(),
    config: jsonOf<Record<string, unknown>>("config").notNull(),
    createdAt: epochMs("created_at").notNull().default(now),
    updatedAt: epochMs("updated_at").notNull().default(now),
    updatedBy: text("updated_by").notNull().default(""),
  },
  (t) => [index("acls_backend_idx").on(t.backendId)],
);

/** Groups (docs/reference.md admin-console §3 "Group"): type dynamic, local or saml. */
export const groups = pgTable("groups", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  description: text("description").notNull().default(""),
  type: text("type", { enum: ["dynamic", "local", "saml"] }).notNull(),
  createdAt: epochMs("created_at").notNull().default(now),
});

/** ACLs assigned directly to users (User.AclIds). */
export const userAcls = pgTable(
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
export const groupUsers = pgTable(
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
export const groupAcls = pgTable(
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

/** API keys (docs/reference.md admin-console §3 "API key"; schema.ts `apiKeys`). */
export const apiKeys = pgTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  secretHash: text("secret_hash").notNull(),
  scopes: jsonOf<string[]>("scopes").notNull(),
  allowedFrom: jsonOf<{ Prefix: string; Note: string }[]>("allowed_from").notNull(),
  expiredAfter: epochMs("expired_after"),
  createdAt: epochMs("created_at").notNull().default(now),
  lastUsedAt: epochMs("last_used_at"),
});

/** Grants: one status entry per (user session, ACL) (schema.ts `grants`). */
export const grants = pgTable(
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
    grantedAt: epochMs("granted_at"),
    expiresAt: epochMs("expires_at"),
    updatedAt: epochMs("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("grants_session_acl_idx").on(t.sessionId, t.aclId),
    index("grants_acl_status_expiry_idx").on(t.aclId, t.status, t.expiresAt),
    index("grants_status_expiry_idx").on(t.status, t.expiresAt),
  ],
);

/** Addresses a grant carries (the user's address, CGNAT extras or fixed addresses), normalised. */
export const grantAddresses = pgTable(
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
export const grantStatusHistory = pgTable(
  "grant_status_history",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    grantId: text("grant_id")
      .notNull()
      .references(() => grants.id, { onDelete: "cascade" }),
    status: integer("status").notNull(),
    error: text("error").notNull().default(""),
    at: epochMs("at").notNull(),
  },
  (t) => [index("grant_status_history_grant_idx").on(t.grantId)],
);

/** Settings as key → JSON value (General and Authentication settings of docs/reference.md admin-console §3). */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: json("value").notNull(),
});

/** Installed licence keys (docs/reference.md admin-console §3 "License status"). */
export const licenses = pgTable("licenses", {
  id: text("id").primaryKey(),
  key: text("key").notNull(),
  payload: jsonOf<Record<string, unknown>>("payload").notNull(),
  installedAt: epochMs("installed_at").notNull().default(now),
});

/** The audit log (docs/reference.md admin-console §3 "Audit log entry"): action kind plus who, what, from where. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: epochMs("at").notNull(),
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

/** SAML AuthnRequests sent and not yet answered (schema.ts `samlRequests`). */
export const samlRequests = pgTable("saml_requests", {
  id: text("id").primaryKey(),
  audience: text("audience", { enum: ["user", "admin"] }).notNull(),
  kiosk: boolean("kiosk").notNull().default(false),
  createdAt: epochMs("created_at").notNull(),
  expiresAt: epochMs("expires_at").notNull(),
});

/** Assertion ids already accepted, kept until their NotOnOrAfter, so a replay is refused. */
export const samlAssertions = pgTable(
  "saml_assertions",
  {
    id: text("id").primaryKey(),
    expiresAt: epochMs("expires_at").notNull(),
  },
  (t) => [index("saml_assertions_expiry_idx").on(t.expiresAt)],
);

/** Audit entries being folded (schema.ts `auditFolds`, services/audit-fold.ts). */
export const auditFolds = pgTable("audit_folds", {
  key: text("key").primaryKey(),
  windowStart: epochMs("window_start").notNull(),
  folded: integer("folded").notNull().default(0),
  last: jsonOf<Record<string, unknown>>("last"),
});

/** Sign-in throttling (docs/reference.md design "Security"; schema.ts `loginThrottle`). */
export const loginThrottle = pgTable("login_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStart: epochMs("window_start").notNull(),
  blockedUntil: epochMs("blocked_until"),
});

/**
 * Counters that triggers raise on every write to a table (schema.ts `changeCounters`); on PostgreSQL
 * the plpgsql trigger functions of server/drizzle-pg/0001_change_counters.sql.
 */
export const changeCounters = pgTable("change_counters", {
  name: text("name").primaryKey(),
  value: bigint("value", { mode: "number" }).notNull().default(0),
});

/** Event webhooks (schema.ts `webhooks`; issue #14 item 4). `sinceAuditId` an audit_log id. */
export const webhooks = pgTable("webhooks", {
  id: text("id").primaryKey(),
  url: text("url").notNull(),
  events: jsonOf<string[]>("events").notNull(),
  description: text("description").notNull().default(""),
  enabled: boolean("enabled").notNull().default(true),
  secretSealed: text("secret_sealed").notNull(),
  sinceAuditId: bigint("since_audit_id", { mode: "number" }).notNull().default(0),
  createdAt: epochMs("created_at").notNull(),
});

/** The webhook outbox (schema.ts `webhookDeliveries`). */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    auditId: bigint("audit_id", { mode: "number" }),
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error").notNull().default(""),
    lastAttemptAt: epochMs("last_attempt_at"),
    nextAttemptAt: epochMs("next_attempt_at"),
    createdAt: epochMs("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_idx").on(t.webhookId, t.auditId),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_latest_idx").on(t.webhookId, t.createdAt),
  ],
);

/** The audit log's followers (schema.ts `auditFollowers`). */
export const auditFollowers = pgTable("audit_followers", {
  name: text("name").primaryKey(),
  active: boolean("active").notNull().default(false),
});

/** Audit entries waiting for a follower (schema.ts `auditOutbox`). */
export const auditOutbox = pgTable(
  "audit_outbox",
  {
    follower: text("follower").notNull(),
    auditId: bigint("audit_id", { mode: "number" })
      .notNull()
      .references(() => auditLog.id, { onDelete: "cascade" }),
    claimedUntil: epochMs("claimed_until"),
  },
  (t) => [primaryKey({ columns: [t.follower, t.auditId] }), index("audit_outbox_audit_idx").on(t.auditId)],
);
/** WebAuthn passkeys of users and admins (schema.ts `passkeys`; issue #14 item 2). */
export const passkeys = pgTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    adminId: text("admin_id").references(() => admins.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    credentialId: text("credential_id").notNull().unique(),
    publicKey: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: jsonOf<string[]>("transports")
      .notNull()
      .default(sql`'[]'`),
    deviceType: text("device_type").notNull(),
    backedUp: boolean("backed_up").notNull().default(false),
    createdAt: epochMs("created_at").notNull(),
    lastUsedAt: epochMs("last_used_at"),
  },
  (t) => [index("passkeys_user_idx").on(t.userId), index("passkeys_admin_idx").on(t.adminId)],
);

/** WebAuthn challenges handed out and not yet answered (schema.ts `passkeyChallenges`). */
export const passkeyChallenges = pgTable(
  "passkey_challenges",
  {
    kind: text("kind", { enum: ["user", "admin"] }).notNull(),
    sessionId: text("session_id").notNull(),
    purpose: text("purpose", { enum: ["register", "authenticate"] }).notNull(),
    challenge: text("challenge").notNull(),
    expiresAt: epochMs("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.sessionId, t.purpose] }),
    index("passkey_challenges_expiry_idx").on(t.expiresAt),
  ],
);

/** Approval requests (schema.ts `approvalRequests`). */
export const approvalRequests = pgTable(
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
    createdAt: epochMs("created_at").notNull(),
    expiresAt: epochMs("expires_at").notNull(),
    decidedAt: epochMs("decided_at"),
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

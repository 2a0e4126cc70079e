/**
 * The composition root of the server's services: one grant engine, one agent hub, and the services
 * the routes call. Built once per server by `createServices`.
 */
import type { Db } from "../db/index.ts";
import { ServerMetrics } from "./metrics.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../logger.ts";
import { AgentHub } from "../agent-hub/hub.ts";
import { generateServerSigningKey } from "../agent-hub/server-key.ts";
import type { ServerSigningKey } from "../agent-hub/server-key.ts";
import { GrantEngine } from "./grants/engine.ts";
import { UserSessionService } from "./auth/user-sessions.ts";
import { AdminSessionService } from "./auth/admin-sessions.ts";
import { createLdapVerifier, withLdap } from "./auth/ldap.ts";
import { AgentService } from "./agents.ts";
import { BackendService } from "./backends.ts";
import { AclService } from "./acls.ts";
import { UserService } from "./users.ts";
import { GroupService } from "./groups.ts";
import { AdminService } from "./admins.ts";
import { SessionService } from "./sessions.ts";
import { StatusService } from "./status.ts";
import { LicensingService } from "./licensing/service.ts";
import { ApiKeyService } from "./api-keys.ts";
import { AuditLogService } from "./audit-log.ts";
import { SecretBox } from "./secrets/at-rest.ts";
import { AdminSettingsService } from "./admin-settings.ts";
import { AdminStatusService } from "./admin-status.ts";
import { KnocService } from "./knocs.ts";
import { SamlService } from "./saml/service.ts";
import { LoginThrottle } from "./auth/throttle.ts";
import { PasswordChangeService } from "./auth/password-change.ts";
import { TotpService } from "./auth/totp.ts";
import { PasskeyService } from "./auth/passkeys.ts";
import { ApiKeyUserService } from "./auth/api-key-users.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import type { WebhookDispatcherOptions } from "./webhooks/dispatcher.ts";
import { WebhookService } from "./webhooks/service.ts";
import { ApprovalService } from "./approvals.ts";
import { randomBytes } from "node:crypto";

/** Every service of a running server. */
export interface Services {
  db: Db;
  clock: Clock;
  log: Logger;
  engine: GrantEngine;
  hub: AgentHub;
  userSessions: UserSessionService;
  adminSessions: AdminSessionService;
  agents: AgentService;
  backends: BackendService;
  acls: AclService;
  users: UserService;
  groups: GroupService;
  admins: AdminService;
  sessions: SessionService;
  status: StatusService;
  /** Licence install, status and gates (POSTERN_LICENSE_PUBLIC_KEYS are its trusted keys). */
  licensing: LicensingService;
  /** API keys, the public allowlists and the user-sessions API. */
  apiKeys: ApiKeyService;
  /** The audit log's read side: paged search, 30-day clear, CSV export. */
  auditLog: AuditLogService;
  /** The JS bundle hash of the built web app ("" when not built). */
  jsBundleHash: string;
  /** Secrets at rest (SAML keys, TOTP secrets): AES-256-GCM with the data dir's key file. */
  secrets: SecretBox;
  adminSettings: AdminSettingsService;
  /** GET /admin/status. */
  adminStatus: AdminStatusService;
  /** Knocs: the read view and the create/update/delete operations. */
  knocs: KnocService;
  /** SAML sign-in for users and admins: SP metadata, AuthnRequests, ACS checks, provisioning. */
  saml: SamlService;
  /** Sign-in and 2FA throttling (checkCode / recordCodeFailure / recordCodeSuccess for TOTP codes). */
  throttle: LoginThrottle;
  /** Users' and admins' own password changes (PUT/POST /password). */
  passwordChange: PasswordChangeService;
  /** TOTP enrolment and verification of pending sign-ins (users and admins); throttling hooks via `totp.useHooks`. */
  totp: TotpService;
  /** Passkeys (WebAuthn) of users and admins: enrolment, removal, and sign-in as the second factor. */
  passkeys: PasskeyService;
  /** API-key users: creation with a key, sign-in and sessions at /api/v1/user_sessions. */
  apiKeyUsers: ApiKeyUserService;
  /** Prometheus metrics of this server (GET /metrics). */
  metrics: ServerMetrics;
  /** Event webhooks: the admin API (/admin/webhooks). */
  webhooks: WebhookService;
  /** Event webhook deliveries: the server starts and stops it; tests may drive it with `settle`. */
  webhookDispatcher: WebhookDispatcher;
  /** Approval requests: the engine's hooks, the approvers' API, the expiry sweep (`sweep`, run with the engine's). */
  approvals: ApprovalService;
}

/** Builds the services over an open, migrated database. */
export function createServices(opts: {
  db: Db;
  clock: Clock;
  log: Logger;
  jsBundleHash: string;
  secretKey?: Buffer;
  licensePublicKeys?: readonly string[];
  /** The configured log level DebugMode falls back to (default: the logger's level now). */
  logLevel?: string;
  /** The server's agent signing key (default: a fresh one in memory). */
  serverKey?: ServerSigningKey;
  /** Lifetime of agent install tokens in milliseconds (default 24 hours). */
  agentTokenLifetimeMs?: number;
  /** Retry schedule and timeout of webhook deliveries (default: services/webhooks/dispatcher.ts). */
  webhookDelivery?: Pick<WebhookDispatcherOptions, "retryScheduleMs" | "timeoutMs" | "pollIntervalMs">;
}): Services {
  const { db, clock, log } = opts;
  const engine = new GrantEngine(db, clock, log);
  const serverKey = opts.serverKey ?? generateServerSigningKey();
  const hub = new AgentHub({ db, clock, log, engine, serverKey });
  const deps = { db, clock, engine, resync: async (agentId: string) => await engine.resync(agentId) };
  const secrets = new SecretBox(opts.secretKey ?? randomBytes(32));
  const licensing = new LicensingService({ ...deps, licensePublicKeys: opts.licensePublicKeys ?? [] });
  const backends = new BackendService(deps);
  const acls = new AclService(deps);
  const agents = new AgentService(
    db,
    clock,
    {
      isConnected: (id) => engine.agentOnline(id),
      // Through the engine's channel: with replicas, the one holding the agent's connection acts (cluster.ts).
      disconnect: (id) => engine.disconnectAgent(id),
      renamed: (id, name) => engine.agentRenamed(id, name),
    },
    {
      serverKey: serverKey.publicKey,
      ...(opts.agentTokenLifetimeMs !== undefined ? { tokenLifetimeMs: opts.agentTokenLifetimeMs } : {}),
    },
  );
  const apiKeys = new ApiKeyService(deps);
  const userSessions = withLdap(new UserSessionService(deps), createLdapVerifier({ db, clock, log }, "user"));
  const users = new UserService(deps);
  const approvals = new ApprovalService(deps);
  engine.approvals = approvals;
  const status = new StatusService(deps, approvals);
  const throttle = new LoginThrottle(db, clock);
  const metrics = new ServerMetrics(db, () => hub.connectedCount);
  engine.onGrantAcknowledged = (seconds) => metrics.grantAcknowledged(seconds);
  const webhookDispatcher = new WebhookDispatcher({ db, clock, log, secrets, ...opts.webhookDelivery });
  return {
    db,
    clock,
    log,
    engine,
    hub,
    userSessions,
    adminSessions: withLdap(new AdminSessionService(db, clock), createLdapVerifier({ db, clock, log }, "admin")),
    agents,
    backends,
    acls,
    users,
    groups: new GroupService(deps),
    admins: new AdminService(deps),
    sessions: new SessionService(deps),
    status,
    licensing,
    apiKeys,
    auditLog: new AuditLogService(deps),
    jsBundleHash: opts.jsBundleHash,
    secrets,
    adminSettings: new AdminSettingsService(db, clock, secrets, { log, baseLevel: opts.logLevel ?? log.level }),
    adminStatus: new AdminStatusService(db, clock, () => licensing.summary()),
    knocs: new KnocService(deps, { backends, acls, apiKeys, agents, licensing }),
    saml: new SamlService({ ...deps, log, settings: new AdminSettingsService(db, clock, secrets) }),
    throttle,
    passwordChange: new PasswordChangeService(deps),
    totp: new TotpService(deps, secrets, throttle.codeHooks()),
    passkeys: new PasskeyService(deps, throttle.codeHooks()),
    apiKeyUsers: new ApiKeyUserService(deps, { apiKeys, users, userSessions, status, licensing }),
    metrics,
    webhooks: new WebhookService({ db, clock, secrets, dispatcher: webhookDispatcher }),
    webhookDispatcher,
    approvals,
  };
}

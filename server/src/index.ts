/** @postern/server: start a server, open and migrate its database, and the admin bootstrap used by the CLI. */
export { startServer, parseListen, DEFAULT_WEB_DIR } from "./server.ts";
export { databasePath } from "./db/index.ts";
export { backupDataDir, restoreDataDir, runningServerPid } from "./db/backup.ts";
export type { BackupManifest, RestoreResult } from "./db/backup.ts";
export type { StartOptions, RunningServer } from "./server.ts";
export { openDatabase, openConfiguredDatabase, migrateDatabase, pendingMigrations } from "./db/index.ts";
export type { OpenDatabase } from "./db/index.ts";
export { openPostgres, migratePostgres } from "./db/postgres.ts";
export { copySqliteToPostgres, TargetNotEmptyError, DEFAULT_COPY_BATCH } from "./db/copy.ts";
export type { CopiedTable } from "./db/copy.ts";
export { TestClock, systemClock } from "./clock.ts";
export type { Clock } from "./clock.ts";
export { AdminSessionService } from "./services/auth/admin-sessions.ts";
export { AgentService } from "./services/agents.ts";
export { agentTokenLifetimeMs, readServerConfig } from "./config/index.ts";
export type { ServerConfig } from "./config/index.ts";
export { selfSignedPaths } from "./http/tls.ts";
export { tlsPinOf } from "./services/agent-install.ts";
export { loadOrCreateServerSigningKey } from "./agent-hub/server-key.ts";
export { createLogger } from "./logger.ts";
export { UserService } from "./services/users.ts";
export { GrantEngine } from "./services/grants/engine.ts";
export { getSetting } from "./services/settings.ts";
export { LicensingService } from "./services/licensing/service.ts";
export {
  generateLicenseSigningKey,
  parseLicensePrivateKey,
  parseLicensePublicKeys,
  signLicense,
  verifyLicense,
} from "./services/licensing/keys.ts";

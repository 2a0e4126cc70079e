/** @postern/shared: the wire contract imported by server, agent, CLI and web. */
export * from "./errors.ts";
export * from "./grant-status.ts";
export * from "./limits.ts";
export * from "./ip.ts";
export * from "./common.ts";
export * from "./api/user.ts";
export * from "./api/agent.ts";
export * from "./api/backend.ts";
export * from "./api/acl.ts";
export * from "./api/admin.ts";
export * from "./api/license.ts";
export * from "./api/logs.ts";
export * from "./api/group.ts";
export * from "./api/admins.ts";
export * from "./api/api-key.ts";
export * from "./agent-protocol.ts";
export * from "./api/settings.ts";

/**
 * Backends (admin-console §3 "BackendConfig", §5 "Backend"). BackendConfig has exactly one key naming
 * its type. This release implements the haproxy, ipset and allowlist types; the other types of §3 add
 * a key here.
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";
import { NONE_ID } from "../limits.ts";

/** haproxy backend: the runtime API address (`/var/run/haproxy.sock` for unix, `host:9999` for tcp). */
export const HaproxyBackendConfigSchema = z.object({
  Protocol: z.enum(["unix", "tcp"]),
  Address: z.string().trim().min(1),
});
/** ipset backend: no backend fields; the set names live on the ACL. */
export const IpsetBackendConfigSchema = z.object({}).strict();

/** allowlist backend (passive Knocs): no fields and no agent; the list is served by the server. */
export const AllowlistBackendConfigSchema = z.object({}).strict();

/** BackendConfig: exactly one key naming the type. */
export const BackendConfigSchema = z.union([
  z.object({ haproxy: HaproxyBackendConfigSchema }).strict(),
  z.object({ ipset: IpsetBackendConfigSchema }).strict(),
  z.object({ allowlist: AllowlistBackendConfigSchema }).strict(),
]);
/** BackendConfig: exactly one key naming the type. */
export type BackendConfig = z.infer<typeof BackendConfigSchema>;
/** Backend type names implemented in this release. */
export type BackendType = "haproxy" | "ipset" | "allowlist";

/** Returns the type named by a BackendConfig's single key. */
export function backendTypeOf(config: BackendConfig): BackendType {
  return Object.keys(config)[0] as BackendType;
}

/** True for backend types that no agent enforces (admin-console §3: "bound to an agent (except the allowlist type)"). */
export function isAgentless(type: string): boolean {
  return type === "allowlist";
}

/** A backend as read and written by admins (admin-console §7 "Backend: {ID, Name, AgentID, Config}"). */
export const BackendSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  AgentID: IdSchema,
  Config: BackendConfigSchema,
  LastModifiedAt: z.string(),
});
/** A backend as read by admins. */
export type Backend = z.infer<typeof BackendSchema>;

/** POST/PUT /api/admin/backends body. AgentID is required for every type except allowlist. */
export const BackendWriteSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().min(1),
  AgentID: IdSchema.default(NONE_ID),
  Config: BackendConfigSchema,
});
/** POST/PUT /api/admin/backends body. */
export type BackendWrite = z.infer<typeof BackendWriteSchema>;

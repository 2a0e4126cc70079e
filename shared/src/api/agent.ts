/**
 * Agents as the admin API carries them (docs/reference.md admin-console §3 "Agent", §7 "Agent: {ID, Name, Token}").
 */
import { z } from "zod";
import { IdSchema } from "../common.ts";

/**
 * Capabilities an agent reports (docs/reference.md admin-console §3), plus `nftables` (docs/decisions.md "nftables
 * backend": the command usable and the sets found, each with its table as `<family> <name>`).
 */
export const AgentCapabilitiesSchema = z.object({
  "os-release": z.object({ NAME: z.string(), VERSION: z.string() }).optional(),
  ipset: z
    .object({
      ipsets: z.array(z.object({ name: z.string(), address_family: z.enum(["inet", "inet6"]) })),
      command_available: z.boolean(),
      sudo_enabled: z.boolean(),
    })
    .optional(),
  script: z.object({ enabled: z.boolean() }).optional(),
  haproxy: z.object({ socket_location: z.string() }).optional(),
  nftables: z
    .object({
      command_available: z.boolean(),
      sets: z.array(z.object({ table: z.string(), name: z.string(), type: z.string(), timeout: z.boolean() })),
    })
    .optional(),
});
/** Capabilities an agent reports. */
export type AgentCapabilities = z.infer<typeof AgentCapabilitiesSchema>;

/** An agent as listed and read by admins. LastSeen is null until the agent first connects. */
export const AgentSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  Token: z.string(),
  LastSeen: z.string().nullable(),
  Version: z.string(),
  ExternalIP: z.string(),
  Capabilities: AgentCapabilitiesSchema,
  Backends: z.array(z.object({ ID: IdSchema, Name: z.string() })),
  /** True while the agent holds a live connection to this server. */
  Connected: z.boolean(),
});
/** An agent as listed and read by admins. */
export type Agent = z.infer<typeof AgentSchema>;

/** POST/PUT /api/admin/agents body: the name (unique). */
export const AgentWriteSchema = z.object({
  ID: IdSchema.optional(),
  Name: z.string().trim().min(1).max(128),
  Token: z.string().optional(),
});
/** POST/PUT /api/admin/agents body. */
export type AgentWrite = z.infer<typeof AgentWriteSchema>;

/** POST /api/admin/agents response: the new agent plus its one-time install command. */
export const AgentCreatedSchema = z.object({
  ID: IdSchema,
  Name: z.string(),
  Token: z.string(),
  InstallCommand: z.string(),
});
/** POST /api/admin/agents response. */
export type AgentCreated = z.infer<typeof AgentCreatedSchema>;

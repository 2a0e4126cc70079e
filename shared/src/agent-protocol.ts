/**
 * The agent protocol (design.md "Agent protocol").
 *
 * Enrolment: `POST /api/agent/enrol` with the one-time agent token and the agent's own public keys.
 * Connection: the agent dials `GET /api/agent/connect` as a WebSocket and keeps it open. The server
 * speaks first with a `challenge`; the agent answers `hello`, signing the nonce with its Ed25519
 * private key. From then on the server pushes sequence-numbered `sync` (the full desired state, sent
 * on every connect and whenever a target's configuration changes) and `apply` (incremental changes)
 * messages; the agent handles them strictly in order and answers each with an `ack` carrying the
 * outcome of every entry. Entries carry their absolute expiry: the agent removes them on time on its
 * own (and sets native timeouts where the target has them), so access ends even if the server is away.
 */
import { z } from "zod";
import { AgentCapabilitiesSchema } from "./api/agent.ts";
import { BackendConfigSchema } from "./api/backend.ts";
import { AclTypeConfigSchemas } from "./api/acl.ts";
import { AGENT_BACKEND_TYPES } from "./backend-types.ts";
import type { TargetAcl } from "./backend-types.ts";

/** The protocol version spoken by this release. */
export const AGENT_PROTOCOL_VERSION = 1;
/** HTTP path of enrolment (POST, JSON). */
export const AGENT_ENROL_PATH = "/api/agent/enrol";
/** HTTP path of the agent's WebSocket. */
export const AGENT_CONNECT_PATH = "/api/agent/connect";

/** POST /api/agent/enrol body. Keys are base64 (Ed25519 SPKI DER; X25519 raw 32 bytes for sealed boxes). */
export const EnrolRequestSchema = z.object({
  Token: z.string().min(1),
  SigningPublicKey: z.string().min(1),
  BoxPublicKey: z.string().min(1),
  Version: z.string(),
  Capabilities: AgentCapabilitiesSchema,
});
/** POST /api/agent/enrol body. */
export type EnrolRequest = z.infer<typeof EnrolRequestSchema>;
/** POST /api/agent/enrol response. */
export const EnrolResponseSchema = z.object({ AgentID: z.string(), Name: z.string() });
/** POST /api/agent/enrol response. */
export type EnrolResponse = z.infer<typeof EnrolResponseSchema>;

/**
 * The ACL fields of a target: `{ <type>: fields }` for one of the types an agent enforces
 * (`AGENT_BACKEND_TYPES`, read from the backend descriptors).
 */
export const TargetAclSchema = z.union(
  AGENT_BACKEND_TYPES.map((type) => z.object({ [type]: AclTypeConfigSchemas[type] })) as unknown as [
    z.ZodType,
    z.ZodType,
    ...z.ZodType[],
  ],
) as unknown as z.ZodType<TargetAcl>;

/**
 * Sealed secrets of a target (issue #10 item 4): the backend's secret fields by name (`Bearer`,
 * `ApiKey`, ...) and the ACL's Sensitive script variables as `env:<NAME>`, each a base64 libsodium
 * sealed box to the agent's X25519 key. Only the agent opens them; they are not part of the target's
 * identity, so a credential change never empties the target.
 */
export const SealedSecretsSchema = z.record(z.string(), z.string());

/**
 * One enforcement target: an ACL on a backend. `key` is the ACL id; an entry is (target, address).
 * The target carries its whole configuration so the agent needs no other state to apply an entry.
 */
export const TargetSchema = z.object({
  key: z.string(),
  backendId: z.string(),
  backend: BackendConfigSchema,
  acl: TargetAclSchema,
  secrets: SealedSecretsSchema.optional(),
});
/** One enforcement target. */
export type Target = z.infer<typeof TargetSchema>;

/**
 * One address in a target with its absolute expiry (epoch milliseconds) and, when the server knows it,
 * the user name of a grant holding it (script `knoc_username`, webhook `user`).
 */
export const EntrySchema = z.object({ ip: z.string(), expiresAt: z.number().int(), user: z.string().optional() });
/** One address in a target with its absolute expiry. */
export type Entry = z.infer<typeof EntrySchema>;

/** One target's desired content in a `sync`. */
export const TargetStateSchema = z.object({ target: TargetSchema, entries: z.array(EntrySchema) });
/** One target's desired content. */
export type TargetState = z.infer<typeof TargetStateSchema>;

/** One incremental change: add (or extend the expiry of) an entry, or delete it. */
export const OpSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("add"),
    target: TargetSchema,
    ip: z.string(),
    expiresAt: z.number().int(),
    user: z.string().optional(),
  }),
  z.object({ op: z.literal("del"), target: TargetSchema, ip: z.string() }),
]);
/** One incremental change. */
export type Op = z.infer<typeof OpSchema>;

/** Server → agent messages. */
export const ServerToAgentSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("challenge"), nonce: z.string(), protocol: z.number().int() }),
  z.object({ type: z.literal("welcome"), agentId: z.string(), serverTime: z.number().int() }),
  /** Full desired state: every target of this agent with every entry it must hold, nothing else. */
  z.object({ type: z.literal("sync"), seq: z.number().int(), targets: z.array(TargetStateSchema) }),
  z.object({ type: z.literal("apply"), seq: z.number().int(), ops: z.array(OpSchema) }),
  /** Ask the agent to report its capabilities again. */
  z.object({ type: z.literal("refresh-capabilities"), seq: z.number().int() }),
]);
/** Server → agent messages. */
export type ServerToAgent = z.infer<typeof ServerToAgentSchema>;

/** Outcome of one entry in an ack. */
export const EntryResultSchema = z.object({
  key: z.string(),
  ip: z.string(),
  op: z.enum(["add", "del"]),
  ok: z.boolean(),
  error: z.string().optional(),
});
/** Outcome of one entry in an ack. */
export type EntryResult = z.infer<typeof EntryResultSchema>;

/** Agent → server messages. */
export const AgentToServerSchema = z.discriminatedUnion("type", [
  /** Answer to `challenge`: base64 Ed25519 signature over the UTF-8 bytes of `postern-agent:${agentId}:${nonce}`. */
  z.object({
    type: z.literal("hello"),
    agentId: z.string(),
    signature: z.string(),
    version: z.string(),
    capabilities: AgentCapabilitiesSchema,
  }),
  /** Acknowledges message `seq` after it was applied; `results` has one row per entry touched. */
  z.object({ type: z.literal("ack"), seq: z.number().int(), results: z.array(EntryResultSchema) }),
  z.object({ type: z.literal("capabilities"), seq: z.number().int(), capabilities: AgentCapabilitiesSchema }),
]);
/** Agent → server messages. */
export type AgentToServer = z.infer<typeof AgentToServerSchema>;

/** The bytes an agent signs to answer a challenge. */
export function challengePayload(agentId: string, nonce: string): string {
  return `postern-agent:${agentId}:${nonce}`;
}

/** WebSocket close codes used by the server. */
export const AgentCloseCode = {
  authFailed: 4401,
  replaced: 4409,
  protocolError: 4400,
  shutdown: 1001,
} as const;

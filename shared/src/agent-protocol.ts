/**
 * The agent protocol (docs/reference.md design "Agent protocol").
 *
 * Enrolment: `POST /api/agent/enrol` with the one-time agent token and the agent's own public keys
 * (or `POST /api/agent/register` with an API key of scope `agent.register`); the answer carries the
 * server's agent signing key, which the agent pins. Connection: the agent dials
 * `GET /api/agent/connect?nonce=<fresh nonce>` as a WebSocket and keeps it open. The server speaks
 * first with a `challenge`; every server frame is signed with the pinned key, bound to the nonce and
 * the frame's position (serverFramePayload); the agent answers `hello`, signing the server's nonce
 * with its Ed25519 private key. An agent whose hello asks for `frameAuth` gets, in the (signed)
 * `welcome`, the public half of a fresh X25519 key of the server's from which both sides derive a
 * per-connection HMAC key (deriveFrameKey); later frames carry an HMAC-SHA256 under that key, with the
 * same binding, instead of a signature (serverFramePrefix). From then on the server pushes sequence-numbered `sync` (the full desired state, sent
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

/**
 * The protocol version spoken by this release. 2: every server frame is signed with the server's
 * agent signing key (see `serverFramePayload`), bound to the agent's connection nonce — or, after a
 * `welcome` carrying `frameKeyShare`, authenticated with that socket's HMAC key (an optional extension of
 * version 2: the hello's `frameAuth` asks for it, so older agents and servers are unaffected).
 */
export const AGENT_PROTOCOL_VERSION = 2;
/** HTTP path of enrolment with a one-time token (POST, JSON). */
export const AGENT_ENROL_PATH = "/api/agent/enrol";
/** HTTP path of create-and-enrol with an API key of scope `agent.register` (POST, JSON, `Authorization: Bearer <key>`). */
export const AGENT_REGISTER_PATH = "/api/agent/register";
/** HTTP path of the agent's WebSocket. */
export const AGENT_CONNECT_PATH = "/api/agent/connect";
/** Query parameter of AGENT_CONNECT_PATH carrying the agent's fresh connection nonce (base64url, 16–128 chars). */
export const AGENT_NONCE_PARAM = "nonce";
/** The agent's connection nonce: base64url, 16 to 128 characters. */
export const AgentNonceSchema = z.string().regex(/^[A-Za-z0-9_-]{16,128}$/);
/**
 * The most bytes a client may send on the agent WebSocket before its `hello` is accepted (frames
 * included); more closes the connection. The agent likewise refuses a first server message larger
 * than this.
 */
export const AGENT_PRE_HELLO_MAX_BYTES = 64 * 1024;

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
/**
 * POST /api/agent/enrol (and /api/agent/register) response. `ServerKey` is the server's agent
 * signing public key (Ed25519, SPKI DER, base64): the agent pins it and checks the signature of every
 * server frame with it.
 */
export const EnrolResponseSchema = z.object({ AgentID: z.string(), Name: z.string(), ServerKey: z.string().min(1) });
/** POST /api/agent/enrol response. */
export type EnrolResponse = z.infer<typeof EnrolResponseSchema>;

/**
 * POST /api/agent/register body: create an agent named `Name` and enrol it in one step (automated
 * provisioning), authorised by an API key with scope `agent.register` instead of a token.
 */
export const AgentRegisterRequestSchema = z.object({
  Name: z.string().trim().min(1).max(128),
  SigningPublicKey: z.string().min(1),
  BoxPublicKey: z.string().min(1),
  Version: z.string(),
  Capabilities: AgentCapabilitiesSchema,
});
/** POST /api/agent/register body. */
export type AgentRegisterRequest = z.infer<typeof AgentRegisterRequestSchema>;

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
  /**
   * Accepts the hello. `frameKeyShare` (only when the hello asked for `frameAuth`): base64 of the raw
   * 32-byte public key of an ephemeral X25519 key the server made for this socket; with the agent's
   * enrolled box key it gives the socket's frame MAC key (deriveFrameKey), and every later frame of
   * the socket carries `mac` instead of `sig` (see `serverFramePrefix`).
   */
  z.object({
    type: z.literal("welcome"),
    agentId: z.string(),
    serverTime: z.number().int(),
    frameKeyShare: z.string().optional(),
  }),
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
  /**
   * Answer to `challenge`: base64 Ed25519 signature over the UTF-8 bytes of `postern-agent:${agentId}:${nonce}`.
   * `frameAuth` (optional; absent from older agents): the agent accepts frames authenticated with a
   * per-connection HMAC key delivered in `welcome` (FRAME_AUTH_HMAC).
   */
  z.object({
    type: z.literal("hello"),
    agentId: z.string(),
    signature: z.string(),
    version: z.string(),
    capabilities: AgentCapabilitiesSchema,
    frameAuth: z.literal("hmac-sha256").optional(),
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

/**
 * The `frameAuth` value of a hello from an agent that accepts HMAC-SHA256 frames (docs/agent-protocol.md
 * step 4 "Server identity").
 */
export const FRAME_AUTH_HMAC = "hmac-sha256";

/** Length of a frame key (and of an HMAC-SHA256, and of a raw X25519 key), bytes. */
export const FRAME_KEY_BYTES = 32;

/**
 * HKDF with SHA-256 as node:crypto's `hkdfSync` does it (passed in: shared stays runtime-neutral, the
 * browser bundle imports this module). Strings are taken as UTF-8; returns `keylen` bytes.
 */
export type HkdfSha256 = (digest: "sha256", ikm: Uint8Array, salt: string, info: string, keylen: number) => ArrayBuffer;

/**
 * The frame key of one socket (docs/agent-protocol.md step 4 "MAC'd frames"), the same on both sides:
 * HKDF-SHA256 (`hkdf`: node:crypto's hkdfSync) of `sharedSecret`, the X25519 shared secret of the
 * server's ephemeral key (public half `shareB64`, the welcome's `frameKeyShare`) and the agent's
 * enrolled box key (public half `agentBoxPublicB64`), with salt = the agent's connection nonce (UTF-8)
 * and info = `postern-frame-mac:v1:<shareB64>:<agentBoxPublicB64>`, so that the key is bound to this
 * connection and to both public keys. Returns FRAME_KEY_BYTES bytes.
 * @throws Error when `sharedSecret` is not FRAME_KEY_BYTES long.
 */
export function deriveFrameKey(
  hkdf: HkdfSha256,
  sharedSecret: Uint8Array,
  agentNonce: string,
  shareB64: string,
  agentBoxPublicB64: string,
): Uint8Array {
  if (sharedSecret.length !== FRAME_KEY_BYTES) throw new Error("an X25519 shared secret is 32 bytes");
  const info = `postern-frame-mac:v1:${shareB64}:${agentBoxPublicB64}`;
  return new Uint8Array(hkdf("sha256", sharedSecret, agentNonce, info, FRAME_KEY_BYTES));
}

/**
 * The binding of frame number `frame` (0 = the challenge, counting every text frame the server sends
 * on this socket) of a connection the agent opened with `agentNonce`:
 * `postern-server:<agentNonce>:<frame>:`. Both ways of authenticating a frame cover this text followed
 * by the frame's content, so that a frame can be neither forged, changed, replayed into another
 * connection nor reordered:
 * - signed frames: Ed25519 over prefix + SHA-256 (lowercase hex) of the JSON without `sig`
 *   (`serverFramePayload`);
 * - MAC'd frames (after a `welcome` with `frameKeyShare`): HMAC-SHA256 with the socket's frame key over
 *   prefix + the JSON without `mac` (UTF-8), fed to the HMAC as two updates (no copy of a large sync).
 */
export function serverFramePrefix(agentNonce: string, frame: number): string {
  return `postern-server:${agentNonce}:${frame}:`;
}

/**
 * The text the server signs (Ed25519, UTF-8) for frame number `frame` of a connection the agent
 * opened with `agentNonce`: `serverFramePrefix` followed by the SHA-256 (lowercase hex) of the frame's
 * JSON text without its `sig` member. The digest keeps signing a large `sync` cheap.
 */
export function serverFramePayload(agentNonce: string, frame: number, bodySha256Hex: string): string {
  return `${serverFramePrefix(agentNonce, frame)}${bodySha256Hex}`;
}

/** Appends `"<name>": value` as the last member of `body`, a JSON object's text (value: base64, no escaping needed). */
function withLastMember(body: string, name: string, value: string): string {
  return `${body.slice(0, -1)},"${name}":"${value}"}`;
}

/**
 * Splits `text` into the JSON object it carries without its last member `name` and that member's
 * base64 value; null when the text does not end with such a member.
 */
function splitLastMember(text: string, name: string): { body: string; value: string } | null {
  if (!text.endsWith('"}')) return null;
  const member = `,"${name}":"`;
  const at = text.lastIndexOf(member);
  if (at < 0) return null;
  const value = text.slice(at + member.length, -2);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  return { body: `${text.slice(0, at)}}`, value };
}

/** Appends `"sig": signature` (base64) as the last member of `body`, a JSON object's text. */
export function withFrameSignature(body: string, signature: string): string {
  return withLastMember(body, "sig", signature);
}

/**
 * Splits a signed frame into the JSON text that was signed and the base64 signature; null when the
 * frame does not end with a `sig` member.
 */
export function splitSignedFrame(text: string): { body: string; signature: string } | null {
  const split = splitLastMember(text, "sig");
  return split && { body: split.body, signature: split.value };
}

/** Appends `"mac": mac` (base64 of the 32-byte HMAC-SHA256) as the last member of `body`, a JSON object's text. */
export function withFrameMac(body: string, mac: string): string {
  return withLastMember(body, "mac", mac);
}

/**
 * Splits a MAC'd frame into the JSON text that was MAC'd and the base64 MAC; null when the frame does
 * not end with a `mac` member.
 */
export function splitMacFrame(text: string): { body: string; mac: string } | null {
  const split = splitLastMember(text, "mac");
  return split && { body: split.body, mac: split.value };
}

/** WebSocket close codes used by the server. */
export const AgentCloseCode = {
  authFailed: 4401,
  replaced: 4409,
  protocolError: 4400,
  /** The server could not prove it holds the key the agent pinned at enrolment (sent by the agent). */
  serverUnverified: 4403,
  /** More bytes than AGENT_PRE_HELLO_MAX_BYTES before the handshake completed. */
  tooBig: 1009,
  shutdown: 1001,
} as const;

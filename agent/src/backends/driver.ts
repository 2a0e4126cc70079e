/**
 * Drivers (issue #10 "The shape first"): one folder per backend type in `agent/src/backends/<type>/`,
 * each exporting a `DriverDefinition` registered in `registry.ts`. Capability detection and the
 * enforcer both walk that one list.
 *
 * A definition creates a `Driver` per backend (its BackendConfig fields and opened secrets). A driver
 * is a `Backend` (add, remove, list, each batched per target and idempotent) that also declares how
 * often drift is re-read (a cloud API is not listed every 5 s), how many of its calls may run at once,
 * and an optional commit step run after a batch of changes (PAN-OS commit, FortiManager install).
 */
import type { Logger } from "pino";
import type { AgentBackendType, AgentCapabilities, Entry, Target } from "@postern/shared";
import type { HttpClient } from "../http/client.ts";
import type { CommandRunner } from "../process/runner.ts";
import type { Backend, EntryOutcome } from "./backend.ts";

export type { Backend, EntryOutcome } from "./backend.ts";

/** An enforcement backend created for one configured backend. */
export interface Driver extends Backend {
  /**
   * Least MILLISECONDS between two drift re-reads of one of its targets; undefined means the agent's
   * `driftCheckSeconds`. Cloud and vendor APIs set minutes.
   */
  readonly driftIntervalMs?: number;
  /** How many add/remove/list calls may run at once on this backend (default 1: one after the other). */
  readonly concurrency?: number;
  /**
   * Sets the target's whole content to `entries` at once (script `flush` then `add`, HAProxy `prepare
   * acl`/`commit acl`, one nft transaction). Used for full reconciles when present; one outcome per
   * entry. @throws Error when the target cannot be reached (every entry, and every removal, fails).
   */
  replace?(target: Target, entries: readonly Entry[], now: number): Promise<EntryOutcome[]>;
  /** Applies what the calls of a batch changed (commit, install), when the target needs it. */
  commit?(target: Target): Promise<void>;
  /** Releases what the driver holds (sessions, tokens). */
  close?(): Promise<void>;
}

/** What every driver may use: the process and HTTP boundaries, the agent's settings, its secrets. */
export interface DriverContext {
  /** Runs external commands (ipset, nft, scripts). */
  readonly runner: CommandRunner;
  /** Makes HTTP requests (webhooks, vendor APIs). */
  readonly http: HttpClient;
  /** Run privileged commands through `sudo -n`. */
  readonly useSudo: boolean;
  /** The agent's configuration enables custom scripts (docs/reference.md admin-console §3 script capability). */
  readonly scriptsEnabled: boolean;
  /** Longest run of one script, in MILLISECONDS. */
  readonly scriptTimeoutMs: number;
  /** Folder of knocproxy ACL files (`<Name>.acl`). */
  readonly knocproxyDir: string;
  /** HAProxy runtime API timeouts (milliseconds). */
  readonly haproxy?: { readonly connectTimeoutMs?: number; readonly readTimeoutMs?: number };
  /** API endpoint overrides by backend type (tests: moto for `aws`); the vendor's own endpoint otherwise. */
  readonly endpoints?: Readonly<Record<string, string>>;
  /** Opens one sealed secret (base64 sealed box to this agent). @throws Error when it cannot be opened. */
  readonly openSecret: (sealed: string) => string;
  /**
   * Makes `openSecret` usable (loads libsodium on first use: an agent whose targets carry no sealed
   * secret never loads it); awaited before a target with sealed secrets is resolved. Absent: always usable.
   */
  readonly loadSecrets?: () => Promise<void>;
  readonly logger?: Logger;
}

/** What capability detection may use. */
export interface DetectContext {
  readonly runner: CommandRunner;
  readonly scriptsEnabled: boolean;
  /** Runs as root (uid 0). */
  readonly isRoot: boolean;
  /** Timeout of each probe command, MILLISECONDS. */
  readonly timeoutMs: number;
  /** The configured HAProxy runtime socket. */
  readonly haproxySocket?: string;
  /** Socket paths probed when none is configured. */
  readonly haproxySocketCandidates?: readonly string[];
}

/** One backend as a driver gets it: its id, its type's fields and its opened secret fields. */
export interface BackendInstance {
  readonly backendId: string;
  /** The BackendConfig fields of the type (secret fields read "" here; see `secrets`). */
  readonly config: Readonly<Record<string, unknown>>;
  /** Opened secret fields by name (`Bearer`, `ApiKey`, ...). Never log them. */
  readonly secrets: Readonly<Record<string, string>>;
}

/** One driver folder's registration. */
export interface DriverDefinition {
  /** The backend type it enforces. */
  readonly type: AgentBackendType;
  /** Detects what this driver needs on the host; the result is merged into the agent's capabilities. */
  detect?(ctx: DetectContext): Promise<Partial<AgentCapabilities>>;
  /** Creates the driver of one backend. @throws Error when the backend cannot be enforced here (the message is the grant error). */
  create(ctx: DriverContext, backend: BackendInstance): Driver;
}

/** Picks the driver that enforces a target, or says why there is none. */
export interface DriverResolver {
  driverFor(target: Target): Driver | string;
  /**
   * Gets ready to resolve `targets` (e.g. loads what opens their sealed secrets); the enforcer awaits
   * it before it resolves targets it has not seen before. Never throws: what fails shows in `driverFor`.
   */
  prepare?(targets: readonly Target[]): Promise<void>;
}

/**
 * One descriptor per backend type (issue #10 "The shape first"): everything the server, the web app
 * and the agent know about a type, in one row. Every other place asks here: the agent gates of
 * docs/reference.md admin-console §5 (`agentCapableOf`, `BackendMinAgentVersion`), the secret and host fields, the §9
 * defaults, the Knoc kinds and vendors of §3 (`KIND_TYPES`, `VENDOR_OF_TYPE`), which types an agent
 * enforces (`AGENT_BACKEND_TYPES`, the protocol's `Target.acl`), and the schemas of the backend and
 * ACL fields. A new backend type is one row here plus one driver folder in `agent/src/backends/`.
 */
import type { z } from "zod";
import { Errors } from "./errors.ts";
import type { ErrorEntry } from "./errors.ts";
import type { AgentCapabilities } from "./api/agent.ts";
import { BACKEND_TYPES, BackendTypeConfigSchemas } from "./api/backend.ts";
import type { BackendType } from "./api/backend.ts";
import { AclTypeConfigSchemas } from "./api/acl.ts";
import type { KnocKindName, Vendor } from "./knoc-kind.ts";

/** The types an agent enforces: every type but the agentless allowlist (kept in step with the rows). */
export type AgentBackendType = Exclude<BackendType, "allowlist">;

/** The ACL fields of a type, as the protocol carries them: `{ <type>: fields }`. */
export type TargetAcl = {
  [K in AgentBackendType]: { [P in K]: z.infer<(typeof AclTypeConfigSchemas)[K]> };
}[AgentBackendType];

/** One backend type's row. */
export interface BackendDescriptor {
  readonly type: BackendType;
  /** The Knoc kind a backend of this type makes (a script under `/temp/{vendor}` is APPLICATION, see `knocKind`). */
  readonly kind: KnocKindName;
  /** The wizard kinds that may create a backend of this type (docs/reference.md admin-console §3 "Knoc kinds"). */
  readonly wizardKinds: readonly KnocKindName[];
  /** The active vendor of an application type (fortios is "fortinet", panos "palo"). */
  readonly vendor?: Vendor;
  /** The capability key the agent must report for this type, or null when none is needed. */
  readonly capability: keyof AgentCapabilities | null;
  /**
   * Why an agent with these capabilities cannot carry the type: a §8 key of the type's own
   * (err.ipsetNoCommand), `Errors.agentIncapable` when the capability is just missing (the server
   * then answers err.backendTypeNoAgents when no agent has it), or null when it can.
   */
  readonly capabilityProblem: (capabilities: AgentCapabilities) => ErrorEntry | null;
  /** Lowest agent version that carries the type (docs/reference.md admin-console §5, §9); none when absent. */
  readonly minAgentVersion?: string;
  /** Fields held sealed to the agent (docs/reference.md admin-console §3 "Secrets ... are held encrypted"). */
  readonly secretFields: readonly string[];
  /** The field naming where the backend connects; credentials must be re-entered when it changes (§5). */
  readonly hostField?: string;
  /** Values a form starts with: the schema defaults of the backend and ACL fields, and §4 prefills. */
  readonly defaults: {
    readonly backend: Readonly<Record<string, unknown>>;
    readonly acl: Readonly<Record<string, unknown>>;
    readonly prefill: Readonly<Record<string, unknown>>;
  };
  /** The zod schema of the backend fields (`BackendConfig[type]`). */
  readonly backendSchema: z.ZodType;
  /** The zod schema of the ACL fields (`AclConfig[type]`). */
  readonly aclSchema: z.ZodType;
  /** True when no agent enforces the type (the allowlist is served by the server itself). */
  readonly agentless: boolean;
}

/** The defaults a zod object schema fills for absent fields (fields without a default are left out). */
function fieldDefaults(schema: z.ZodType): Record<string, unknown> {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    const r = field.safeParse(undefined);
    if (r.success && r.data !== undefined) out[name] = r.data;
  }
  return out;
}

const incapableWithout =
  (key: keyof AgentCapabilities, ok: (c: AgentCapabilities) => boolean = (c) => c[key] !== undefined) =>
  (c: AgentCapabilities): ErrorEntry | null =>
    ok(c) ? null : Errors.agentIncapable;
const noCapability = (): ErrorEntry | null => null;

/** What a row states; the schemas and defaults are filled in from `BackendTypeConfigSchemas` and `AclTypeConfigSchemas`. */
type Row = Omit<BackendDescriptor, "type" | "defaults" | "backendSchema" | "aclSchema" | "agentless"> & {
  readonly agentless?: boolean;
  readonly prefill?: Readonly<Record<string, unknown>>;
};

const application = (vendor: Vendor, secretFields: readonly string[], extra: Partial<Row> = {}): Row => ({
  kind: "APPLICATION",
  wizardKinds: ["APPLICATION"],
  vendor,
  capability: null,
  capabilityProblem: noCapability,
  minAgentVersion: "1.6.0",
  secretFields,
  hostField: "Hostname",
  ...extra,
});

/** §4: Protocol unix prefills the agent's socket or this path; tcp prefills `{ip}:9999`. */
const PROXY_PREFILL = { unixAddress: "/var/run/haproxy.sock", tcpPort: 9999 } as const;

const ROWS: Readonly<Record<BackendType, Row>> = {
  fortios: application("fortinet", ["Bearer"], { hostField: "Url" }),
  fortimanager: application("fortimanager", ["ApiKey"]),
  azure: application("azure", ["ClientId", "ClientSecret", "TenantId"], { hostField: undefined }),
  panos: application("palo", ["ApiKey"]),
  firepower: application("firepower", ["Password"]),
  sophosutm: application("sophosutm", ["ApiKey"], { minAgentVersion: "1.9.0" }),
  sophossfos: application("sophossfos", ["Password"], { minAgentVersion: "1.9.0" }),
  aws: application("aws", ["AccessKeyId", "SecretAccessKey"], { hostField: undefined }),
  haproxy: {
    kind: "PROXY",
    wizardKinds: ["PROXY"],
    capability: "haproxy",
    capabilityProblem: incapableWithout("haproxy"),
    secretFields: [],
    prefill: PROXY_PREFILL,
  },
  knocproxy: {
    kind: "PROXY",
    wizardKinds: ["PROXY"],
    capability: "haproxy",
    capabilityProblem: incapableWithout("haproxy"),
    secretFields: [],
    prefill: PROXY_PREFILL,
  },
  script: {
    kind: "SCRIPT",
    wizardKinds: ["SCRIPT", "APPLICATION"],
    capability: "script",
    capabilityProblem: incapableWithout("script", (c) => c.script?.enabled === true),
    minAgentVersion: "1.6.0",
    secretFields: [],
  },
  ipset: {
    kind: "LINUX",
    wizardKinds: ["LINUX"],
    capability: "ipset",
    capabilityProblem: (c) =>
      !c.ipset?.command_available ? Errors.ipsetNoCommand : !c.ipset.sudo_enabled ? Errors.ipsetNoSudo : null,
    secretFields: [],
  },
  allowlist: {
    kind: "APPLICATION",
    wizardKinds: ["APPLICATION"],
    capability: null,
    capabilityProblem: noCapability,
    secretFields: [],
    agentless: true,
  },
  nftables: {
    kind: "LINUX",
    wizardKinds: ["LINUX"],
    capability: "nftables",
    capabilityProblem: incapableWithout("nftables", (c) => c.nftables?.command_available === true),
    secretFields: [],
  },
};

/** Every backend type's descriptor, keyed by type. */
export const BACKEND_DESCRIPTORS: Readonly<Record<BackendType, BackendDescriptor>> = Object.fromEntries(
  BACKEND_TYPES.map((type) => {
    const { prefill, agentless, ...row } = ROWS[type];
    const backendSchema = BackendTypeConfigSchemas[type];
    const aclSchema = AclTypeConfigSchemas[type];
    const descriptor: BackendDescriptor = {
      ...row,
      type,
      agentless: agentless ?? false,
      backendSchema,
      aclSchema,
      defaults: { backend: fieldDefaults(backendSchema), acl: fieldDefaults(aclSchema), prefill: prefill ?? {} },
    };
    return [type, descriptor];
  }),
) as Record<BackendType, BackendDescriptor>;

/** The descriptor of `type`. */
export function backendDescriptor(type: BackendType): BackendDescriptor {
  return BACKEND_DESCRIPTORS[type];
}

/** The types an agent enforces, in `BACKEND_TYPES` order. */
export const AGENT_BACKEND_TYPES: readonly AgentBackendType[] = BACKEND_TYPES.filter(
  (t): t is AgentBackendType => !BACKEND_DESCRIPTORS[t].agentless,
);

/** True for backend types that no agent enforces (docs/reference.md admin-console §3: "bound to an agent (except the allowlist type)"). */
export function isAgentless(type: string): boolean {
  return (BACKEND_DESCRIPTORS as Readonly<Record<string, BackendDescriptor | undefined>>)[type]?.agentless === true;
}

/** True when an agent's capabilities allow `type` (docs/reference.md admin-console §5; the row's `capabilityProblem`). */
export function agentCapableOf(capabilities: AgentCapabilities, type: BackendType): boolean {
  return BACKEND_DESCRIPTORS[type].capabilityProblem(capabilities) === null;
}

const lookup = <V>(pick: (d: BackendDescriptor) => V | undefined): Partial<Record<BackendType, V>> =>
  Object.fromEntries(
    BACKEND_TYPES.flatMap((t) => {
      const v = pick(BACKEND_DESCRIPTORS[t]);
      return v === undefined ? [] : [[t, v]];
    }),
  );

/** Minimum agent version per type (docs/reference.md admin-console §5, §9); types absent have no version gate. */
export const BackendMinAgentVersion: Readonly<Partial<Record<BackendType, string>>> = lookup((d) => d.minAgentVersion);

/** Secret fields per type: required on create, blank on update keeps the stored value, never read back. */
export const BackendSecretFields: Readonly<Record<BackendType, readonly string[]>> = lookup(
  (d) => d.secretFields,
) as Record<BackendType, readonly string[]>;

/** The field naming where a backend connects, for types whose credentials must be re-entered when it changes (§5). */
export const BackendHostField: Readonly<Partial<Record<BackendType, string>>> = lookup((d) =>
  d.secretFields.length > 0 ? d.hostField : undefined,
);

/** The vendor of each application backend type (fortios is "fortinet", panos "palo"). */
export const VENDOR_OF_TYPE: Readonly<Partial<Record<BackendType, Vendor>>> = lookup((d) => d.vendor);

/** The backend types each wizard kind may create (docs/reference.md admin-console §3 "Knoc kinds"). */
export const KIND_TYPES: Readonly<Record<KnocKindName, readonly BackendType[]>> = {
  LINUX: BACKEND_TYPES.filter((t) => BACKEND_DESCRIPTORS[t].wizardKinds.includes("LINUX")),
  PROXY: BACKEND_TYPES.filter((t) => BACKEND_DESCRIPTORS[t].wizardKinds.includes("PROXY")),
  SCRIPT: BACKEND_TYPES.filter((t) => BACKEND_DESCRIPTORS[t].wizardKinds.includes("SCRIPT")),
  APPLICATION: BACKEND_TYPES.filter((t) => BACKEND_DESCRIPTORS[t].wizardKinds.includes("APPLICATION")),
};

/** Defaults of docs/reference.md admin-console §9 and the §4 prefills, read from the rows. */
export const BackendDefaults = {
  fortiosPrefix: BACKEND_DESCRIPTORS.fortios.defaults.backend["Prefix"] as string,
  panosVSys: BACKEND_DESCRIPTORS.panos.defaults.backend["VSys"] as string,
  haproxyUnixSocket: BACKEND_DESCRIPTORS.haproxy.defaults.prefill["unixAddress"] as string,
  haproxyTcpPort: BACKEND_DESCRIPTORS.haproxy.defaults.prefill["tcpPort"] as number,
  azureNsgPort: BACKEND_DESCRIPTORS.azure.defaults.acl["NsgPort"] as number,
  awsPort: BACKEND_DESCRIPTORS.aws.defaults.acl["Port"] as number,
  nftablesTable: BACKEND_DESCRIPTORS.nftables.defaults.acl["Table"] as string,
} as const;

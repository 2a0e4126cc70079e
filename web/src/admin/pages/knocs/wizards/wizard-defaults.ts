/**
 * The wizards' starting values and §4 defaults, pure (docs/reference.md admin-console §4 "Wizard defaults", §9):
 * the backend type each wizard starts with, the vendor types the Application wizard offers, the
 * HAProxy address prefill (unix: the agent's socket or /var/run/haproxy.sock; tcp: `{ip}:9999`),
 * the RFC1918 ranges that restriction prefills and locks, and the Application types' vendor rule
 * (passive+ forces palo; active defaults to fortinet).
 */
import { BACKEND_DESCRIPTORS, BackendDefaults } from "@postern/shared";
import type { AclConfig, ApplicationType, BackendType, IpExclusions } from "@postern/shared";

/** The wizard kinds as they appear in the path /admin/knocs/new/{kind}. */
export const WIZARD_KINDS = ["linux", "application", "proxy", "script"] as const;
/** One wizard kind of the path. */
export type WizardKind = (typeof WIZARD_KINDS)[number];

/** The POST body's Kind of each wizard (docs/reference.md admin-console §9 "Wizard kinds"). */
export const KIND_NAME = {
  linux: "LINUX",
  application: "APPLICATION",
  proxy: "PROXY",
  script: "SCRIPT",
} as const satisfies Record<WizardKind, string>;

/** True when `kind` is one of the four wizards. */
export function isWizardKind(kind: string): kind is WizardKind {
  return (WIZARD_KINDS as readonly string[]).includes(kind);
}

/**
 * The active vendors the Application wizard configures with dedicated forms (docs/reference.md admin-console §3: fortinet,
 * fortimanager, palo, firepower, azure, sophosutm, sophossfos, aws), as their backend types.
 */
export const ACTIVE_VENDOR_TYPES = [
  "fortios",
  "fortimanager",
  "panos",
  "firepower",
  "azure",
  "sophosutm",
  "sophossfos",
  "aws",
] as const satisfies readonly BackendType[];

/** The backend type a wizard starts with (Application: passive, the allowlist). */
export function initialType(kind: WizardKind): BackendType {
  switch (kind) {
    case "linux":
      return "ipset";
    case "proxy":
      return "haproxy";
    case "script":
      return "script";
    case "application":
      return "allowlist";
  }
}

/**
 * The backend type of an Application type (docs/reference.md admin-console §4): passive is the allowlist, passive+
 * forces palo (panos), active keeps an active vendor already chosen, else defaults to fortinet.
 */
export function applicationBackendType(applicationType: ApplicationType, current: BackendType): BackendType {
  if (applicationType === "passive") return "allowlist";
  if (applicationType === "passive+") return "panos";
  return (ACTIVE_VENDOR_TYPES as readonly string[]).includes(current) ? current : "fortios";
}

/** The host part of the tcp prefill (docs/reference.md admin-console §9 "tcp {ip}:9999"): the agent's own loopback. */
export const TCP_PREFILL_HOST = "127.0.0.1";

/**
 * The runtime API address a proxy protocol prefills (docs/reference.md admin-console §4): unix — the agent's reported
 * HAProxy socket, else /var/run/haproxy.sock; tcp — `127.0.0.1:9999`.
 */
export function proxyAddressPrefill(protocol: "unix" | "tcp", agentSocket: string | undefined): string {
  if (protocol === "tcp") return `${TCP_PREFILL_HOST}:${BackendDefaults.haproxyTcpPort}`;
  return agentSocket && agentSocket !== "" ? agentSocket : BackendDefaults.haproxyUnixSocket;
}

/** The three private IPv4 ranges RFC1918 restriction prefills (docs/reference.md admin-console §9 "RFC1918 ranges"). */
export const RFC1918_RANGES: readonly { Start: string; End: string }[] = [
  { Start: "10.0.0.0", End: "10.255.255.255" },
  { Start: "172.16.0.0", End: "172.31.255.255" },
  { Start: "192.168.0.0", End: "192.168.255.255" },
];

/**
 * IpExclusions after the restriction type changed (docs/reference.md admin-console §4): RFC1918 prefills the three
 * private ranges (locked) and RfcType allow; other types keep the user's own ranges (the RFC1918
 * ones are dropped when leaving RFC1918).
 */
export function restrictionChanged(
  next: IpExclusions["RestrictionType"],
  current: { RfcType: IpExclusions["RfcType"]; Ranges: { Start: string; End: string }[] },
  previous: IpExclusions["RestrictionType"],
): {
  RestrictionType: IpExclusions["RestrictionType"];
  RfcType: IpExclusions["RfcType"];
  Ranges: { Start: string; End: string }[];
} {
  if (next === "RFC1918")
    return { RestrictionType: next, RfcType: "allow", Ranges: RFC1918_RANGES.map((r) => ({ ...r })) };
  const ranges = previous === "RFC1918" ? [] : current.Ranges;
  return { RestrictionType: next, RfcType: current.RfcType, Ranges: ranges };
}

/** Starting backend fields of `type`: its schema defaults, and for the proxies unix with the prefilled address. */
export function initialBackendFields(type: BackendType, agentSocket?: string): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...BACKEND_DESCRIPTORS[type].defaults.backend };
  if (type === "haproxy" || type === "knocproxy") {
    fields["Protocol"] = "unix";
    fields["Address"] = proxyAddressPrefill("unix", agentSocket);
  }
  return fields;
}

/** Starting ACL fields of `type`: its schema defaults (a haproxy ID starts empty). */
export function initialAclFields(type: BackendType): Record<string, unknown> {
  return { ...BACKEND_DESCRIPTORS[type].defaults.acl };
}

/** The starting AclConfig of `type`. */
export function initialAclConfig(type: BackendType): AclConfig {
  return { UriToken: "", [type]: initialAclFields(type) } as AclConfig;
}

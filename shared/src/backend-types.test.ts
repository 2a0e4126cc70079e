import { describe, expect, it } from "vitest";
import { Errors } from "./errors.ts";
import {
  AGENT_BACKEND_TYPES,
  BACKEND_DESCRIPTORS,
  BackendDefaults,
  BackendHostField,
  BackendMinAgentVersion,
  BackendSecretFields,
  KIND_TYPES,
  VENDOR_OF_TYPE,
  agentCapableOf,
  isAgentless,
} from "./backend-types.ts";
import { BACKEND_TYPES } from "./api/backend.ts";
import { TargetSchema } from "./agent-protocol.ts";

describe("backend descriptors", () => {
  it("have one row per backend type, and every lookup reads the rows", () => {
    expect(Object.keys(BACKEND_DESCRIPTORS).sort()).toEqual([...BACKEND_TYPES].sort());
    expect(BackendMinAgentVersion).toEqual({
      script: "1.6.0",
      fortios: "1.6.0",
      fortimanager: "1.6.0",
      azure: "1.6.0",
      panos: "1.6.0",
      firepower: "1.6.0",
      aws: "1.6.0",
      sophosutm: "1.9.0",
      sophossfos: "1.9.0",
    });
    expect(BackendSecretFields.azure).toEqual(["ClientId", "ClientSecret", "TenantId"]);
    expect(BackendSecretFields.nftables).toEqual([]);
    expect(BackendHostField).toEqual({
      fortios: "Url",
      fortimanager: "Hostname",
      panos: "Hostname",
      firepower: "Hostname",
      sophosutm: "Hostname",
      sophossfos: "Hostname",
    });
    expect(VENDOR_OF_TYPE).toEqual({
      fortios: "fortinet",
      fortimanager: "fortimanager",
      azure: "azure",
      panos: "palo",
      firepower: "firepower",
      sophosutm: "sophosutm",
      sophossfos: "sophossfos",
      aws: "aws",
    });
    expect(KIND_TYPES.LINUX).toEqual(["ipset", "nftables"]);
    expect(KIND_TYPES.PROXY).toEqual(["haproxy", "knocproxy"]);
    expect(KIND_TYPES.SCRIPT).toEqual(["script"]);
    expect(KIND_TYPES.APPLICATION).toContain("script");
    expect(KIND_TYPES.APPLICATION).toContain("allowlist");
    expect(AGENT_BACKEND_TYPES).not.toContain("allowlist");
    expect(isAgentless("allowlist")).toBe(true);
    expect(isAgentless("ipset")).toBe(false);
    expect(isAgentless("nonsense")).toBe(false);
  });

  it("read the §9 defaults from the schemas", () => {
    expect(BackendDefaults).toEqual({
      fortiosPrefix: "kk_",
      panosVSys: "vsys1",
      haproxyUnixSocket: "/var/run/haproxy.sock",
      haproxyTcpPort: 9999,
      azureNsgPort: 443,
      awsPort: 22,
      nftablesTable: "inet postern",
    });
  });

  it("gate on the capability of the type", () => {
    expect(agentCapableOf({}, "fortios")).toBe(true);
    expect(agentCapableOf({ script: { enabled: false } }, "script")).toBe(false);
    expect(agentCapableOf({ script: { enabled: true } }, "script")).toBe(true);
    expect(agentCapableOf({}, "nftables")).toBe(false);
    expect(agentCapableOf({ nftables: { command_available: true, sets: [] } }, "nftables")).toBe(true);
    expect(BACKEND_DESCRIPTORS.ipset.capabilityProblem({})).toBe(Errors.ipsetNoCommand);
    expect(
      BACKEND_DESCRIPTORS.ipset.capabilityProblem({
        ipset: { ipsets: [], command_available: true, sudo_enabled: false },
      }),
    ).toBe(Errors.ipsetNoSudo);
  });

  it("make the protocol's Target.acl accept every agent type and refuse the allowlist", () => {
    const base = { key: "a", backendId: "b" };
    for (const type of AGENT_BACKEND_TYPES) {
      const acl = BACKEND_DESCRIPTORS[type].aclSchema.safeParse({ ID: 1 }).data ?? {};
      const backend = type === "haproxy" || type === "knocproxy" ? { Protocol: "unix", Address: "/s" } : {};
      const r = TargetSchema.safeParse({ ...base, backend: { [type]: backend }, acl: { [type]: acl } });
      expect(r.success, type).toBe(true);
    }
    expect(TargetSchema.safeParse({ ...base, backend: { allowlist: {} }, acl: { allowlist: {} } }).success).toBe(false);
  });
});

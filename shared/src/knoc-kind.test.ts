import { describe, expect, it } from "vitest";
import { knocKind } from "./knoc-kind.ts";
import { AclConfigSchema } from "./api/acl.ts";
import { BackendConfigSchema } from "./api/backend.ts";

const backend = (config: unknown) => BackendConfigSchema.parse(config);
const acl = (config: unknown) => AclConfigSchema.parse(config);

describe("knocKind", () => {
  it("ipset is LINUX", () => {
    expect(knocKind(backend({ ipset: {} }), acl({ ipset: { V4SetName: "a" } }))).toEqual({ Kind: "LINUX" });
  });

  it("haproxy and knocproxy are PROXY with their ProxyType", () => {
    expect(knocKind(backend({ haproxy: { Protocol: "unix", Address: "/s" } }))).toEqual({
      Kind: "PROXY",
      ProxyType: "haproxy",
    });
    expect(knocKind(backend({ knocproxy: { Protocol: "tcp", Address: "h:1" } }))).toEqual({
      Kind: "PROXY",
      ProxyType: "knocproxy",
    });
  });

  it("script is SCRIPT: webhook for an http(s) Command, script for a path", () => {
    expect(knocKind(backend({ script: { Command: "/usr/local/bin/knoc.sh" } }))).toEqual({
      Kind: "SCRIPT",
      ScriptType: "script",
    });
    expect(knocKind(backend({ script: { Command: "https://hooks.example.com/knoc" } }))).toEqual({
      Kind: "SCRIPT",
      ScriptType: "webhook",
    });
    expect(knocKind(backend({ script: { Command: "http://hooks.example.com/knoc" } }))).toEqual({
      Kind: "SCRIPT",
      ScriptType: "webhook",
    });
  });

  it("a script under /temp/{vendor} stands for an active vendor without a dedicated form", () => {
    expect(knocKind(backend({ script: { Command: "/temp/juniper" } }))).toEqual({
      Kind: "APPLICATION",
      ApplicationType: "active",
      Vendor: "juniper",
    });
    expect(knocKind(backend({ script: { Command: "/temp/unknownvendor" } }))).toEqual({
      Kind: "SCRIPT",
      ScriptType: "script",
    });
  });

  it("allowlist is APPLICATION passive", () => {
    expect(knocKind(backend({ allowlist: {} }), acl({ allowlist: { Token: "t" } }))).toEqual({
      Kind: "APPLICATION",
      ApplicationType: "passive",
    });
  });

  it("palo is passive+ with an EDL name, active without", () => {
    const pa = backend({ panos: { Hostname: "pa" } });
    expect(knocKind(pa, acl({ panos: { EDLName: "knoc_edl" } }))).toEqual({
      Kind: "APPLICATION",
      ApplicationType: "passive+",
      Vendor: "palo",
    });
    expect(knocKind(pa, acl({ panos: { GroupName: "knoc_group" } }))).toEqual({
      Kind: "APPLICATION",
      ApplicationType: "active",
      Vendor: "palo",
    });
    expect(knocKind(pa)).toEqual({ Kind: "APPLICATION", ApplicationType: "active", Vendor: "palo" });
  });

  it.each([
    ["fortios", "fortinet"],
    ["fortimanager", "fortimanager"],
    ["firepower", "firepower"],
    ["sophosutm", "sophosutm"],
    ["sophossfos", "sophossfos"],
    ["aws", "aws"],
    ["azure", "azure"],
  ])("%s is APPLICATION active, vendor %s", (type, vendor) => {
    expect(knocKind(backend({ [type]: {} }))).toEqual({
      Kind: "APPLICATION",
      ApplicationType: "active",
      Vendor: vendor,
    });
  });
});

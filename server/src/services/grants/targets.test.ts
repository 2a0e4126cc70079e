import { describe, expect, it } from "vitest";
import { toTarget } from "./targets.ts";

describe("toTarget", () => {
  it("builds a target for every agent type, with the backend's secrets and only this ACL's variables", () => {
    const t = toTarget({
      aclId: "acl1",
      aclConfig: { UriToken: "", script: { Name: "x", EnvVars: { TOKEN: { Value: "", Encrypted: true } } } },
      backendId: "b1",
      backendType: "script",
      backendConfig: { script: { Command: "/usr/bin/true", EnvVars: [] } },
      sealedSecrets: { ApiKey: "k", "acl:acl1:env:TOKEN": "s1", "acl:acl2:env:TOKEN": "s2" },
    });
    expect(t).toEqual({
      key: "acl1",
      backendId: "b1",
      backend: { script: { Command: "/usr/bin/true", EnvVars: [] } },
      acl: { script: { Name: "x", EnvVars: { TOKEN: { Value: "", Encrypted: true } } } },
      secrets: { ApiKey: "k", "env:TOKEN": "s1" },
    });
  });

  it("is null for the agentless allowlist and for a config missing the type's fields", () => {
    const src = { aclId: "a", backendId: "b", aclConfig: {}, backendConfig: {} };
    expect(
      toTarget({ ...src, backendType: "allowlist", aclConfig: { allowlist: {} }, backendConfig: { allowlist: {} } }),
    ).toBeNull();
    expect(toTarget({ ...src, backendType: "ipset", backendConfig: { ipset: {} } })).toBeNull();
    expect(
      toTarget({
        ...src,
        backendType: "ipset",
        backendConfig: { ipset: {} },
        aclConfig: { ipset: { V4SetName: "s" } },
      }),
    ).toEqual({ key: "a", backendId: "b", backend: { ipset: {} }, acl: { ipset: { V4SetName: "s" } } });
  });
});

import { describe, expect, it } from "vitest";
import { NONE_ID } from "@postern/shared";
import type { Backend } from "@postern/shared";
import { aclFormSchema, newAclValues, numberInput, startConfig } from "./acl-form.ts";
import type { AclFormValues } from "./acl-form.ts";

const BACKEND_ID = "11111111-1111-4111-8111-111111111111";
const script: Backend = {
  ID: BACKEND_ID,
  Name: "Jump host",
  AgentID: NONE_ID,
  Config: { script: { Command: "/bin/knoc", EnvVars: [{ Name: "TOKEN", Sensitive: true }] } },
  SecretsSet: [],
  LastModifiedAt: "",
};
const values = (over: Partial<AclFormValues>): AclFormValues => ({
  ...newAclValues(),
  Description: "Intranet",
  BackendID: BACKEND_ID,
  ...over,
});
const issues = (v: AclFormValues, sealed: string[] = []) => {
  const r = aclFormSchema(sealed).safeParse(v);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("the ACL form's rules (admin-console §5 ACL)", () => {
  it("needs a backend and reports the type's rule on the field it names", () => {
    expect(issues(values({ BackendID: NONE_ID }))).toEqual(["BackendID: err.noBackendSelected"]);
    expect(issues(values({ Type: "knocproxy", Config: { knocproxy: { Name: "a-b" } } }))).toEqual([
      "Config.knocproxy.Name: err.invalidKnocproxyAclName",
    ]);
    expect(issues(values({ Type: "ipset", Config: { ipset: {} } }))).toEqual([
      "Config.ipset.V4SetName: err.ipsetNameRequired",
    ]);
    expect(issues(values({ Type: "ipset", Config: { ipset: { V4SetName: "ok", V6SetName: "bad name" } } }))).toEqual([
      "Config.ipset.V6SetName: err.invalidAclName",
    ]);
    expect(issues(values({ Type: "haproxy", Config: { haproxy: { ID: numberInput("x") as number } } }))).toEqual([
      "Config.haproxy.ID: err.aclIdMustBeNumber",
    ]);
  });

  it("edits the maximum grant duration in minutes, 5 to 40320, sent as seconds; empty is unlimited", () => {
    const parse = (m: string) =>
      aclFormSchema([]).safeParse(values({ Type: "haproxy", Config: { haproxy: { ID: 1 } }, MaximumGrantDuration: m }));
    expect(parse("60").data?.MaximumGrantDuration).toBe(3600);
    expect(parse("").data?.MaximumGrantDuration).toBeNull();
    for (const bad of ["4", "40321", "1.5", "ten"]) expect(parse(bad).success).toBe(false);
  });

  it("needs a value for each script variable unless its sealed value is stored", () => {
    const v = values({
      Type: "script",
      Config: {
        ...startConfig("script", script),
        script: { Name: "ssh", EnvVars: { TOKEN: { Value: "", Encrypted: true } } },
      },
    });
    expect(issues(v)).toEqual(["Config.script.EnvVars.TOKEN.Value: required"]);
    expect(issues(v, ["TOKEN"])).toEqual([]);
    expect(startConfig("script", script).script?.EnvVars).toEqual({ TOKEN: { Value: "", Encrypted: true } });
  });
});

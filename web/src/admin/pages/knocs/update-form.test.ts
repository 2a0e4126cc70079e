import { describe, expect, it } from "vitest";
import type { Backend } from "@postern/shared";
import { UpdateKnocFormSchema, credentialsToReenter, envVarIssues, toKnocUpdate } from "./update-form.ts";
import type { UpdateKnocValues } from "./update-form.ts";

const AGENT = "5f0c6b1e-1111-4111-8111-111111111111";
const OTHER_AGENT = "5f0c6b1e-2222-4222-8222-222222222222";

const values = (over: Partial<UpdateKnocValues> = {}): UpdateKnocValues => ({
  agentId: AGENT,
  form: {
    Name: "fw",
    Config: { fortios: { Url: "https://fw.example.com", Bearer: "" } },
    AclConfig: { UriToken: "", fortios: { Name: "postern" } },
  },
  options: { Description: "Firewall", MaxMinutes: "" },
  envVars: [],
  userIds: [],
  groupIds: [],
  ...over,
});

const backend = {
  ID: "b",
  Name: "fw",
  AgentID: AGENT,
  Config: { fortios: { Url: "https://fw.example.com", Insecure: false, Bearer: "", Prefix: "kk_", VDOM: "" } },
  SecretsSet: ["Bearer"],
  LastModifiedAt: "",
} as Backend;

describe("the Update Knoc form", () => {
  it("sends the maximum grant duration in seconds (minutes × 60), empty as unlimited, and refuses 3 minutes", () => {
    const parse = (MaxMinutes: string) =>
      UpdateKnocFormSchema.safeParse(values({ options: { Description: "Firewall", MaxMinutes } }));
    const ok = parse("90");
    expect(ok.success && toKnocUpdate(ok.data).WizardState.knocOptionsForm.MaximumGrantDuration).toBe(5400);
    const none = parse("");
    expect(none.success && toKnocUpdate(none.data).WizardState.knocOptionsForm.MaximumGrantDuration).toBe(null);
    expect(parse("3").error?.issues[0]).toMatchObject({
      path: ["options", "MaxMinutes"],
      message: "The maximum grant duration for the ACL is invalid",
    });
  });

  it("reports the type's rules on their fields", () => {
    const r = UpdateKnocFormSchema.safeParse(
      values({
        form: {
          Name: "fw",
          Config: { fortios: { Url: "ftp://fw", Bearer: "" } },
          AclConfig: { UriToken: "", fortios: { Name: "" } },
        },
      }),
    );
    expect(r.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["form.Config.fortios.Url", "URL must be http or https"],
      ["form.AclConfig.fortios.Name", "err.aclNameRequired"],
    ]);
  });

  it("checks the variables: a name needs a value unless one is recorded, names unique, blank rows ignored", () => {
    expect(
      envVarIssues([
        { Name: "TOKEN", Value: "", Recorded: true },
        { Name: "POLICY", Value: "" },
        { Name: "", Value: "" },
        { Name: "", Value: "x" },
        { Name: "TOKEN", Value: "y" },
        { Name: "knoc_action", Value: "y" },
      ]),
    ).toEqual([
      { path: [1, "Value"], message: "required" },
      { path: [3, "Name"], message: "err.emptyEnvVarName" },
      { path: [4, "Name"], message: "err.repeatedEnvVarNames" },
      { path: [5, "Name"], message: "err.invalidEnvVarName" },
    ]);
  });

  it("asks for the credentials again only when the host or the agent changed and they were left blank", () => {
    expect(credentialsToReenter(backend, values())).toEqual([]);
    const moved = values({
      form: { ...values().form, Config: { fortios: { Url: "https://fw2.example.com", Bearer: "" } } },
    });
    expect(credentialsToReenter(backend, moved)).toEqual(["Bearer"]);
    expect(
      credentialsToReenter(backend, {
        ...moved,
        form: { ...moved.form, Config: { fortios: { Url: "https://fw2.example.com", Bearer: "new" } } },
      }),
    ).toEqual([]);
    expect(credentialsToReenter(backend, values({ agentId: OTHER_AGENT }))).toEqual(["Bearer"]);
  });
});

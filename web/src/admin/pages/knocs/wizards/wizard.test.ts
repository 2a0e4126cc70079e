/**
 * The wizards' pure rules (docs/reference.md admin-console §4 wizard defaults, §5): the proxy address prefill, the
 * RFC1918 prefill, the Application types' vendor rule, the agent gates, the step schemas' messages
 * and the POST body built from a draft.
 */
import { describe, expect, it } from "vitest";
import type { Agent } from "@postern/shared";
import { agentFitness, soleCapableAgent } from "./agent-fitness.ts";
import { RFC1918_RANGES, applicationBackendType, proxyAddressPrefill, restrictionChanged } from "./wizard-defaults.ts";
import { ApiKeyStepSchema, EnvVarsStepSchema, OptionsStepSchema, SettingsStepSchema } from "./wizard-schemas.ts";
import { initialDraft, toCreateBody, withoutSecrets } from "./wizard-state.ts";

const agent = (over: Partial<Agent>): Agent => ({
  ID: "a",
  Name: "a",
  Token: "",
  LastSeen: "2026-01-01T00:00:00Z",
  Version: "1.9.0",
  ExternalIP: "",
  Capabilities: {},
  Backends: [],
  Connected: true,
  ...over,
});
const messages = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  r.success ? [] : r.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);

describe("wizard defaults", () => {
  it("prefills the proxy address from the protocol and the agent's socket", () => {
    expect(proxyAddressPrefill("unix", undefined)).toBe("/var/run/haproxy.sock");
    expect(proxyAddressPrefill("unix", "/run/haproxy/admin.sock")).toBe("/run/haproxy/admin.sock");
    expect(proxyAddressPrefill("tcp", "/run/haproxy/admin.sock")).toBe("127.0.0.1:9999");
  });
  it("prefills RFC1918 with allow and keeps the user's ranges otherwise", () => {
    const mine = [{ Start: "1.2.3.4", End: "1.2.3.5" }];
    expect(restrictionChanged("RFC1918", { RfcType: "deny", Ranges: mine }, "allowList")).toEqual({
      RestrictionType: "RFC1918",
      RfcType: "allow",
      Ranges: RFC1918_RANGES,
    });
    expect(restrictionChanged("denyList", { RfcType: "allow", Ranges: mine }, "allowList").Ranges).toEqual(mine);
    expect(restrictionChanged("denyList", { RfcType: "allow", Ranges: [...RFC1918_RANGES] }, "RFC1918").Ranges).toEqual(
      [],
    );
  });
  it("forces palo for passive+ and defaults active to fortinet", () => {
    expect(applicationBackendType("passive+", "fortios")).toBe("panos");
    expect(applicationBackendType("active", "allowlist")).toBe("fortios");
    expect(applicationBackendType("active", "aws")).toBe("aws");
    expect(applicationBackendType("passive", "aws")).toBe("allowlist");
  });
});

describe("agent gates", () => {
  it("needs a connected agent with the capability and the version", () => {
    expect(agentFitness(agent({ Version: "" }), "haproxy")).toEqual({ ok: false, reason: "neverConnected" });
    expect(agentFitness(agent({}), "haproxy")).toEqual({ ok: false, reason: "incapable", key: "err.agentIncapable" });
    expect(
      agentFitness(
        agent({ Capabilities: { ipset: { ipsets: [], command_available: true, sudo_enabled: false } } }),
        "ipset",
      ),
    ).toEqual({ ok: false, reason: "incapable", key: "err.ipsetNoSudo" });
    expect(agentFitness(agent({ Version: "1.5.0", Capabilities: { script: { enabled: true } } }), "script")).toEqual({
      ok: false,
      reason: "version",
      needed: "1.6.0",
    });
    expect(agentFitness(agent({ Version: "1.8.0" }), "sophosutm")).toEqual({
      ok: false,
      reason: "version",
      needed: "1.9.0",
    });
    expect(agentFitness(agent({ Capabilities: { haproxy: { socket_location: "/s" } } }), "knocproxy")).toEqual({
      ok: true,
    });
  });
  it("chooses the only capable agent by itself", () => {
    const capable = agent({ ID: "c", Capabilities: { haproxy: { socket_location: "/s" } } });
    expect(soleCapableAgent([capable, agent({ ID: "x" })], "haproxy")).toBe("c");
    expect(soleCapableAgent([capable, { ...capable, ID: "d" }], "haproxy")).toBeUndefined();
  });
});

describe("step schemas", () => {
  it("reports the shared rules on their fields", () => {
    const draft = initialDraft("proxy", "agent");
    expect(messages(SettingsStepSchema.safeParse(draft.settings))).toEqual([
      "Description: Too small: expected string to have >=1 characters",
      "AclConfig.haproxy.ID: err.aclIdRequired",
    ]);
    const options = { ...draft.options, MaximumGrantDuration: "4" };
    expect(messages(OptionsStepSchema.safeParse(options))).toEqual([
      "MaximumGrantDuration: The maximum grant duration for the ACL is invalid",
    ]);
    expect(OptionsStepSchema.parse({ ...draft.options, MaximumGrantDuration: "60" }).MaximumGrantDuration).toBe(3600);
    expect(OptionsStepSchema.parse(draft.options).MaximumGrantDuration).toBeNull();
  });
  it("checks variables: reserved, repeated, a name needs a value", () => {
    const rows = (r: { Name: string; Value: string }[]) =>
      messages(EnvVarsStepSchema.safeParse({ rows: r.map((x) => ({ ...x, Sensitive: false })) }));
    expect(rows([{ Name: "knoc_cidr", Value: "x" }])).toEqual(["rows.0.Name: err.invalidEnvVarName"]);
    expect(rows([{ Name: "A", Value: "" }])).toEqual(["rows.0.Value: required"]);
    expect(rows([{ Name: "", Value: "v" }])).toEqual(["rows.0.Name: err.emptyEnvVarName"]);
    expect(
      rows([
        { Name: "A", Value: "1" },
        { Name: "A", Value: "2" },
      ]),
    ).toEqual(["rows.1.Name: err.repeatedEnvVarNames"]);
    expect(EnvVarsStepSchema.parse({ rows: [{ Name: "", Value: "", Sensitive: false }] }).rows).toEqual([]);
  });
  it("checks the API key choices", () => {
    const base = initialDraft("application", "settings").apiKey;
    expect(messages(ApiKeyStepSchema.safeParse({ ...base, apiKeyOption: "existing" }))).toEqual([
      "existingApiKey: required",
    ]);
    expect(
      messages(
        ApiKeyStepSchema.safeParse({
          ...base,
          apiKeyOption: "none",
          allowlistAccessIpRestrictionForm: { AllowedFrom: [] },
        }),
      ),
    ).toEqual(["allowlistAccessIpRestrictionForm.AllowedFrom: err.allowlistAccessIpRestrictionFormRequired"]);
  });
});

describe("the POST body", () => {
  it("carries the kind, the settings and the options in seconds", () => {
    const draft = initialDraft("proxy", "agent");
    draft.agentId = "11111111-1111-1111-1111-111111111111";
    draft.settings = { ...draft.settings, Description: "Intranet", AclConfig: { UriToken: "", haproxy: { ID: 3 } } };
    draft.options = { ...draft.options, MaximumGrantDuration: "5" };
    const body = toCreateBody(draft);
    expect(body.Kind).toBe("PROXY");
    expect(body.WizardState.form).toMatchObject({ Name: "Intranet", AclConfig: { haproxy: { ID: 3 } } });
    expect(body.WizardState.knocOptionsForm).toMatchObject({ Description: "Intranet", MaximumGrantDuration: 300 });
    expect(body.WizardState.apiKeyOption).toBe("none");
    expect("allowlistAccessIpRestrictionForm" in body.WizardState).toBe(false);
  });
});

describe("the stored draft", () => {
  it("keeps everything but the secrets: the type's secret fields and Sensitive values are emptied", () => {
    const draft = initialDraft("script", "agent");
    draft.settings = {
      ...draft.settings,
      Type: "fortios",
      Config: { fortios: { Url: "https://fw.example", Bearer: "secret-token", Vdom: "root" } },
    } as typeof draft.settings;
    draft.envVars = {
      rows: [
        { Name: "REGION", Value: "eu", Sensitive: false },
        { Name: "API_KEY", Value: "hunter2", Sensitive: true },
      ],
    };
    const stored = withoutSecrets(draft);
    expect(JSON.stringify(stored)).not.toMatch(/secret-token|hunter2/);
    expect(stored.settings.Config).toEqual({ fortios: { Url: "https://fw.example", Bearer: "", Vdom: "root" } });
    expect(stored.envVars.rows).toEqual([
      { Name: "REGION", Value: "eu", Sensitive: false },
      { Name: "API_KEY", Value: "", Sensitive: true },
    ]);
    expect(draft.envVars.rows[1]!.Value).toBe("hunter2"); // the draft in use keeps its secrets
  });
});

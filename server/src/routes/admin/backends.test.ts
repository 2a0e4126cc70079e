import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { adminClient, makeAgent, openSealed } from "../../testing/backend-fixtures.ts";
import { licenseHarness } from "../../testing/licences.ts";
import type { AdminClient, BoxKeys } from "../../testing/backend-fixtures.ts";
import { testTables } from "../../testing/database.ts";

const { auditLog, backends } = testTables;

const NONE = "00000000-0000-0000-0000-000000000000";
let h: Harness;
let admin: AdminClient;
let agent: { id: string; keys: BoxKeys };

beforeEach(async () => {
  h = await createHarness();
  await licenseHarness(h); // the test that creates an ACL needs one
  admin = await adminClient(h);
  agent = await makeAgent(h, "edge");
});
afterEach(async () => {
  await h.close();
});

const create = (Config: unknown, AgentID: string = agent.id, Name = "b1") =>
  admin.req("POST", "/api/admin/backends", { Name, AgentID, Config });
const update = (id: string, Config: unknown, AgentID: string = agent.id, Name = "b1") =>
  admin.req("PUT", `/api/admin/backends/${id}`, { ID: id, Name, AgentID, Config });
const row = async (id: string) => (await h.services.db.select().from(backends).where(eq(backends.id, id)).limit(1))[0]!;
async function created(Config: unknown, AgentID: string = agent.id, Name = "b1"): Promise<string> {
  const r = await create(Config, AgentID, Name);
  expect(r).toMatchObject({ status: 201, body: { ID: expect.any(String) } });
  return (r.body as { ID: string }).ID;
}

/** A valid config per type, the config read back, and the secret values that must never show. */
const valid: Record<string, { config: Record<string, unknown>; read: Record<string, unknown>; secrets: string[] }> = {
  fortios: {
    config: { Url: "https://fw.example.com", Bearer: "fortios-bearer-1", VDOM: "root" },
    read: { Url: "https://fw.example.com", Insecure: false, Bearer: "", Prefix: "kk_", VDOM: "root" },
    secrets: ["fortios-bearer-1"],
  },
  fortimanager: {
    config: { Hostname: "fmg.example.com", ApiKey: "fmg-key-1" },
    read: { Hostname: "fmg.example.com", Insecure: false, ApiKey: "" },
    secrets: ["fmg-key-1"],
  },
  azure: {
    config: { ClientId: "azure-client-1", ClientSecret: "azure-secret-1", TenantId: "azure-tenant-1", NoCache: true },
    read: { ClientId: "", ClientSecret: "", TenantId: "", NoCache: true },
    secrets: ["azure-client-1", "azure-secret-1", "azure-tenant-1"],
  },
  panos: {
    config: { Hostname: "pa.example.com", ApiKey: "panos-key-1", DeviceGroup: "dg1", MapUser: true },
    read: { Hostname: "pa.example.com", Insecure: false, ApiKey: "", VSys: "vsys1", DeviceGroup: "dg1", MapUser: true },
    secrets: ["panos-key-1"],
  },
  firepower: {
    config: { Hostname: "fmc.example.com", Username: "api", Password: "fp pass 1 " },
    read: { Hostname: "fmc.example.com", Insecure: false, Username: "api", Password: "" },
    secrets: ["fp pass 1"],
  },
  sophosutm: {
    config: { Hostname: "utm.example.com", Insecure: true, ApiKey: "utm-key-1" },
    read: { Hostname: "utm.example.com", Insecure: true, ApiKey: "" },
    secrets: ["utm-key-1"],
  },
  sophossfos: {
    config: { Hostname: "sfos.example.com", Username: "admin", Password: "sfos-pass-1" },
    read: { Hostname: "sfos.example.com", Insecure: false, Username: "admin", Password: "" },
    secrets: ["sfos-pass-1"],
  },
  aws: {
    config: { AccessKeyId: "AKIAEXAMPLE1", SecretAccessKey: "aws-secret-1", Region: "eu-west-1" },
    read: { AccessKeyId: "", SecretAccessKey: "", Region: "eu-west-1" },
    secrets: ["AKIAEXAMPLE1", "aws-secret-1"],
  },
  haproxy: {
    config: { Protocol: "unix", Address: "/var/run/haproxy.sock" },
    read: { Protocol: "unix", Address: "/var/run/haproxy.sock" },
    secrets: [],
  },
  knocproxy: {
    config: { Protocol: "tcp", Address: "127.0.0.1:9999" },
    read: { Protocol: "tcp", Address: "127.0.0.1:9999" },
    secrets: [],
  },
  script: {
    config: { Command: "/usr/local/bin/knoc.sh", EnvVars: [{ Name: "URL" }, { Name: "PASSWORD", Sensitive: true }] },
    read: {
      Command: "/usr/local/bin/knoc.sh",
      EnvVars: [
        { Name: "URL", Sensitive: false },
        { Name: "PASSWORD", Sensitive: true },
      ],
    },
    secrets: [],
  },
  ipset: { config: {}, read: {}, secrets: [] },
  allowlist: { config: {}, read: {}, secrets: [] },
};

describe("backend types", () => {
  it.each(Object.keys(valid))(
    "creates and reads a %s backend with its defaults and without its secrets",
    async (type) => {
      const v = valid[type]!;
      const agentId = type === "allowlist" ? NONE : agent.id;
      const id = await created({ [type]: v.config }, agentId);
      const read = await admin.req("GET", `/api/admin/backends/${id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({
        ID: id,
        Name: "b1",
        AgentID: agentId,
        Config: { [type]: v.read },
        SecretsSet: Object.entries(v.read)
          .filter(([k]) =>
            [
              "Bearer",
              "ApiKey",
              "Password",
              "ClientId",
              "ClientSecret",
              "TenantId",
              "AccessKeyId",
              "SecretAccessKey",
            ].includes(k),
          )
          .map(([k]) => k),
        LastModifiedAt: expect.any(String),
      });
      const everything = JSON.stringify([
        read.body,
        (await admin.req("GET", "/api/admin/backends")).body,
        (await row(id)).config,
        await h.services.db.select().from(auditLog),
      ]);
      for (const s of v.secrets) expect(everything).not.toContain(s);
      expect(Object.keys((await row(id)).sealedSecrets)).toHaveLength(v.secrets.length);
    },
  );

  it("refuses configs that do not name exactly one known type", async () => {
    expect(await create({})).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    expect(await create({ vpn: {} })).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    expect(await create({ ipset: {}, haproxy: { Protocol: "unix", Address: "/s" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request" },
    });
    expect(
      await admin.req("POST", "/api/admin/backends", { Name: "", AgentID: agent.id, Config: { ipset: {} } }),
    ).toMatchObject({ status: 400, body: { Err: "Bad request", Extra: expect.stringContaining("Name") } });
  });

  it("fortios: Url required and http(s), Bearer required (err.invalidFortiosConfig)", async () => {
    expect(await create({ fortios: { Bearer: "t" } })).toEqual({
      status: 400,
      body: { Err: "err.invalidFortiosConfig", Extra: "Config.fortios.Url: required" },
    });
    expect(await create({ fortios: { Url: "ftp://fw.example.com", Bearer: "t" } })).toEqual({
      status: 400,
      body: { Err: "URL must be http or https", Extra: "Config.fortios.Url" },
    });
    expect(await create({ fortios: { Url: "fw.example.com", Bearer: "t" } })).toMatchObject({
      status: 400,
      body: { Err: "URL must be http or https" },
    });
    expect(await create({ fortios: { Url: "http://fw.example.com" } })).toEqual({
      status: 400,
      body: { Err: "err.invalidFortiosConfig", Extra: "Config.fortios.Bearer: required" },
    });
    expect(await create({ fortios: { Url: "http://fw.example.com", Bearer: "   " } })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidFortiosConfig" },
    });
    const id = await created({ fortios: { Url: "http://fw.example.com", Bearer: "t", Prefix: "" } });
    expect((await admin.req("GET", `/api/admin/backends/${id}`)).body).toMatchObject({
      Config: { fortios: { Prefix: "kk_" } },
    });
  });

  it("panos: Hostname, ApiKey and VSys required", async () => {
    expect(await create({ panos: { ApiKey: "k" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.panos.Hostname: required" },
    });
    expect(await create({ panos: { Hostname: "pa" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.panos.ApiKey: required" },
    });
    expect(await create({ panos: { Hostname: "pa", ApiKey: "k", VSys: "" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.panos.VSys: required" },
    });
    expect(await create({ panos: { Hostname: "p a", ApiKey: "k" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining("Config.panos.Hostname") },
    });
  });

  it("firepower: Username and Password required", async () => {
    expect(await create({ firepower: { Hostname: "fmc", Password: "p" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.firepower.Username: required" },
    });
    expect(await create({ firepower: { Hostname: "fmc", Username: "u" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.firepower.Password: required" },
    });
  });

  it.each([
    ["fortimanager", { Hostname: "fmg" }, "Config.fortimanager.ApiKey"],
    ["sophosutm", { Hostname: "utm" }, "Config.sophosutm.ApiKey"],
    ["sophossfos", { Hostname: "sfos", Username: "u" }, "Config.sophossfos.Password"],
    ["azure", { ClientId: "c", TenantId: "t" }, "Config.azure.ClientSecret"],
    ["aws", { AccessKeyId: "a", Region: "eu-west-1" }, "Config.aws.SecretAccessKey"],
  ])("%s: secrets are required on create", async (type, config, field) => {
    expect(await create({ [type]: config })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: `${field}: required` },
    });
  });

  it("aws: Region required and a region", async () => {
    expect(await create({ aws: { AccessKeyId: "a", SecretAccessKey: "s" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.aws.Region: required" },
    });
    expect(await create({ aws: { AccessKeyId: "a", SecretAccessKey: "s", Region: "Mars" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining("Config.aws.Region") },
    });
  });

  it.each(["haproxy", "knocproxy"])("%s: Protocol and Address required, address fits the protocol", async (type) => {
    expect(await create({ [type]: { Address: "/s" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining(`Config.${type}.Protocol`) },
    });
    expect(await create({ [type]: { Protocol: "udp", Address: "/s" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request" },
    });
    expect(await create({ [type]: { Protocol: "unix", Address: "" } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: `Config.${type}.Address: required` },
    });
    expect(await create({ [type]: { Protocol: "unix", Address: "run/haproxy.sock" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining(`Config.${type}.Address`) },
    });
    expect(await create({ [type]: { Protocol: "tcp", Address: "127.0.0.1" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining(`Config.${type}.Address`) },
    });
    expect(await create({ [type]: { Protocol: "tcp", Address: "127.0.0.1:70000" } })).toMatchObject({
      status: 400,
      body: { Err: "Bad request" },
    });
    expect((await create({ [type]: { Protocol: "tcp", Address: "[::1]:9999" } })).status).toBe(201);
  });

  it("script: Command required, a full path or an http(s) webhook; variable names checked", async () => {
    expect(await create({ script: {} })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.script.Command: required" },
    });
    expect(await create({ script: { Command: "ftp://hooks.example.com/x" } })).toEqual({
      status: 400,
      body: { Err: "URL must be http or https", Extra: "Config.script.Command" },
    });
    expect(await create({ script: { Command: "knoc.sh" } })).toEqual({
      status: 400,
      body: {
        Err: "Command must be the full path of an executable or an http or https webhook URL",
        Extra: "Config.script.Command",
      },
    });
    const withVars = (EnvVars: unknown) => create({ script: { Command: "/bin/knoc", EnvVars } });
    expect(await withVars([{ Name: " " }])).toEqual({
      status: 400,
      body: { Err: "err.emptyEnvVarName", Extra: "Config.script.EnvVars.0" },
    });
    expect(await withVars([{ Name: "A" }, { Name: "B=C" }])).toEqual({
      status: 400,
      body: { Err: "err.invalidEnvVarName", Extra: "Config.script.EnvVars.1" },
    });
    for (const reserved of ["action", "aclname", "username", "cidr", "ipaddr", "knoc_ipaddr", "KNOC_USERNAME"]) {
      expect(await withVars([{ Name: reserved }])).toMatchObject({
        status: 400,
        body: { Err: "err.invalidEnvVarName" },
      });
    }
    // The spec's defaults URL, USERNAME, PASSWORD, POLICY are not the agent's names (docs/decisions.md).
    const defaults = [{ Name: "URL" }, { Name: "USERNAME" }, { Name: "PASSWORD", Sensitive: true }, { Name: "POLICY" }];
    expect(await create({ script: { Command: "/bin/knoc", EnvVars: defaults } }, agent.id, "defaults")).toMatchObject({
      status: 201,
    });
    expect(await withVars([{ Name: "URL" }, { Name: "URL", Sensitive: true }])).toEqual({
      status: 400,
      body: { Err: "err.repeatedEnvVarNames", Extra: "URL" },
    });
    const hook = await created({ script: { Command: "https://hooks.example.com/knoc" } });
    expect((await admin.req("GET", `/api/admin/backends/${hook}`)).body).toMatchObject({
      Config: { script: { Command: "https://hooks.example.com/knoc", EnvVars: [] } },
    });
  });

  it("names are unique (409), the type is locked, deletes are refused while ACLs use the backend", async () => {
    const id = await created({ ipset: {} });
    expect(await create({ ipset: {} })).toEqual({
      status: 409,
      body: { Err: "A backend with that name already exists" },
    });
    expect(await update(id, { haproxy: { Protocol: "unix", Address: "/s" } })).toEqual({
      status: 400,
      body: { Err: "Cannot change backend type" },
    });
    expect((await update(id, { ipset: {} }, agent.id, "renamed")).status).toBe(200);
    const acl = await admin.req("POST", "/api/admin/acls", {
      Description: "Linux",
      BackendID: id,
      Config: { ipset: { V4SetName: "knoc4" } },
    });
    expect(acl.status).toBe(201);
    expect(await admin.req("DELETE", `/api/admin/backends/${id}`)).toEqual({
      status: 409,
      body: { Err: "Delete the ACLs of this backend before deleting it" },
    });
    expect((await admin.req("DELETE", `/api/admin/acls/${acl.body as string}`)).status).toBe(204);
    expect((await admin.req("DELETE", `/api/admin/backends/${id}`)).status).toBe(204);
  });
});

describe("agent gates", () => {
  it("an agent must exist before a backend; allowlist needs none", async () => {
    const bare = await createHarness();
    try {
      const client = await adminClient(bare);
      expect(await client.req("POST", "/api/admin/backends", { Name: "x", Config: { ipset: {} } })).toEqual({
        status: 400,
        body: { Err: "Create an agent before creating a backend" },
      });
      expect((await client.req("POST", "/api/admin/backends", { Name: "x", Config: { allowlist: {} } })).status).toBe(
        201,
      );
    } finally {
      await bare.close();
    }
  });

  it("AgentID is required for every type but allowlist, and must name an agent", async () => {
    expect(
      await admin.req("POST", "/api/admin/backends", {
        Name: "x",
        Config: { haproxy: { Protocol: "unix", Address: "/s" } },
      }),
    ).toEqual({ status: 400, body: { Err: "err.invalidAgentId" } });
    expect(
      await create({ haproxy: { Protocol: "unix", Address: "/s" } }, "11111111-1111-1111-1111-111111111111"),
    ).toEqual({ status: 400, body: { Err: "err.invalidAgentId" } });
  });

  it("refuses an agent that never connected", async () => {
    const fresh = await makeAgent(h, "fresh", { enrol: false });
    expect(await create({ haproxy: { Protocol: "unix", Address: "/s" } }, fresh.id)).toEqual({
      status: 400,
      body: { Err: "err.agentNeverConnected" },
    });
    expect(await create({ aws: valid["aws"]!.config }, fresh.id)).toEqual({
      status: 400,
      body: { Err: "err.agentNeverConnected" },
    });
  });

  it("ipset needs the command and sudo", async () => {
    const noCmd = await makeAgent(h, "nocmd", {
      capabilities: { ipset: { ipsets: [], command_available: false, sudo_enabled: true } },
    });
    const noSudo = await makeAgent(h, "nosudo", {
      capabilities: { ipset: { ipsets: [], command_available: true, sudo_enabled: false } },
    });
    expect(await create({ ipset: {} }, noCmd.id)).toEqual({ status: 400, body: { Err: "err.ipsetNoCommand" } });
    expect(await create({ ipset: {} }, noSudo.id)).toEqual({ status: 400, body: { Err: "err.ipsetNoSudo" } });
  });

  it("a type no agent is capable of answers err.backendTypeNoAgents; one other agents can do, err.agentIncapable", async () => {
    const bare = await createHarness();
    try {
      const client = await adminClient(bare);
      const linux = await makeAgent(bare, "linux", {
        capabilities: {
          ipset: { ipsets: [], command_available: true, sudo_enabled: true },
          script: { enabled: false },
        },
      });
      const post = (Config: unknown, AgentID: string) =>
        client.req("POST", "/api/admin/backends", { Name: `b${Math.random()}`, AgentID, Config });
      expect(await post({ haproxy: { Protocol: "unix", Address: "/s" } }, linux.id)).toEqual({
        status: 400,
        body: { Err: "err.backendTypeNoAgents", Extra: "haproxy" },
      });
      expect(await post({ knocproxy: { Protocol: "unix", Address: "/s" } }, linux.id)).toEqual({
        status: 400,
        body: { Err: "err.backendTypeNoAgents", Extra: "knocproxy" },
      });
      expect(await post({ script: { Command: "/bin/knoc" } }, linux.id)).toEqual({
        status: 400,
        body: { Err: "err.backendTypeNoAgents", Extra: "script" },
      });
      // A never-connected agent's capabilities do not count.
      await makeAgent(bare, "pending", { enrol: false });
      expect((await post({ haproxy: { Protocol: "unix", Address: "/s" } }, linux.id)).body).toMatchObject({
        Err: "err.backendTypeNoAgents",
      });
      const proxy = await makeAgent(bare, "proxy", {
        capabilities: { haproxy: { socket_location: "/s" }, script: { enabled: true } },
      });
      expect(await post({ haproxy: { Protocol: "unix", Address: "/s" } }, linux.id)).toEqual({
        status: 400,
        body: { Err: "err.agentIncapable", Extra: "haproxy" },
      });
      expect(await post({ script: { Command: "/bin/knoc" } }, linux.id)).toEqual({
        status: 400,
        body: { Err: "err.agentIncapable", Extra: "script" },
      });
      expect((await post({ haproxy: { Protocol: "unix", Address: "/s" } }, proxy.id)).status).toBe(201);
      expect((await post({ knocproxy: { Protocol: "unix", Address: "/s" } }, proxy.id)).status).toBe(201);
      expect((await post({ script: { Command: "/bin/knoc" } }, proxy.id)).status).toBe(201);
    } finally {
      await bare.close();
    }
  });

  it.each([
    ["script", { Command: "/bin/knoc" }, "1.5.9", "1.6.0"],
    ["fortios", valid["fortios"]!.config, "1.5.9", "1.6.0"],
    ["fortimanager", valid["fortimanager"]!.config, "1.5.9", "1.6.0"],
    ["panos", valid["panos"]!.config, "1.5.9", "1.6.0"],
    ["firepower", valid["firepower"]!.config, "1.5.9", "1.6.0"],
    ["azure", valid["azure"]!.config, "1.5.9", "1.6.0"],
    ["aws", valid["aws"]!.config, "1.5.9", "1.6.0"],
    ["sophosutm", valid["sophosutm"]!.config, "1.8.9", "1.9.0"],
    ["sophossfos", valid["sophossfos"]!.config, "1.8.9", "1.9.0"],
  ])("%s needs an agent of at least the gate version", async (type, config, below, at) => {
    const old = await makeAgent(h, "old", { version: below });
    const ok = await makeAgent(h, "ok", { version: at });
    expect(await create({ [type]: config }, old.id)).toEqual({
      status: 400,
      body: { Err: "err.agentBackendTypeNotSupported", Extra: `${type} needs agent ${at} or later` },
    });
    expect((await create({ [type]: config }, ok.id)).status).toBe(201);
  });

  it("a version that is not semver is too old; haproxy and ipset have no version gate", async () => {
    const odd = await makeAgent(h, "odd", { version: "dev" });
    expect(await create({ script: { Command: "/bin/knoc" } }, odd.id)).toMatchObject({
      status: 400,
      body: { Err: "err.agentBackendTypeNotSupported" },
    });
    const ancient = await makeAgent(h, "ancient", { version: "1.0.0" });
    expect((await create({ haproxy: { Protocol: "unix", Address: "/s" } }, ancient.id, "h")).status).toBe(201);
    expect((await create({ ipset: {} }, ancient.id, "i")).status).toBe(201);
  });

  it("gates apply on update too", async () => {
    const id = await created({ script: { Command: "/bin/knoc" } });
    const old = await makeAgent(h, "old", { version: "1.5.9" });
    expect(await update(id, { script: { Command: "/bin/knoc" } }, old.id)).toMatchObject({
      status: 400,
      body: { Err: "err.agentBackendTypeNotSupported" },
    });
  });
});

describe("sealed secrets", () => {
  it("seals each secret to the agent's box key: only the agent's secret key opens it", async () => {
    const id = await created({ aws: valid["aws"]!.config });
    const sealed = (await row(id)).sealedSecrets;
    expect(Object.keys(sealed).sort()).toEqual(["AccessKeyId", "SecretAccessKey"]);
    expect(openSealed(sealed["AccessKeyId"]!, agent.keys)).toBe("AKIAEXAMPLE1");
    expect(openSealed(sealed["SecretAccessKey"]!, agent.keys)).toBe("aws-secret-1");
    const other = await makeAgent(h, "other");
    expect(() => openSealed(sealed["SecretAccessKey"]!, other.keys)).toThrow();
    expect((await row(id)).config).toEqual({ aws: { AccessKeyId: "", SecretAccessKey: "", Region: "eu-west-1" } });
  });

  it("a blank secret on update keeps the stored one; a new one replaces it", async () => {
    const id = await created({ panos: valid["panos"]!.config });
    const before = (await row(id)).sealedSecrets["ApiKey"];
    expect((await update(id, { panos: { Hostname: "pa.example.com", ApiKey: "", DeviceGroup: "dg2" } })).status).toBe(
      200,
    );
    expect((await row(id)).sealedSecrets["ApiKey"]).toBe(before);
    expect((await admin.req("GET", `/api/admin/backends/${id}`)).body).toMatchObject({
      SecretsSet: ["ApiKey"],
      Config: { panos: { ApiKey: "", DeviceGroup: "dg2" } },
    });
    expect((await update(id, { panos: { Hostname: "pa.example.com", ApiKey: "panos-key-2" } })).status).toBe(200);
    expect(openSealed((await row(id)).sealedSecrets["ApiKey"]!, agent.keys)).toBe("panos-key-2");
    expect(JSON.stringify((await admin.req("GET", "/api/admin/backends")).body)).not.toContain("panos-key");
    const audit = (await h.services.db.select().from(auditLog))
      .filter((e) => e.action.startsWith("backend"))
      .map((e) => e.description);
    expect(audit).toEqual(["b1", "b1", "b1 (secrets entered: ApiKey)"]);
  });

  it("a new agent needs every secret again, sealed to the new agent", async () => {
    const id = await created({ azure: valid["azure"]!.config });
    const next = await makeAgent(h, "next");
    expect(await update(id, { azure: { ClientId: "c2" } }, next.id)).toEqual({
      status: 400,
      body: {
        Err: "Changing the agent requires re-entering the backend's secrets",
        Extra: "Config.azure.ClientSecret, Config.azure.TenantId",
      },
    });
    expect((await row(id)).agentId).toBe(agent.id);
    expect((await update(id, { azure: { ClientId: "c2", ClientSecret: "s2", TenantId: "t2" } }, next.id)).status).toBe(
      200,
    );
    const sealed = (await row(id)).sealedSecrets;
    expect(openSealed(sealed["ClientSecret"]!, next.keys)).toBe("s2");
    expect(() => openSealed(sealed["ClientSecret"]!, agent.keys)).toThrow();
  });

  it.each([
    [
      "fortios",
      { Url: "https://fw.example.com", Bearer: "b" },
      { Url: "https://fw2.example.com" },
      "Config.fortios.Bearer",
      { Bearer: "b2" },
    ],
    [
      "fortimanager",
      { Hostname: "fmg1", ApiKey: "k" },
      { Hostname: "fmg2" },
      "Config.fortimanager.ApiKey",
      { ApiKey: "k2" },
    ],
    ["panos", { Hostname: "pa1", ApiKey: "k" }, { Hostname: "pa2" }, "Config.panos.ApiKey", { ApiKey: "k2" }],
    [
      "firepower",
      { Hostname: "fmc1", Username: "u", Password: "p" },
      { Hostname: "fmc2", Username: "u" },
      "Config.firepower.Password",
      { Password: "p2" },
    ],
    ["sophosutm", { Hostname: "utm1", ApiKey: "k" }, { Hostname: "utm2" }, "Config.sophosutm.ApiKey", { ApiKey: "k2" }],
    [
      "sophossfos",
      { Hostname: "sfos1", Username: "u", Password: "p" },
      { Hostname: "sfos2", Username: "u" },
      "Config.sophossfos.Password",
      { Password: "p2" },
    ],
  ])("%s: a new Url or Hostname needs the credentials again", async (type, first, moved, field, secret) => {
    const id = await created({ [type]: first });
    expect(await update(id, { [type]: moved })).toEqual({
      status: 400,
      body: { Err: "Changing the URI or hostname requires re-entering credentials", Extra: field },
    });
    expect((await update(id, { [type]: { ...moved, ...secret } })).status).toBe(200);
    expect(openSealed(Object.values((await row(id)).sealedSecrets)[0]!, agent.keys)).toBe(Object.values(secret)[0]);
  });

  it("refuses to seal to an agent without a usable box key", async () => {
    const a = await h.services.agents.create("keyless", "http://127.0.0.1:8080", { adminName: "t", ip: "127.0.0.1" });
    await h.services.agents.enrol(
      { Token: a.Token, SigningPublicKey: "x", BoxPublicKey: "not-a-key", Version: "1.9.0", Capabilities: {} },
      "127.0.0.1",
    );
    expect(await create({ fortios: valid["fortios"]!.config }, a.ID)).toMatchObject({
      status: 400,
      body: { Err: "err.agentIncapable" },
    });
    expect((await create({ ipset: {} }, agent.id, "no-secrets")).status).toBe(201);
  });
});

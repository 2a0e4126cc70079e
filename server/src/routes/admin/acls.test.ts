import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createHarness } from "../../testing/harness.ts";
import type { Harness } from "../../testing/harness.ts";
import { adminClient, makeAgent, openSealed } from "../../testing/backend-fixtures.ts";
import type { AdminClient, BoxKeys } from "../../testing/backend-fixtures.ts";
import { licenseHarness, unlicenseHarness } from "../../testing/licences.ts";
import { testTables } from "../../testing/database.ts";

const { acls, backends } = testTables;

const NONE = "00000000-0000-0000-0000-000000000000";
let h: Harness;
let admin: AdminClient;
let agent: { id: string; keys: BoxKeys };

beforeEach(async () => {
  h = await createHarness();
  await licenseHarness(h);
  admin = await adminClient(h);
  agent = await makeAgent(h, "edge");
});
afterEach(async () => {
  await h.close();
});

/** A valid backend config per type. */
const backendOf: Record<string, Record<string, unknown>> = {
  fortios: { Url: "https://fw.example.com", Bearer: "b" },
  fortimanager: { Hostname: "fmg", ApiKey: "k" },
  azure: { ClientId: "c", ClientSecret: "s", TenantId: "t" },
  panos: { Hostname: "pa", ApiKey: "k" },
  firepower: { Hostname: "fmc", Username: "u", Password: "p" },
  sophosutm: { Hostname: "utm", ApiKey: "k" },
  sophossfos: { Hostname: "sfos", Username: "u", Password: "p" },
  aws: { AccessKeyId: "a", SecretAccessKey: "s", Region: "eu-west-1" },
  haproxy: { Protocol: "unix", Address: "/var/run/haproxy.sock" },
  knocproxy: { Protocol: "unix", Address: "/var/run/knocproxy.sock" },
  script: { Command: "/usr/local/bin/knoc.sh", EnvVars: [{ Name: "URL" }, { Name: "PASSWORD", Sensitive: true }] },
  ipset: {},
  allowlist: {},
};

async function backend(
  type: string,
  config: Record<string, unknown> = backendOf[type]!,
  agentId: string = agent.id,
  name = type,
): Promise<string> {
  const r = await admin.req("POST", "/api/admin/backends", {
    Name: name,
    AgentID: type === "allowlist" ? NONE : agentId,
    Config: { [type]: config },
  });
  expect(r.status).toBe(201);
  return (r.body as { ID: string }).ID;
}
const createAcl = (BackendID: string, Config: unknown) =>
  admin.req("POST", "/api/admin/acls", { Description: "Knoc", BackendID, Config });
const updateAcl = (id: string, BackendID: string, Config: unknown) =>
  admin.req("PUT", `/api/admin/acls/${id}`, { ID: id, Description: "Knoc", BackendID, Config });
const readConfig = async (id: string) =>
  ((await admin.req("GET", `/api/admin/acls/${id}`)).body as { Config: Record<string, unknown> }).Config;
const sealedOf = async (backendId: string) =>
  (await h.services.db.select().from(backends).where(eq(backends.id, backendId)).limit(1))[0]!.sealedSecrets;
async function aclOk(BackendID: string, Config: unknown): Promise<string> {
  const r = await createAcl(BackendID, Config);
  expect(r).toMatchObject({ status: 201, body: expect.any(String) });
  return r.body as string;
}

/** Per type: a valid ACL Config (the type's fields), what reads back, and broken ones with their exact errors. */
const cases: Record<
  string,
  { ok: Record<string, unknown>; read: Record<string, unknown>; bad: [unknown, { Err: string; Extra?: unknown }][] }
> = {
  haproxy: {
    ok: { ID: 7 },
    read: { ID: 7 },
    bad: [
      [undefined, { Err: "err.aclIdRequired", Extra: "Config.haproxy.ID" }],
      [{}, { Err: "err.aclIdRequired", Extra: "Config.haproxy.ID" }],
      [{ ID: "" }, { Err: "err.aclIdRequired", Extra: "Config.haproxy.ID" }],
      [{ ID: "7" }, { Err: "err.aclIdMustBeNumber", Extra: "Config.haproxy.ID" }],
      [{ ID: 1.5 }, { Err: "err.aclIdMustBeNumber", Extra: "Config.haproxy.ID" }],
      [{ ID: -1 }, { Err: "err.aclIdMustBeNumber", Extra: "Config.haproxy.ID" }],
    ],
  },
  knocproxy: {
    ok: { Name: "team_wiki_1" },
    read: { Name: "team_wiki_1" },
    bad: [
      [undefined, { Err: "err.aclNameRequired", Extra: "Config.knocproxy.Name" }],
      [{ Name: " " }, { Err: "err.aclNameRequired", Extra: "Config.knocproxy.Name" }],
      [{ Name: "team-wiki" }, { Err: "err.invalidKnocproxyAclName", Extra: "Config.knocproxy.Name" }],
    ],
  },
  script: {
    ok: { Name: "team-wiki_1", EnvVars: { URL: { Value: "https://x.example" } } },
    read: { Name: "team-wiki_1", EnvVars: { URL: { Value: "https://x.example", Encrypted: false } } },
    bad: [
      [undefined, { Err: "err.aclNameRequired", Extra: "Config.script.Name" }],
      [{ Name: "team wiki" }, { Err: "err.invalidAclName", Extra: "Config.script.Name" }],
      [
        { Name: "n", EnvVars: { " ": { Value: "v" } } },
        { Err: "err.emptyEnvVarName", Extra: "Config.script.EnvVars.0" },
      ],
      [
        { Name: "n", EnvVars: { "A=B": { Value: "v" } } },
        { Err: "err.invalidEnvVarName", Extra: "Config.script.EnvVars.0" },
      ],
      [
        { Name: "n", EnvVars: { aclname: { Value: "v" } } },
        { Err: "err.invalidEnvVarName", Extra: "Config.script.EnvVars.0: aclname is reserved" },
      ],
      [
        { Name: "n", EnvVars: { URL: { Value: "v" }, " URL": { Value: "w" } } },
        { Err: "err.repeatedEnvVarNames", Extra: "URL" },
      ],
      [
        { Name: "n", EnvVars: { URL: { Value: "" } } },
        { Err: "Bad request", Extra: "Config.script.EnvVars.URL.Value: required" },
      ],
      [
        { Name: "n", EnvVars: { PASSWORD: { Value: "" } } },
        { Err: "Bad request", Extra: "Config.script.EnvVars.PASSWORD.Value: required" },
      ],
    ],
  },
  ipset: {
    ok: { V4SetName: "knoc4" },
    read: { V4SetName: "knoc4", V6SetName: "" },
    bad: [
      [undefined, { Err: "err.ipsetNameRequired" }],
      [{ V4SetName: "", V6SetName: "" }, { Err: "err.ipsetNameRequired" }],
      [{ V4SetName: "bad name" }, { Err: "err.invalidAclName", Extra: "bad name" }],
    ],
  },
  fortios: {
    ok: { Name: "Knoc_Allowed" },
    read: { Name: "Knoc_Allowed" },
    bad: [
      [undefined, { Err: "err.aclNameRequired", Extra: "Config.fortios.Name" }],
      [{ Name: "knoc-allowed" }, { Err: "Invalid ACL name", Extra: "Config.fortios.Name" }],
      [{ Name: "knoc allowed" }, { Err: "Invalid ACL name", Extra: "Config.fortios.Name" }],
    ],
  },
  fortimanager: {
    ok: { Name: "Knoc_Allowed" },
    read: { Name: "Knoc_Allowed" },
    bad: [
      [{}, { Err: "err.aclNameRequired", Extra: "Config.fortimanager.Name" }],
      [{ Name: "a b" }, { Err: "Invalid ACL name", Extra: "Config.fortimanager.Name" }],
    ],
  },
  panos: {
    ok: { GroupName: "knoc_group", MapUser: true },
    read: { EDLName: "", GroupName: "knoc_group", SerialNumber: "", MapUser: true, URL: "" },
    bad: [
      [undefined, { Err: "Bad request", Extra: "Config.panos.GroupName: required (or EDLName for Passive+)" }],
      [{ GroupName: "knoc-group" }, { Err: "Invalid ACL name", Extra: "Config.panos.GroupName" }],
      [{ EDLName: "knoc edl" }, { Err: "Invalid ACL name", Extra: "Config.panos.EDLName" }],
      [
        { EDLName: "edl", URL: "ftp://list.example" },
        { Err: "URL must be http or https", Extra: "Config.panos.URL" },
      ],
    ],
  },
  firepower: {
    ok: { GroupUUID: "005056B6-DCA2-0ed3-0000-000268434433" },
    read: { GroupUUID: "005056B6-DCA2-0ed3-0000-000268434433" },
    bad: [
      [undefined, { Err: "Bad request", Extra: "Config.firepower.GroupUUID: required" }],
      [{ GroupUUID: "group-1" }, { Err: "Bad request", Extra: "Config.firepower.GroupUUID: must be a UUID" }],
    ],
  },
  sophosutm: {
    ok: { GroupReference: "REF_NetGroKnoc" },
    read: { GroupReference: "REF_NetGroKnoc" },
    bad: [[{}, { Err: "Bad request", Extra: "Config.sophosutm.GroupReference: required" }]],
  },
  sophossfos: {
    ok: { GroupNameV6: "knoc_6" },
    read: { GroupName: "", GroupNameV6: "knoc_6" },
    bad: [
      [{}, { Err: "Bad request", Extra: "Config.sophossfos.GroupName: GroupName or GroupNameV6 required" }],
      [{ GroupName: "knoc.4" }, { Err: "Invalid ACL name", Extra: "Config.sophossfos.GroupName" }],
      [{ GroupNameV6: "knoc/6" }, { Err: "Invalid ACL name", Extra: "Config.sophossfos.GroupNameV6" }],
    ],
  },
  azure: {
    ok: { NsgDirection: "Inbound", NsgName: "nsg_web", NsgPort: "8443", ResourceGroup: "rg-web" },
    read: { NsgDirection: "Inbound", NsgName: "nsg_web", NsgPort: 8443, ResourceGroup: "rg-web" },
    bad: [
      [
        { NsgDirection: "Inbound", NsgName: "nsg-web", ResourceGroup: "r" },
        { Err: "Invalid ACL name", Extra: "Config.azure.NsgName" },
      ],
      [
        { NsgName: "n", ResourceGroup: "r" },
        { Err: "Bad request", Extra: "Config.azure.NsgDirection: required" },
      ],
      [
        { NsgDirection: "Sideways", NsgName: "n", ResourceGroup: "r" },
        { Err: "Bad request", Extra: expect.stringContaining("Config.azure.NsgDirection") },
      ],
      [
        { NsgDirection: "Outbound", ResourceGroup: "r" },
        { Err: "Bad request", Extra: "Config.azure.NsgName: required" },
      ],
      [
        { NsgDirection: "Outbound", NsgName: "n" },
        { Err: "Bad request", Extra: "Config.azure.ResourceGroup: required" },
      ],
      [
        { NsgDirection: "Outbound", NsgName: "n", ResourceGroup: "r", NsgPort: "https" },
        { Err: "Bad request", Extra: expect.stringContaining("Config.azure.NsgPort") },
      ],
      [
        { NsgDirection: "Outbound", NsgName: "n", ResourceGroup: "r", NsgPort: 0 },
        { Err: "Bad request", Extra: expect.stringContaining("Config.azure.NsgPort") },
      ],
    ],
  },
  aws: {
    ok: { SecurityGroupId: "sg-0123456789abcdef0", Port: "2222" },
    read: { SecurityGroupId: "sg-0123456789abcdef0", Port: 2222 },
    bad: [
      [{}, { Err: "Bad request", Extra: "Config.aws.SecurityGroupId: required" }],
      [
        { SecurityGroupId: "web" },
        { Err: "Bad request", Extra: "Config.aws.SecurityGroupId: must be a security group id (sg-...)" },
      ],
      [
        { SecurityGroupId: "sg-01234567", Port: 70000 },
        { Err: "Bad request", Extra: expect.stringContaining("Config.aws.Port") },
      ],
      [
        { SecurityGroupId: "sg-01234567", Port: "" },
        { Err: "Bad request", Extra: expect.stringContaining("Config.aws.Port") },
      ],
    ],
  },
  allowlist: {
    // The client's Token is ignored: the server mints one (see "allowlist tokens" below).
    ok: { Token: "t0k3n" },
    read: {
      Token: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
      ApiKeyId: NONE,
      AllowAccessByIp: false,
      AllowedIpAddresses: [],
    },
    bad: [[undefined, { Err: "err.noBackendSelected", Extra: "Config.allowlist is required" }]],
  },
};

describe("ACL fields per backend type", () => {
  it.each(Object.keys(cases))(
    "%s: the valid fields are kept (other types' keys dropped) and each broken rule answers its key",
    async (type) => {
      const c = cases[type]!;
      const backendId = await backend(type);
      for (const [fields, err] of c.bad) {
        const config = fields === undefined ? {} : { [type]: fields };
        expect(await createAcl(backendId, config), JSON.stringify(fields)).toEqual({ status: 400, body: err });
      }
      const other = type === "ipset" ? { haproxy: { ID: 1 } } : { ipset: { V4SetName: "x" } };
      const id = await aclOk(backendId, { UriToken: "u", ...other, [type]: c.ok });
      expect(await readConfig(id)).toEqual({ UriToken: "u", [type]: c.read });
      // Update runs the same rules.
      const [firstBad, firstErr] = c.bad[0]!;
      expect(await updateAcl(id, backendId, firstBad === undefined ? {} : { [type]: firstBad })).toEqual({
        status: 400,
        body: firstErr,
      });
    },
  );

  it("fills the defaults: azure NsgPort 443, aws Port 22", async () => {
    const az = await aclOk(await backend("azure"), {
      azure: { NsgDirection: "Outbound", NsgName: "n", ResourceGroup: "r" },
    });
    expect(await readConfig(az)).toMatchObject({ azure: { NsgPort: 443 } });
    const aws = await aclOk(await backend("aws"), { aws: { SecurityGroupId: "sg-01234567" } });
    expect(await readConfig(aws)).toMatchObject({ aws: { Port: 22 } });
  });

  it("panos: GroupName for active, EDLName alone for Passive+", async () => {
    const id = await backend("panos");
    expect(
      (
        await createAcl(id, {
          panos: {
            EDLName: "knoc_edl",
            SerialNumber: "012345678901",
            URL: "https://postern.example/api/v1/allowlists/x/y.txt",
          },
        })
      ).status,
    ).toBe(201);
  });

  it("a backend must exist first; an unknown backend is err.noBackendSelected", async () => {
    expect(await createAcl("11111111-1111-1111-1111-111111111111", {})).toEqual({
      status: 400,
      body: { Err: "err.createBackendBeforeACL" },
    });
    await backend("ipset");
    expect(await createAcl("11111111-1111-1111-1111-111111111111", {})).toEqual({
      status: 400,
      body: { Err: "err.noBackendSelected" },
    });
  });
});

describe("sensitive script variables", () => {
  const vars = {
    URL: { Value: "https://hooks.example" },
    PASSWORD: { Value: "pw-secret-1" },
    TOKEN: { Value: "tok-secret-1", Encrypted: true },
  };

  it("seals the sensitive values to the agent, never reads them back, and a blank value keeps them", async () => {
    const backendId = await backend("script");
    const id = await aclOk(backendId, { script: { Name: "wiki", EnvVars: vars } });
    const read = await readConfig(id);
    expect(read).toEqual({
      UriToken: "",
      script: {
        Name: "wiki",
        EnvVars: {
          URL: { Value: "https://hooks.example", Encrypted: false },
          PASSWORD: { Value: "", Encrypted: true },
          TOKEN: { Value: "", Encrypted: true },
        },
      },
    });
    const sealed = await sealedOf(backendId);
    expect(openSealed(sealed[`acl:${id}:env:PASSWORD`]!, agent.keys)).toBe("pw-secret-1");
    expect(openSealed(sealed[`acl:${id}:env:TOKEN`]!, agent.keys)).toBe("tok-secret-1");
    const stored = (await h.services.db.select().from(acls).where(eq(acls.id, id)).limit(1))[0]!;
    const reads = JSON.stringify([
      read,
      (await admin.req("GET", "/api/admin/acls")).body,
      (await admin.req("GET", "/api/admin/backends")).body,
      stored.config,
    ]);
    expect(reads).not.toContain("secret-1");

    // Blank keeps; a new value replaces; a dropped variable leaves the backend's sealed map.
    expect(
      (
        await updateAcl(id, backendId, {
          script: {
            Name: "wiki",
            EnvVars: { ...vars, PASSWORD: { Value: "", Encrypted: true }, TOKEN: { Value: "", Encrypted: true } },
          },
        })
      ).status,
    ).toBe(200);
    expect((await sealedOf(backendId))[`acl:${id}:env:PASSWORD`]).toBe(sealed[`acl:${id}:env:PASSWORD`]);
    expect(
      (
        await updateAcl(id, backendId, {
          script: { Name: "wiki", EnvVars: { URL: vars.URL, PASSWORD: { Value: "pw-secret-2" } } },
        })
      ).status,
    ).toBe(200);
    expect(openSealed((await sealedOf(backendId))[`acl:${id}:env:PASSWORD`]!, agent.keys)).toBe("pw-secret-2");
    expect((await sealedOf(backendId))[`acl:${id}:env:TOKEN`]).toBeUndefined();

    // Deleting the ACL removes its sealed values.
    expect((await admin.req("DELETE", `/api/admin/acls/${id}`)).status).toBe(204);
    expect(Object.keys(await sealedOf(backendId))).toEqual([]);
  });

  it("a backend moved to another agent clears the ACL's sealed values, which must then be entered again", async () => {
    const backendId = await backend("script");
    const id = await aclOk(backendId, { script: { Name: "wiki", EnvVars: vars } });
    const next = await makeAgent(h, "next");
    expect(
      (
        await admin.req("PUT", `/api/admin/backends/${backendId}`, {
          Name: "script",
          AgentID: next.id,
          Config: { script: backendOf["script"] },
        })
      ).status,
    ).toBe(200);
    expect(await sealedOf(backendId)).toEqual({});
    expect((await readConfig(id))["script"]).toMatchObject({
      EnvVars: { PASSWORD: { Value: "", Encrypted: false }, TOKEN: { Value: "", Encrypted: false } },
    });
    const blank = { ...vars, PASSWORD: { Value: "", Encrypted: true }, TOKEN: { Value: "", Encrypted: true } };
    expect(await updateAcl(id, backendId, { script: { Name: "wiki", EnvVars: blank } })).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.script.EnvVars.PASSWORD.Value: required" },
    });
    expect((await updateAcl(id, backendId, { script: { Name: "wiki", EnvVars: vars } })).status).toBe(200);
    expect(openSealed((await sealedOf(backendId))[`acl:${id}:env:PASSWORD`]!, next.keys)).toBe("pw-secret-1");
  });

  it("a variable the backend newly declares Sensitive gets its plain ACL values sealed", async () => {
    const backendId = await backend("script");
    const id = await aclOk(backendId, {
      script: { Name: "wiki", EnvVars: { URL: { Value: "https://hooks.example" } } },
    });
    const declared = { Command: "/usr/local/bin/knoc.sh", EnvVars: [{ Name: "URL", Sensitive: true }] };
    expect(
      (
        await admin.req("PUT", `/api/admin/backends/${backendId}`, {
          Name: "script",
          AgentID: agent.id,
          Config: { script: declared },
        })
      ).status,
    ).toBe(200);
    expect((await readConfig(id))["script"]).toMatchObject({ EnvVars: { URL: { Value: "", Encrypted: true } } });
    expect(openSealed((await sealedOf(backendId))[`acl:${id}:env:URL`]!, agent.keys)).toBe("https://hooks.example");
  });

  it("an ACL moved to another backend of the same agent keeps its sealed values; to another agent's, it needs them again", async () => {
    const first = await backend("script");
    const second = await backend("script", backendOf["script"]!, agent.id, "script-2");
    const other = await makeAgent(h, "other");
    const third = await backend("script", backendOf["script"]!, other.id, "script-3");
    const id = await aclOk(first, { script: { Name: "wiki", EnvVars: vars } });
    const keep = {
      script: {
        Name: "wiki",
        EnvVars: { ...vars, PASSWORD: { Value: "", Encrypted: true }, TOKEN: { Value: "", Encrypted: true } },
      },
    };
    expect((await updateAcl(id, second, keep)).status).toBe(200);
    expect(await sealedOf(first)).toEqual({});
    expect(openSealed((await sealedOf(second))[`acl:${id}:env:TOKEN`]!, agent.keys)).toBe("tok-secret-1");
    expect(await updateAcl(id, third, keep)).toEqual({
      status: 400,
      body: { Err: "Bad request", Extra: "Config.script.EnvVars.PASSWORD.Value: required" },
    });
    expect((await sealedOf(second))[`acl:${id}:env:TOKEN`]).toBeDefined();
  });
});

describe("the licence (admin-console §1: a licence is required to create or update Knocs)", () => {
  it("POST and PUT /api/admin/acls are refused without a licence, changing nothing", async () => {
    const backendId = await backend("ipset");
    const id = await aclOk(backendId, { ipset: { V4SetName: "knoc4" } });
    const before = await h.services.db.select().from(acls);
    await unlicenseHarness(h);
    expect(await createAcl(backendId, { ipset: { V4SetName: "other4" } })).toEqual({
      status: 403,
      body: { Err: "err.youDoNotHaveALicense" },
    });
    expect(await updateAcl(id, backendId, { ipset: { V4SetName: "changed4" } })).toEqual({
      status: 403,
      body: { Err: "err.youDoNotHaveALicense" },
    });
    // The licence is checked before the input: a broken body is refused for the licence too.
    expect(await createAcl(backendId, {})).toEqual({ status: 403, body: { Err: "err.youDoNotHaveALicense" } });
    expect(await h.services.db.select().from(acls)).toEqual(before);
    // Deleting needs no licence (the install can always be cleaned up).
    expect((await admin.req("DELETE", `/api/admin/acls/${id}`)).status).toBe(204);
  });

  it("an expired licence refuses them too, naming why", async () => {
    const backendId = await backend("ipset");
    await licenseHarness(h, { Expires: new Date(h.clock.now() + 60_000).toISOString() });
    const id = await aclOk(backendId, { ipset: { V4SetName: "knoc4" } });
    h.clock.advance(120_000);
    const refused = { status: 403, body: { Err: "err.youDoNotHaveALicense", Extra: "err.licenseExpired" } };
    expect(await createAcl(backendId, { ipset: { V4SetName: "other4" } })).toEqual(refused);
    expect(await updateAcl(id, backendId, { ipset: { V4SetName: "changed4" } })).toEqual(refused);
  });
});

describe("allowlist tokens (the secret part of the public allowlist URL)", () => {
  const allowlist = { AllowAccessByIp: true, AllowedIpAddresses: [{ Prefix: "192.0.2.0/24", Note: "" }] };
  const tokenOf = async (id: string) => ((await readConfig(id))["allowlist"] as { Token: string }).Token;

  it("an ACL made on the ACLs page gets a random 192-bit Token, whatever the client sent", async () => {
    const backendId = await backend("allowlist");
    const tokens = [
      await tokenOf(await aclOk(backendId, { allowlist })),
      await tokenOf(await aclOk(backendId, { allowlist: { ...allowlist, Token: "" } })),
      await tokenOf(await aclOk(backendId, { allowlist: { ...allowlist, Token: "guessable" } })),
    ];
    for (const t of tokens) expect(Buffer.from(t, "base64url")).toHaveLength(24);
    expect(new Set(tokens).size).toBe(3);
  });

  it("an update keeps the stored Token (an empty or different one sent is ignored), and the URL always carries it", async () => {
    const backendId = await backend("allowlist");
    const id = await aclOk(backendId, { allowlist });
    const token = await tokenOf(id);
    for (const sent of ["", "guessable"]) {
      expect((await updateAcl(id, backendId, { allowlist: { ...allowlist, Token: sent } })).status).toBe(200);
      expect(await tokenOf(id)).toBe(token);
    }
    const knoc = (await admin.req("GET", `/api/admin/knocs/${id}`)).body as { AllowlistURL: string };
    expect(knoc.AllowlistURL).toMatch(new RegExp(`/api/v1/allowlists/${id}/${token}\\.txt$`));
  });

  it("an ACL stored with an empty Token (before this rule) gets one at its next update", async () => {
    const backendId = await backend("allowlist");
    const id = await aclOk(backendId, { allowlist });
    const row = (await h.services.db.select().from(acls).where(eq(acls.id, id)).limit(1))[0]!;
    const config = { ...row.config, allowlist: { ...allowlist, Token: "" } };
    await h.services.db.update(acls).set({ config }).where(eq(acls.id, id));
    expect((await updateAcl(id, backendId, { allowlist: { ...allowlist, Token: "" } })).status).toBe(200);
    expect(Buffer.from(await tokenOf(id), "base64url")).toHaveLength(24);
  });
});

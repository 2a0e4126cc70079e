import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";

const { acls, apiKeys, backends } = testTables;

let h: Harness;
let seed: Seeded;
let admin = "";
let agentId = "";

const actor = { adminName: "test", ip: "127.0.0.1" };
const options = { Description: "SSH bastion", ClickToGrant: true, MaximumGrantDuration: 3600 };
const counts = async () => ({
  backends: (await h.services.db.select({ n: count() }).from(backends).limit(1))[0]?.n,
  acls: (await h.services.db.select({ n: count() }).from(acls).limit(1))[0]?.n,
  apiKeys: (await h.services.db.select({ n: count() }).from(apiKeys).limit(1))[0]?.n,
});
const post = (body: unknown) => apiRequest(h, "POST", "/api/admin/knocs", body, { cookie: admin });
const linux = (extra: Record<string, unknown> = {}) => ({
  Kind: "LINUX",
  WizardState: {
    agentId,
    userIds: [seed.userId],
    form: { Name: "bastion-ipset", Config: { ipset: {} }, AclConfig: { ipset: { V4SetName: "postern4" } } },
    knocOptionsForm: options,
    ...extra,
  },
});

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h, { licence: false });
  admin = await signInAdmin(h);
  const agent = await h.services.agents.create("firewall", "http://127.0.0.1", actor);
  await h.services.agents.enrol(
    {
      Token: agent.Token,
      SigningPublicKey: "x",
      BoxPublicKey: randomBytes(32).toString("base64"),
      Version: "1.9.0",
      Capabilities: {
        ipset: { command_available: true, sudo_enabled: true, ipsets: [] },
        haproxy: { socket_location: "/run/haproxy.sock" },
        script: { enabled: true },
      },
    },
    "127.0.0.1",
  );
  agentId = agent.ID;
  h.channel.online.add(agentId);
});
afterEach(async () => {
  await h.close();
});

describe("Knoc creation", () => {
  it("is refused without a licence, leaving nothing behind", async () => {
    const before = await counts();
    expect(await post(linux())).toMatchObject({ status: 403, body: { Err: "err.youDoNotHaveALicense" } });
    expect(await counts()).toEqual(before);
  });

  describe("with a licence", () => {
    beforeEach(async () => {
      expect(
        (await apiRequest(h, "POST", "/api/admin/settings/license", { License: "free" }, { cookie: admin })).status,
      ).toBe(200);
    });

    it("creates a LINUX Knoc: backend, ACL, assignment — the list shows it with its kind and counts", async () => {
      const r = await post(linux());
      expect(r.status).toBe(201);
      const [id] = r.body as string[];
      expect((r.body as string[]).length).toBe(1);
      const list = (await apiRequest(h, "GET", "/api/admin/knocs", undefined, { cookie: admin })).body as {
        ID: string;
        Kind: string;
        UserCount: number;
        AgentName: string;
        Description: string;
        LastModifiedBy: string;
      }[];
      expect(list.find((k) => k.ID === id)).toMatchObject({
        Kind: "LINUX",
        UserCount: 1,
        AgentName: "firewall",
        Description: "SSH bastion",
        LastModifiedBy: "root",
      });
      expect((await h.services.users.get(seed.userId)).AclIds).toContain(id);
      expect((await apiRequest(h, "GET", `/api/admin/knocs/${id}`, undefined, { cookie: admin })).body).toMatchObject({
        ID: id,
        Kind: "LINUX",
        MaximumGrantDuration: 3600,
      });
    });

    it("creates a passive APPLICATION Knoc with a new API key: [id, key, allowlist URL], the list served with that key", async () => {
      const r = await post({
        Kind: "APPLICATION",
        WizardState: {
          userIds: [seed.userId],
          form: { Name: "vendor-list", Config: { allowlist: {} } },
          knocOptionsForm: { ...options, Description: "Vendor portal" },
          apiKeyOption: "new",
          apiKeyForm: { Name: "vendor-key", AllowedFrom: [{ Prefix: "203.0.113.0/24", Note: "vendor" }] },
        },
      });
      expect(r.status).toBe(201);
      const [id, key, url] = r.body as [string, string, string];
      expect(key).toMatch(/^pst_/);
      expect(url).toMatch(new RegExp(`^http://postern\\.test/api/v1/allowlists/${id}/[A-Za-z0-9_-]+\\.txt$`));
      const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
      const cookie = login.setCookie.split(";")[0] ?? "";
      expect((await apiRequest(h, "POST", "/api/grant", { ACLID: id, IPs: [] }, { cookie })).status).toBe(200);
      const path = new URL(url).pathname;
      const list = await apiRequest(h, "GET", path, undefined, {
        headers: { authorization: `Basic ${Buffer.from(`x:${key}`).toString("base64")}` },
      });
      expect(list.status).toBe(200);
      expect(list.body).toBe("203.0.113.5\n");
      expect(
        (
          (await apiRequest(h, "GET", `/api/admin/knocs/${id}`, undefined, { cookie: admin })).body as {
            ApplicationType: string;
          }
        ).ApplicationType,
      ).toBe("passive");
    });

    it("refuses a passive Knoc without a key and without an IP restriction (err.allowlistAccessIpRestrictionFormRequired)", async () => {
      const before = await counts();
      const r = await post({
        Kind: "APPLICATION",
        WizardState: {
          form: { Name: "open-list", Config: { allowlist: {} } },
          knocOptionsForm: options,
          apiKeyOption: "none",
        },
      });
      expect(r).toMatchObject({ status: 400, body: { Err: "err.allowlistAccessIpRestrictionFormRequired" } });
      expect(await counts()).toEqual(before);
      // An explicit empty list says the same, and is fine beside an API key (the browser sends it).
      const explicit = await post({
        Kind: "APPLICATION",
        WizardState: {
          form: { Name: "open-list", Config: { allowlist: {} } },
          knocOptionsForm: options,
          apiKeyOption: "none",
          allowlistAccessIpRestrictionForm: { AllowedFrom: [] },
        },
      });
      expect(explicit).toMatchObject({ status: 400, body: { Err: "err.allowlistAccessIpRestrictionFormRequired" } });
      const withKey = await post({
        Kind: "APPLICATION",
        WizardState: {
          form: { Name: "keyed-list", Config: { allowlist: {} } },
          knocOptionsForm: options,
          apiKeyOption: "new",
          apiKeyForm: { Name: "keyed-list-key" },
          allowlistAccessIpRestrictionForm: { AllowedFrom: [] },
        },
      });
      expect(withKey.status).toBe(201);
    });

    it("rolls everything back when a late step fails (an unknown user in the assignments)", async () => {
      const before = await counts();
      const r = await post({
        Kind: "APPLICATION",
        WizardState: {
          userIds: [seed.userId, "99999999-9999-4999-8999-999999999999"],
          form: { Name: "vendor-list", Config: { allowlist: {} } },
          knocOptionsForm: options,
          apiKeyOption: "new",
          apiKeyForm: { Name: "vendor-key" },
        },
      });
      expect(r).toMatchObject({
        status: 400,
        body: { Err: "Bad request", Extra: "userIds: unknown user 99999999-9999-4999-8999-999999999999" },
      });
      expect(await counts()).toEqual(before);
      expect((await h.services.users.get(seed.userId)).AclIds).toEqual([seed.aclId]);
    });

    it("refuses a kind that does not match the backend type", async () => {
      const r = await post({ ...linux(), Kind: "PROXY" });
      expect(r).toMatchObject({ status: 400, body: { Err: "err.agentBackendTypeNotSupported" } });
    });

    it("creates a Passive+ Knoc: allowlist parent shown, hidden panos child on the agent", async () => {
      const r = await post({
        Kind: "APPLICATION",
        WizardState: {
          agentId,
          form: {
            Name: "palo",
            Config: { panos: { Hostname: "fw.example", ApiKey: "secret-key", VSys: "vsys1" } },
            AclConfig: { panos: { EDLName: "postern_edl", GroupName: "postern", URL: "https://postern.example/list" } },
          },
          knocOptionsForm: options,
          apiKeyOption: "none",
          allowlistAccessIpRestrictionForm: { AllowedFrom: [{ Prefix: "198.51.100.10/32", Note: "firewall" }] },
        },
      });
      expect(r.status).toBe(201);
      const [id] = r.body as string[];
      const list = (await apiRequest(h, "GET", "/api/admin/knocs", undefined, { cookie: admin })).body as {
        ID: string;
        ApplicationType?: string;
        Children: string[];
      }[];
      const knoc = list.find((k) => k.ID === id);
      expect(knoc).toMatchObject({ ApplicationType: "passive+" });
      expect(knoc?.Children).toHaveLength(1);
      expect(list.some((k) => k.ID === knoc?.Children[0])).toBe(false);
      const child = (await apiRequest(h, "GET", `/api/admin/knocs/${knoc?.Children[0]}`, undefined, { cookie: admin }))
        .body;
      expect(child).toMatchObject({ HideFromAdmins: true, ParentID: id, AgentName: "firewall" });
      expect(JSON.stringify(child)).not.toContain("secret-key");
      // Update (by the child's id, as the update page does): a new hostname needs the API key again.
      const update = (Hostname: string, ApiKey: string) => ({
        WizardState: {
          agentId,
          form: {
            Name: "palo",
            Config: { panos: { Hostname, ApiKey, VSys: "vsys1" } },
            AclConfig: { panos: { EDLName: "postern_edl", GroupName: "postern", URL: "https://postern.example/list" } },
          },
          knocOptionsForm: { ...options, Description: "Palo (renamed)" },
        },
      });
      const childId = knoc?.Children[0] ?? "";
      expect(
        await apiRequest(h, "PUT", `/api/admin/knocs/${childId}`, update("fw2.example", ""), { cookie: admin }),
      ).toMatchObject({
        status: 400,
        body: { Err: "Changing the URI or hostname requires re-entering credentials" },
      });
      expect(
        (await apiRequest(h, "PUT", `/api/admin/knocs/${childId}`, update("fw.example", ""), { cookie: admin })).status,
      ).toBe(200);
      expect((await apiRequest(h, "GET", `/api/admin/knocs/${id}`, undefined, { cookie: admin })).body).toMatchObject({
        Description: "Palo (renamed)",
      });
      expect(
        (await apiRequest(h, "PUT", `/api/admin/knocs/${childId}`, update("fw2.example", "new-key"), { cookie: admin }))
          .status,
      ).toBe(200);
    });
  });
});

describe("Knoc update and delete", () => {
  it("updates options and assignments in one go; a user losing the Knoc loses the grant; delete removes ACL, backend and key", async () => {
    expect(
      (await apiRequest(h, "POST", "/api/admin/settings/license", { License: "free" }, { cookie: admin })).status,
    ).toBe(200);
    const [id] = (await post(linux())).body as string[];
    const login = await apiRequest(h, "POST", "/api/login", { UserName: "alice", Password: "alice-password" });
    const cookie = login.setCookie.split(";")[0] ?? "";
    await apiRequest(h, "POST", "/api/grant", { ACLID: id, IPs: [] }, { cookie });
    h.channel.take();
    const ws = linux().WizardState;
    const r = await apiRequest(
      h,
      "PUT",
      `/api/admin/knocs/${id}`,
      { WizardState: { ...ws, userIds: [], knocOptionsForm: { ...options, Description: "Bastion (EU)" } } },
      { cookie: admin },
    );
    expect(r.status).toBe(200);
    expect(h.channel.take()).toEqual([expect.objectContaining({ op: "del", ip: "203.0.113.5" })]);
    expect((await apiRequest(h, "GET", `/api/admin/knocs/${id}`, undefined, { cookie: admin })).body).toMatchObject({
      Description: "Bastion (EU)",
      UserCount: 0,
    });
    const before = await counts();
    expect((await apiRequest(h, "DELETE", `/api/admin/knocs/${id}`, undefined, { cookie: admin })).status).toBe(204);
    expect(await counts()).toEqual({ ...before, acls: (before.acls ?? 0) - 1, backends: (before.backends ?? 0) - 1 });
    expect((await apiRequest(h, "GET", `/api/admin/knocs/${id}`, undefined, { cookie: admin })).status).toBe(404);
  });
});

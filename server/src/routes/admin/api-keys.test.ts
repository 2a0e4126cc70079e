import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { sha256 } from "../../services/auth/tokens.ts";
import { apiRequest, createHarness, seedLoop, signInAdmin } from "../../testing/harness.ts";
import type { Harness, Seeded } from "../../testing/harness.ts";

const { apiKeys, auditLog } = testTables;

let h: Harness;
let seed: Seeded;
let admin = "";
const actor = { adminName: "setup", ip: "127.0.0.1" };
const NONE = "00000000-0000-0000-0000-000000000000";
const UNKNOWN = "11111111-1111-4111-8111-111111111111";

const inDays = (days: number) => new Date(h.clock.now() + days * 86_400_000).toISOString();
const call = (method: string, path: string, body?: unknown, cookie = admin) =>
  apiRequest(h, method, `/api/admin/api-keys${path}`, body, { cookie });
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));

async function createAllowlistAcl(description: string, apiKeyId = NONE): Promise<string> {
  const backendId = await h.services.backends.create(
    { Name: `list-${description}`, AgentID: NONE, Config: { allowlist: {} } },
    actor,
  );
  const base = await h.services.acls.get(seed.aclId);
  return await h.services.acls.create(
    {
      ...base,
      Description: description,
      BackendID: backendId,
      Config: {
        UriToken: "",
        allowlist: { Token: "tok", ApiKeyId: apiKeyId, AllowAccessByIp: false, AllowedIpAddresses: [] },
      },
    },
    actor,
  );
}

async function createApiUser(): Promise<string> {
  return h.services.users.create(
    {
      Name: "Robot",
      UserName: "robot",
      Company: "",
      Duration: 60,
      SessionLimit: null,
      AuthType: "apikey",
      TOTPEnabled: false,
      ValidUntil: null,
      ThirdPartyAuth: { DN: "" },
      AclIds: [],
    },
    actor,
  );
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  admin = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

describe("/admin/api-keys", () => {
  it("refuses callers without an admin session", async () => {
    for (const [method, path] of [
      ["GET", ""],
      ["GET", `/${UNKNOWN}`],
      ["POST", ""],
      ["PUT", `/${UNKNOWN}`],
      ["DELETE", `/${UNKNOWN}`],
    ] as const) {
      expect(
        await call(
          method,
          path,
          method === "POST" || method === "PUT" ? { Name: "x", ExpiredAfter: null } : undefined,
          "",
        ),
      ).toMatchObject({ status: 401, body: { Err: "err.invalidSession" } });
    }
    expect(await h.services.db.select().from(apiKeys)).toHaveLength(0);
  });

  it("creates a key: 201 with the plaintext once, defaults, only the SHA-256 of the secret stored, audited", async () => {
    const expires = inDays(365);
    const created = await call("POST", "", {
      Name: "  Firewall feed  ",
      Scopes: ["user.sessions"],
      ExpiredAfter: expires,
    });
    expect(created.status).toBe(201);
    const key = created.body as { ID: string; PlaintextKey: string; [k: string]: unknown };
    expect(key).toMatchObject({
      Name: "Firewall feed",
      Scopes: ["user.sessions"],
      Resources: ["User sessions"],
      AllowedFrom: [
        { Prefix: "0.0.0.0/0", Note: "" },
        { Prefix: "::/0", Note: "" },
      ],
      ExpiredAfter: expires,
      LastUsedAt: null,
    });
    expect(Date.parse(key["CreatedAt"] as string)).toBeGreaterThan(0);
    const match = /^pst_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/.exec(key.PlaintextKey);
    expect(match).not.toBeNull();
    expect(match![1]).toBe(key.ID.replaceAll("-", ""));
    // Only the hash of the secret is stored; no column holds the key or the secret.
    const row = (await h.services.db.select().from(apiKeys).where(eq(apiKeys.id, key.ID)).limit(1))[0]!;
    expect(row.secretHash).toBe(sha256(match![2]!));
    expect(JSON.stringify(row)).not.toContain(match![2]!);
    // Never shown again: not by get, not by list.
    const read = await call("GET", `/${key.ID}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty("PlaintextKey");
    expect(JSON.stringify(read.body)).not.toContain(match![2]!);
    const list = await call("GET", "");
    expect(list.body).toEqual([read.body]);
    expect(JSON.stringify(list.body)).not.toContain(match![2]!);
    expect(await audits("apiKeyCreated")).toEqual([
      expect.objectContaining({ adminName: "root", description: expect.stringContaining("Firewall feed") }),
    ]);
  });

  it("validates the name: required and unique", async () => {
    expect(await call("POST", "", { ExpiredAfter: null })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Name/) },
    });
    expect(await call("POST", "", { Name: "   ", ExpiredAfter: null })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^Name/) },
    });
    expect((await call("POST", "", { Name: "dup", ExpiredAfter: null })).status).toBe(201);
    expect(await call("POST", "", { Name: "dup", ExpiredAfter: null })).toMatchObject({
      status: 409,
      body: { Err: "An API key with that name already exists" },
    });
    expect(await call("POST", "", "{not json")).toMatchObject({
      status: 400,
      body: { Err: "Failed decoding request body" },
    });
    expect(await h.services.db.select().from(apiKeys)).toHaveLength(1);
  });

  it("validates ExpiredAfter: required on create, in the future, or null for never", async () => {
    expect(await call("POST", "", { Name: "k" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^ExpiredAfter/) },
    });
    expect(await call("POST", "", { Name: "k", ExpiredAfter: "next year" })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^ExpiredAfter/) },
    });
    expect(await call("POST", "", { Name: "k", ExpiredAfter: inDays(-1) })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^ExpiredAfter: must be in the future/) },
    });
    expect(
      await call("POST", "", { Name: "k", ExpiredAfter: new Date(h.clock.now() - 1000).toISOString() }),
    ).toMatchObject({ status: 400 });
    const never = await call("POST", "", { Name: "k", ExpiredAfter: null });
    expect(never).toMatchObject({ status: 201, body: { ExpiredAfter: null } });
    const dated = await call("POST", "", { Name: "k2", ExpiredAfter: "2999-01-01T00:00:00+02:00" });
    expect(dated).toMatchObject({ status: 201, body: { ExpiredAfter: "2998-12-31T22:00:00.000Z" } });
  });

  it("validates AllowedFrom: IPv4 and IPv6 CIDRs (err.invalidCidr), notes optional, never empty; normalises prefixes", async () => {
    const bad = [
      "10.0.0.1",
      "10.0.0.0/33",
      "10.0.0.0/-1",
      "10.0.0.0/08",
      "010.0.0.0/8",
      "256.1.1.1/32",
      "10.0.0/24",
      "2001:db8::/129",
      "2001:db8::1",
      "2001:zz8::/32",
      "",
      "any",
    ];
    for (const Prefix of bad) {
      expect(
        await call("POST", "", {
          Name: "k",
          ExpiredAfter: null,
          AllowedFrom: [{ Prefix: "192.0.2.0/24" }, { Prefix, Note: "x" }],
        }),
      ).toMatchObject({
        status: 400,
        body: { Err: "err.invalidCidr", Extra: "AllowedFrom.1.Prefix" },
      });
    }
    expect(await call("POST", "", { Name: "k", ExpiredAfter: null, AllowedFrom: [] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringMatching(/^AllowedFrom/) },
    });
    const ok = await call("POST", "", {
      Name: "k",
      ExpiredAfter: null,
      AllowedFrom: [
        { Prefix: " 192.0.2.7/24 " },
        { Prefix: "2001:DB8:0:0::/48", Note: "office v6" },
        { Prefix: "203.0.113.9/32", Note: "" },
      ],
    });
    expect(ok).toMatchObject({
      status: 201,
      body: {
        AllowedFrom: [
          { Prefix: "192.0.2.7/24", Note: "" },
          { Prefix: "2001:db8::/48", Note: "office v6" },
          { Prefix: "203.0.113.9/32", Note: "" },
        ],
      },
    });
    expect(await h.services.db.select().from(apiKeys)).toHaveLength(1);
  });

  it("validates scopes: known names, existing ids; an allowlist scope needs an allowlist first", async () => {
    for (const scope of [
      "admin",
      "allowlist.read",
      "allowlist.read:not-a-uuid",
      "user.auth:",
      "agent.register:x",
      "user.sessionsx",
    ]) {
      expect(await call("POST", "", { Name: "k", ExpiredAfter: null, Scopes: [scope] })).toMatchObject({
        status: 400,
        body: { Err: "Bad request", Extra: "Scopes.0: Invalid scope" },
      });
    }
    expect(
      await call("POST", "", { Name: "k", ExpiredAfter: null, Scopes: [`allowlist.read:${UNKNOWN}`] }),
    ).toMatchObject({
      status: 400,
      body: { Err: "You must create an allowlist before you can create an API key" },
    });
    const list = await createAllowlistAcl("Vendor feed");
    expect(
      await call("POST", "", { Name: "k", ExpiredAfter: null, Scopes: [`allowlist.read:${UNKNOWN}`] }),
    ).toMatchObject({ status: 400, body: { Err: "Bad request", Extra: expect.stringContaining("no allowlist ACL") } });
    // An ACL that exists but is not an allowlist is refused as well.
    expect(
      await call("POST", "", { Name: "k", ExpiredAfter: null, Scopes: [`allowlist.read:${seed.aclId}`] }),
    ).toMatchObject({ status: 400, body: { Err: "Bad request", Extra: expect.stringContaining("no allowlist ACL") } });
    expect(await call("POST", "", { Name: "k", ExpiredAfter: null, Scopes: [`user.auth:${UNKNOWN}`] })).toMatchObject({
      status: 400,
      body: { Err: "Bad request", Extra: expect.stringContaining("no API-key user") },
    });
    // user.auth only for users of AuthType apikey (alice signs in with a password).
    expect(
      await call("POST", "", { Name: "k", ExpiredAfter: null, Scopes: [`user.auth:${seed.userId}`] }),
    ).toMatchObject({ status: 400, body: { Err: "Bad request", Extra: expect.stringContaining("no API-key user") } });
    expect(await h.services.db.select().from(apiKeys)).toHaveLength(0);
    const robot = await createApiUser();
    const ok = await call("POST", "", {
      Name: "k",
      ExpiredAfter: null,
      Scopes: [
        `allowlist.read:${list.toUpperCase()}`,
        "agent.register",
        "user.sessions",
        `user.auth:${robot}`,
        "user.sessions",
      ],
    });
    expect(ok).toMatchObject({
      status: 201,
      body: {
        Scopes: [`allowlist.read:${list}`, "agent.register", "user.sessions", `user.auth:${robot}`],
        Resources: ["Vendor feed", "Agent registration", "User sessions", "robot"],
      },
    });
  });

  it("shows the allowlist scope of an ACL whose ApiKeyId names the key (the wizard creates the key first)", async () => {
    const key = (await call("POST", "", { Name: "wizard key", ExpiredAfter: null })).body as { ID: string };
    const acl = await createAllowlistAcl("Palo EDL", key.ID);
    expect((await call("GET", `/${key.ID}`)).body).toMatchObject({
      Scopes: [`allowlist.read:${acl}`],
      Resources: ["Palo EDL"],
    });
  });

  it("updates only AllowedFrom; other fields echoed unchanged pass, changed ones are refused", async () => {
    const list = await createAllowlistAcl("Feed");
    const created = (
      await call("POST", "", { Name: "k", ExpiredAfter: inDays(30), Scopes: [`allowlist.read:${list}`] })
    ).body as Record<string, unknown> & { ID: string };
    const { PlaintextKey: _p, ...read } = created;
    const put = (body: unknown, id = created.ID) => call("PUT", `/${id}`, body);
    const next = [{ Prefix: "198.51.100.0/24", Note: "vendor" }];
    const updated = await put({ ...read, AllowedFrom: next });
    expect(updated).toMatchObject({ status: 200, body: { ...read, AllowedFrom: next } });
    expect(await put({ AllowedFrom: [{ Prefix: "2001:db8::/32" }] })).toMatchObject({
      status: 200,
      body: { AllowedFrom: [{ Prefix: "2001:db8::/32", Note: "" }] },
    });
    expect(await audits("apiKeyUpdated")).toHaveLength(2);
    const refused = "Only the allowed-from list of an API key can be changed";
    expect(await put({ ...read, Name: "renamed" })).toMatchObject({
      status: 400,
      body: { Err: refused, Extra: "Name" },
    });
    expect(await put({ ...read, Scopes: ["user.sessions"] })).toMatchObject({
      status: 400,
      body: { Err: refused, Extra: "Scopes" },
    });
    expect(await put({ ...read, Scopes: [] })).toMatchObject({ status: 400, body: { Err: refused, Extra: "Scopes" } });
    expect(await put({ ...read, ExpiredAfter: null })).toMatchObject({
      status: 400,
      body: { Err: refused, Extra: "ExpiredAfter" },
    });
    expect(await put({ ...read, ExpiredAfter: inDays(60) })).toMatchObject({
      status: 400,
      body: { Err: refused, Extra: "ExpiredAfter" },
    });
    expect(await put({ ...read, AllowedFrom: [{ Prefix: "10.0.0.0/40" }] })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidCidr", Extra: "AllowedFrom.0.Prefix" },
    });
    expect(await put({ ...read, AllowedFrom: [{ Prefix: "fe80::/200" }] })).toMatchObject({
      status: 400,
      body: { Err: "err.invalidCidr" },
    });
    expect(await put({ ...read, AllowedFrom: [] })).toMatchObject({ status: 400, body: { Err: "Bad request" } });
    expect(await put({ ...read, ID: UNKNOWN })).toMatchObject({ status: 400, body: { Err: "Mismatching IDs" } });
    expect(await put({ AllowedFrom: next }, UNKNOWN)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await audits("apiKeyUpdated")).toHaveLength(2);
    expect((await call("GET", `/${created.ID}`)).body).toMatchObject({
      AllowedFrom: [{ Prefix: "2001:db8::/32", Note: "" }],
      Name: "k",
    });
  });

  it("deletes a key (audited) and answers 404 for unknown ids", async () => {
    const key = (await call("POST", "", { Name: "gone", ExpiredAfter: null })).body as { ID: string };
    expect((await call("DELETE", `/${key.ID}`)).status).toBe(204);
    expect(await call("GET", `/${key.ID}`)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await call("DELETE", `/${key.ID}`)).toMatchObject({ status: 404, body: { Err: "Not found" } });
    expect(await audits("apiKeyDeleted")).toEqual([
      expect.objectContaining({ adminName: "root", description: expect.stringContaining("gone") }),
    ]);
    expect((await call("GET", "")).body).toEqual([]);
  });
});

/**
 * Agent creation and enrolment over HTTP (issue #8 items 6 and 7): install tokens stored as SHA-256
 * hashes, expiring (24 hours by default, POSTERN_AGENT_TOKEN_HOURS) and cleared once used;
 * POST /api/agent/register creating and enrolling an agent for an API key of scope agent.register
 * (refused otherwise with "Unauthorised"); the licence's MaxMachines on every creating path.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { testTables } from "../testing/database.ts";
import { agentTokenLifetimeMs, loadServerConfig } from "../config/index.ts";
import { AgentService } from "../services/agents.ts";
import { sha256 } from "../services/auth/tokens.ts";
import { apiRequest, createHarness, signInAdmin } from "../testing/harness.ts";
import type { Harness } from "../testing/harness.ts";
import { installTestLicence } from "../testing/licences.ts";

const { agents, auditLog } = testTables;

const HOUR = 3_600_000;
const actor = { adminName: "setup", ip: "127.0.0.1" };
let h: Harness;
let admin = "";

beforeEach(async () => {
  h = await createHarness();
  admin = await signInAdmin(h);
});
afterEach(async () => {
  await h.close();
});

const agentCount = async () => (await h.services.db.select({ n: count() }).from(agents).limit(1))[0]?.n ?? 0;
const agentRow = async (id: string) => (await h.services.db.select().from(agents).where(eq(agents.id, id)).limit(1))[0];
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
const keys = { SigningPublicKey: "c2lnbmluZw==", BoxPublicKey: "Ym94", Version: "1.9.0", Capabilities: {} };
const enrolWith = (token: string) => apiRequest(h, "POST", "/api/agent/enrol", { Token: token, ...keys });
async function createAgent(name: string): Promise<{ ID: string; Token: string }> {
  const r = await apiRequest(h, "POST", "/api/admin/agents", { Name: name }, { cookie: admin });
  expect(r.status).toBe(201);
  return r.body as { ID: string; Token: string };
}
async function createKey(
  name: string,
  scopes: string[],
  more: { AllowedFrom?: { Prefix: string; Note: string }[]; ExpiredAfter?: string | null } = {},
): Promise<string> {
  return (
    await h.services.apiKeys.create(
      {
        Name: name,
        Scopes: scopes,
        ExpiredAfter: more.ExpiredAfter ?? null,
        ...(more.AllowedFrom ? { AllowedFrom: more.AllowedFrom } : {}),
      },
      actor,
    )
  ).PlaintextKey!;
}
const register = (key: string | undefined, name: string, from = "198.51.100.7") =>
  apiRequest(
    h,
    "POST",
    "/api/agent/register",
    { Name: name, ...keys },
    {
      from,
      ...(key !== undefined ? { headers: { authorization: `Bearer ${key}` } } : {}),
    },
  );

describe("agent install tokens (issue #8 item 6)", () => {
  it("stores only the SHA-256 of the token, expiring 24 hours after creation, and never reads it back", async () => {
    const before = h.clock.now();
    const created = await createAgent("edge");
    const row = (await agentRow(created.ID))!;
    expect(row.tokenHash).toBe(sha256(created.Token));
    expect(Object.values(row).map(String)).not.toContain(created.Token);
    expect(row.tokenExpiresAt).toBeGreaterThanOrEqual(before + 24 * HOUR);
    expect(row.tokenExpiresAt).toBeLessThanOrEqual(h.clock.now() + 24 * HOUR);
    const read = await apiRequest(h, "GET", `/api/admin/agents/${created.ID}`, undefined, { cookie: admin });
    expect(read.body).toMatchObject({ Token: "" });
  });

  it("refuses an expired token with 401 and changes nothing", async () => {
    const created = await createAgent("edge");
    h.clock.advance(24 * HOUR);
    const r = await enrolWith(created.Token);
    expect(r).toMatchObject({ status: 401, body: { Err: "Unauthorised", Extra: expect.stringMatching(/expired/) } });
    expect(await agentRow(created.ID)).toMatchObject({ signingPublicKey: null, tokenUsedAt: null });
    expect(await audits("agentEnrolled")).toEqual([]);
  });

  it("accepts the token just before it expires, clears it, and refuses it a second time", async () => {
    const created = await createAgent("edge");
    // Real time moves on under the test clock: leave a second to spare.
    h.clock.advance((await agentRow(created.ID))!.tokenExpiresAt! - h.clock.now() - 1_000);
    const first = await enrolWith(created.Token);
    expect(first).toMatchObject({ status: 200, body: { AgentID: created.ID, Name: "edge" } });
    expect((first.body as { ServerKey: string }).ServerKey).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(await agentRow(created.ID)).toMatchObject({
      tokenHash: null,
      tokenExpiresAt: null,
      signingPublicKey: keys.SigningPublicKey,
    });
    expect(await enrolWith(created.Token)).toMatchObject({ status: 401, body: { Err: "Unauthorised" } });
  });

  it("takes its lifetime from POSTERN_AGENT_TOKEN_HOURS (default 24, refused when malformed)", async () => {
    expect(agentTokenLifetimeMs({})).toBe(24 * HOUR);
    expect(agentTokenLifetimeMs({ POSTERN_AGENT_TOKEN_HOURS: "2" })).toBe(2 * HOUR);
    expect(agentTokenLifetimeMs({ POSTERN_AGENT_TOKEN_HOURS: "0.5" })).toBe(HOUR / 2);
    for (const bad of ["0", "-1", "x", "9000"]) {
      expect(() => agentTokenLifetimeMs({ POSTERN_AGENT_TOKEN_HOURS: bad })).toThrow(/POSTERN_AGENT_TOKEN_HOURS/);
      expect(loadServerConfig({ POSTERN_AGENT_TOKEN_HOURS: bad })).toMatchObject({ ok: false });
    }
    expect(loadServerConfig({ POSTERN_AGENT_TOKEN_HOURS: "2" })).toMatchObject({
      ok: true,
      value: { agentTokenHours: 2 },
    });
    const service = new AgentService(h.services.db, h.clock, h.services.hub, { tokenLifetimeMs: 2 * HOUR });
    const before = h.clock.now();
    const created = await service.create("short", "https://postern.test", actor);
    const expiresAt = (await agentRow(created.ID))!.tokenExpiresAt!;
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2 * HOUR);
    expect(expiresAt).toBeLessThanOrEqual(h.clock.now() + 2 * HOUR);
  });
});

describe("POST /api/agent/register (issue #8 item 6)", () => {
  it("creates and enrols an agent in one step for a key of scope agent.register", async () => {
    const key = await createKey("provisioning", ["agent.register"]);
    const r = await register(key, "edge-7");
    expect(r.status).toBe(200);
    const body = r.body as { AgentID: string; Name: string; ServerKey: string };
    expect(body.Name).toBe("edge-7");
    // The same server key as a token enrolment answers.
    const other = await createAgent("other");
    expect((await enrolWith(other.Token)).body).toMatchObject({ ServerKey: body.ServerKey });
    expect(await agentRow(body.AgentID)).toMatchObject({
      name: "edge-7",
      tokenHash: null,
      signingPublicKey: keys.SigningPublicKey,
      boxPublicKey: keys.BoxPublicKey,
      version: "1.9.0",
      externalIp: "198.51.100.7",
    });
    expect((await audits("agentCreated")).find((a) => a.agentName === "edge-7")?.description).toContain(
      '"provisioning"',
    );
    expect((await audits("agentEnrolled")).find((a) => a.agentName === "edge-7")).toBeDefined();
  });

  it("refuses with the spec's Unauthorised: no key (401, challenge), another scope, outside AllowedFrom, expired; nothing created", async () => {
    const wrongScope = await createKey("sessions", ["user.sessions"]);
    const fenced = await createKey("fenced", ["agent.register"], {
      AllowedFrom: [{ Prefix: "203.0.113.0/24", Note: "build network" }],
    });
    const expiring = await createKey("expiring", ["agent.register"], {
      ExpiredAfter: new Date(h.clock.now() + HOUR).toISOString(),
    });
    h.clock.advance(HOUR);
    const none = await register(undefined, "x1");
    expect(none).toMatchObject({ status: 401, body: { Err: "Unauthorised" } });
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="postern"');
    expect(await register("pst_not-a-key", "x2")).toMatchObject({ status: 401, body: { Err: "Unauthorised" } });
    expect(await register(wrongScope, "x3")).toMatchObject({ status: 403, body: { Err: "Unauthorised" } });
    expect(await register(fenced, "x4")).toMatchObject({ status: 403, body: { Err: "Unauthorised" } });
    expect(await register(expiring, "x5")).toMatchObject({ status: 401, body: { Err: "Unauthorised" } });
    expect(await agentCount()).toBe(0);
    // From inside its AllowedFrom the fenced key works.
    expect((await register(fenced, "x6", "203.0.113.9")).status).toBe(200);
  });

  it("refuses a taken name (409) and a malformed body (400)", async () => {
    const key = await createKey("provisioning", ["agent.register"]);
    await createAgent("edge");
    expect(await register(key, "edge")).toMatchObject({
      status: 409,
      body: { Err: "An agent with that name already exists" },
    });
    const bad = await apiRequest(
      h,
      "POST",
      "/api/agent/register",
      { Name: "" },
      {
        headers: { authorization: `Bearer ${key}` },
      },
    );
    expect(bad.status).toBe(400);
    expect(await agentCount()).toBe(1);
  });
});

describe("the licence's MaxMachines (issue #8 item 7)", () => {
  const limitError = {
    status: 403,
    body: {
      Err: "err.machineLimitReached",
      Extra: "MaxMachines 2: the licence covers 2 agents and 2 exist",
    },
  };

  it("is not enforced without a licence", async () => {
    for (const name of ["a", "b", "c"]) await createAgent(name);
    expect(await agentCount()).toBe(3);
  });

  it("refuses the admin API's create beyond it, naming the limit, and creates nothing", async () => {
    await installTestLicence(h, { MaxMachines: 2 });
    await createAgent("a");
    await createAgent("b");
    const r = await apiRequest(h, "POST", "/api/admin/agents", { Name: "c" }, { cookie: admin });
    expect(r).toMatchObject(limitError);
    expect(await agentCount()).toBe(2);
    expect(await audits("agentCreated")).toHaveLength(2);
    // Deleting one frees a slot.
    const list = (await apiRequest(h, "GET", "/api/admin/agents", undefined, { cookie: admin })).body as {
      ID: string;
    }[];
    expect(
      (await apiRequest(h, "DELETE", `/api/admin/agents/${list[0]!.ID}`, undefined, { cookie: admin })).status,
    ).toBe(204);
    await createAgent("c");
  });

  it("refuses the API-key registration beyond it", async () => {
    await installTestLicence(h, { MaxMachines: 2 });
    const key = await createKey("provisioning", ["agent.register"]);
    expect((await register(key, "a")).status).toBe(200);
    expect((await register(key, "b")).status).toBe(200);
    expect(await register(key, "c")).toMatchObject(limitError);
    expect(await agentCount()).toBe(2);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { testTables } from "../../testing/database.ts";
import { apiRequest, createHarness, seedLoop, unfoldAudits } from "../../testing/harness.ts";
import type { ApiResult, Harness, Seeded } from "../../testing/harness.ts";

const { auditLog, userSessions } = testTables;

let h: Harness;
let seed: Seeded;
const actor = { adminName: "setup", ip: "127.0.0.1" };
let key = "";
/** Cookie tokens and session ids of alice's two sessions. */
let first = { token: "", id: "" };
let second = { token: "", id: "" };

const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
/** One call; each refusal is audited on its own (folding is unfolded after every call, see unfoldAudits). */
const call = async (method: string, path: string, headers: Record<string, string>, from?: string) => {
  const r = await apiRequest(h, method, `/api/v1/sessions${path}`, undefined, { headers, ...(from ? { from } : {}) });
  await unfoldAudits(h);
  return r;
};
const audits = async (action: string) => await h.services.db.select().from(auditLog).where(eq(auditLog.action, action));
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
async function signIn(ip: string) {
  const { token, session } = await h.services.userSessions.login({
    userName: "alice",
    password: "alice-password",
    kiosk: false,
    ip,
  });
  await h.services.engine.grant(session.sessionId, seed.aclId, { userName: "alice", ip, click: true });
  return { token, id: session.sessionId };
}
function expectChallenge(r: ApiResult): void {
  expect(r).toMatchObject({ status: 401, body: { Err: "Unauthorised" } });
  expect(r.headers.get("www-authenticate")).toBe('Bearer realm="postern"');
}

beforeEach(async () => {
  h = await createHarness();
  seed = await seedLoop(h);
  h.channel.online.add(seed.agentId);
  key = await createKey("ops", ["user.sessions"]);
  first = await signIn("198.51.100.10");
  h.clock.advance(1000);
  second = await signIn("2001:db8::10");
  expect(h.channel.take().map((o) => `${o.op} ${o.ip}`)).toEqual(["add 198.51.100.10", "add 2001:db8::10"]);
});
afterEach(async () => {
  await h.close();
});

describe("/api/v1/sessions (scope user.sessions)", () => {
  it("lists the live user sessions", async () => {
    const r = await call("GET", "", bearer(key));
    expect(r.status).toBe(200);
    const s1 = (await h.services.db.select().from(userSessions).where(eq(userSessions.id, first.id)).limit(1))[0]!;
    expect(r.body).toEqual([
      {
        ID: first.id,
        UserName: "alice",
        Created: new Date(s1.createdAt).toISOString(),
        Ends: new Date(s1.endsAt).toISOString(),
        IPAddress: "198.51.100.10",
      },
      {
        ID: second.id,
        UserName: "alice",
        Created: expect.any(String),
        Ends: expect.any(String),
        IPAddress: "2001:db8::10",
      },
    ]);
    // HTTP Basic with the key as password works as well.
    const basic = `Basic ${Buffer.from(`ops:${key}`).toString("base64")}`;
    expect((await call("GET", "", { authorization: basic })).body).toEqual(r.body);
    // Ended and expired sessions are not listed.
    await h.services.userSessions.logout(await h.services.userSessions.resolve(first.token), "127.0.0.1");
    expect(((await call("GET", "", bearer(key))).body as { ID: string }[]).map((s) => s.ID)).toEqual([second.id]);
    h.clock.advance(480 * 60_000);
    expect((await call("GET", "", bearer(key))).body).toEqual([]);
  });

  it("ends a session: its grants are revoked on the agent, the session is gone, audited", async () => {
    const r = await call("DELETE", `/${first.id}`, bearer(key), "192.0.2.44");
    expect(r.status).toBe(204);
    expect(h.channel.take()).toEqual([
      expect.objectContaining({ op: "del", ip: "198.51.100.10", target: expect.objectContaining({ key: seed.aclId }) }),
    ]);
    await expect(h.services.userSessions.resolve(first.token)).rejects.toThrow(
      expect.objectContaining({ status: 401 }),
    );
    expect((await h.services.userSessions.resolve(second.token)).sessionId).toBe(second.id);
    expect(
      (await h.services.db.select().from(userSessions).where(eq(userSessions.id, first.id)).limit(1))[0],
    ).toMatchObject({
      endReason: "apiKey",
      endedAt: expect.any(Number),
    });
    expect(await audits("sessionDeleted")).toEqual([
      expect.objectContaining({ userName: "alice", ipAddress: "192.0.2.44", description: 'ended with API key "ops"' }),
    ]);
    expect(((await call("GET", "", bearer(key))).body as { ID: string }[]).map((s) => s.ID)).toEqual([second.id]);
    // Ending it again, an unknown id or a malformed id: 404, nothing sent.
    for (const id of [first.id, "11111111-1111-4111-8111-111111111111", "nope"]) {
      expect(await call("DELETE", `/${id}`, bearer(key))).toMatchObject({ status: 404, body: { Err: "Not found" } });
    }
    expect(h.channel.take()).toHaveLength(0);
    expect(await audits("sessionDeleted")).toHaveLength(1);
  });

  it("refuses missing, wrong and expired keys (401 challenge), keys lacking the scope or used from elsewhere (403), audited", async () => {
    const expiring = await createKey("expiring", ["user.sessions"], {
      ExpiredAfter: new Date(h.clock.now() + 1000).toISOString(),
    });
    const otherScope = await createKey("agents only", ["agent.register"]);
    const fenced = await createKey("fenced", ["user.sessions"], {
      AllowedFrom: [
        { Prefix: "10.0.0.0/8", Note: "lan" },
        { Prefix: "fd00::/8", Note: "" },
      ],
    });
    expect((await call("GET", "", bearer(fenced), "10.1.2.3")).status).toBe(200);
    expect((await call("GET", "", bearer(fenced), "fd12::1")).status).toBe(200);
    h.clock.advance(1000);
    const wrong = key.slice(0, -2) + (key.endsWith("AA") ? "BB" : "AA");
    for (const headers of [{}, bearer(wrong), bearer(""), bearer(expiring), { authorization: "Token abc" }]) {
      expectChallenge(await call("GET", "", headers));
      expectChallenge(await call("DELETE", `/${first.id}`, headers));
    }
    for (const [k, from] of [
      [otherScope, undefined],
      [fenced, "11.0.0.1"],
      [fenced, "fe80::1"],
    ] as const) {
      const r1 = await call("GET", "", bearer(k), from);
      expect(r1).toMatchObject({ status: 403, body: { Err: "Unauthorised" } });
      expect(r1.headers.get("www-authenticate")).toBeNull();
      expect(await call("DELETE", `/${first.id}`, bearer(k), from)).toMatchObject({
        status: 403,
        body: { Err: "Unauthorised" },
      });
    }
    const refused = await audits("apiKeyAccessDenied");
    expect(refused).toHaveLength(16);
    expect(refused.map((a) => a.description)).toEqual(
      expect.arrayContaining([
        "no API key presented (scope user.sessions)",
        "unknown or malformed API key (scope user.sessions)",
        'API key "expiring" has expired',
        'API key "agents only" lacks scope user.sessions',
        'API key "fenced" used from outside its AllowedFrom',
      ]),
    );
    // Nothing was ended or revoked by the refused calls.
    expect(h.channel.take()).toHaveLength(0);
    expect((await h.services.userSessions.resolve(first.token)).sessionId).toBe(first.id);
    expect(await audits("sessionDeleted")).toHaveLength(0);
  });
});
